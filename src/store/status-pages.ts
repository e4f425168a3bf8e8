/** A public status page (issue 15): which of an account's checks it shows, in this order. */
export interface StatusPage {
  id: string;
  accountId: string;
  slug: string;
  title: string;
  description: string | null;
  /** A host name whose requests get this page at `/`; null when none. */
  customDomain: string | null;
  checkIds: string[];
  /** The page also shows every check of the account with one of these tags (after checkIds, in dashboard order). */
  tags: string[];
  /** Issue 29: a confirmed outage of one of its checks opens an incident that resolves itself. */
  autoIncidents: boolean;
  /** Issue 29, the page's look: all rendered escaped; URLs are https only, the colour a hex one. */
  logoUrl: string | null;
  accentColor: string | null;
  footerText: string | null;
  favicon: string | null;
  hidePoweredBy: boolean;
  /** Issue 34: visitors may subscribe webhooks (off unless the owner turns it on; emails are always taken). */
  webhookSubscriptions: boolean;
  /** Issue 34: origins whose pages may show this one in a frame (its CSP frame-ancestors); empty: none. */
  embedAllowedOrigins: string[];
  createdAt: number;
  updatedAt: number;
}

export interface StatusPageRepo {
  insert(page: StatusPage): Promise<void>;
  /** Replaces every field but id, accountId and createdAt. */
  update(page: StatusPage): Promise<void>;
  delete(id: string): Promise<void>;
  byId(id: string): Promise<StatusPage | null>;
  bySlug(slug: string): Promise<StatusPage | null>;
  byDomain(host: string): Promise<StatusPage | null>;
  listForAccount(accountId: string): Promise<StatusPage[]>;
  /** True when at least one page lists the check (badges exist only for those). */
  listsCheck(checkId: string): Promise<boolean>;
  /** Slugs of the pages that list the check (what a change of it makes stale). */
  slugsListing(checkId: string): Promise<string[]>;
  /** Pages with `autoIncidents` on that list the check (issue 29). */
  autoIncidentPages(checkId: string): Promise<StatusPage[]>;
}

/** What `/readyz` and `/metrics` ask of the store beyond the repositories. */
export interface OperationsRepo {
  /** Writes and commits one row; throws when the database cannot take writes. */
  touch(now: number): Promise<void>;
  /** Alert deliveries waiting to be sent or being sent. */
  pendingDeliveries(): Promise<number>;
}
