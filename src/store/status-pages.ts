import type { Answer } from './answer.js';
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
  createdAt: number;
  updatedAt: number;
}

export interface StatusPageRepo {
  insert(page: StatusPage): void;
  /** Replaces every field but id, accountId and createdAt. */
  update(page: StatusPage): void;
  delete(id: string): void;
  byId(id: string): StatusPage | null;
  bySlug(slug: string): StatusPage | null;
  byDomain(host: string): StatusPage | null;
  listForAccount(accountId: string): StatusPage[];
  /** True when at least one page lists the check (badges exist only for those). */
  listsCheck(checkId: string): boolean;
  /** Slugs of the pages that list the check (what a change of it makes stale). */
  slugsListing(checkId: string): string[];
  /** Pages with `autoIncidents` on that list the check (issue 29). */
  autoIncidentPages(checkId: string): Answer<StatusPage[]>;
}

/** What `/readyz` and `/metrics` ask of the store beyond the repositories. */
export interface OperationsRepo {
  /** Writes and commits one row; throws when the database cannot take writes. */
  touch(now: number): void;
  /** Alert deliveries waiting to be sent or being sent. */
  pendingDeliveries(): number;
}
