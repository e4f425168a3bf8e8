import type { Config } from '../config.js';
import type { Clock } from '../domain/clock.js';
import { displayName } from '../domain/display-name.js';
import { errors } from '../domain/errors.js';
import type { Principal } from '../core/principal.js';
import { AuditLog } from '../core/audit-log.js';
import type { CreateStatusPageInput, UpdateStatusPageInput } from '../core/schemas/status-pages.js';
import { newId } from '../domain/secrets.js';
import { tagProblem, uniqueTags } from '../domain/tags.js';
import type { Store } from '../store/store.js';
import type { StatusPage, StatusPageRepo } from '../store/status-pages.js';
import { embedOrigins } from './embed-origins.js';

const HOST_NAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** Told when a page is created, changed or deleted (the page cache drops what it rendered). */
export type PageChanged = (before: StatusPage | null, after: StatusPage | null) => void;

/**
 * Status pages of an account (issue 15): the one owner of their mutations. A page lists only
 * checks of its own account; slugs and custom domains are unique across the node.
 */
export class StatusPagesService {
  private readonly listeners: PageChanged[] = [];

  constructor(
    private readonly store: Store,
    private readonly pages: StatusPageRepo,
    private readonly config: Config,
    private readonly clock: Clock,
  ) {
    this.audit = new AuditLog(store, clock);
  }

  private readonly audit: AuditLog;

  onChange(listener: PageChanged): void {
    this.listeners.push(listener);
  }

  async list(principal: Principal): Promise<StatusPage[]> {
    return this.pages.listForAccount(principal.account.id);
  }

  async get(principal: Principal, id: string): Promise<StatusPage> {
    const page = await this.pages.byId(id);
    if (!page) throw errors.notFound(`Status page ${id} not found`);
    if (page.accountId !== principal.account.id) throw errors.forbidden('This status page belongs to another account');
    return page;
  }

  async create(principal: Principal, input: CreateStatusPageInput): Promise<StatusPage> {
    const now = this.clock.now();
    const page = await this.store.transaction(async () => {
      const draft: StatusPage = {
        id: newId('spg'),
        accountId: principal.account.id,
        slug: input.slug,
        ...pageSettingsOf(input),
        checkIds: await this.ownChecks(principal, input.checkIds ?? []),
        createdAt: now,
        updatedAt: now,
      };
      await this.ensureFree(draft);
      await this.pages.insert(draft);
      await this.audit.record(principal, draft.accountId, 'status_page.create', pageTarget(draft), Object.keys(input));
      return draft;
    });
    this.changed(null, page);
    return page;
  }

  async update(principal: Principal, id: string, input: UpdateStatusPageInput): Promise<StatusPage> {
    const [before, after] = await this.store.transaction(async () => {
      const current = await this.get(principal, id);
      const next: StatusPage = {
        ...current,
        slug: input.slug ?? current.slug,
        title: input.title === undefined ? current.title : displayName(input.title, 'title'),
        description: input.description === undefined ? current.description : description(input.description),
        customDomain: input.customDomain === undefined ? current.customDomain : customDomain(input.customDomain),
        checkIds: input.checkIds === undefined ? current.checkIds : await this.ownChecks(principal, input.checkIds),
        tags: input.tags === undefined ? current.tags : pageTags(input.tags),
        autoIncidents: input.autoIncidents ?? current.autoIncidents,
        webhookSubscriptions: input.webhookSubscriptions ?? current.webhookSubscriptions,
        ...lookOf(input, current),
        updatedAt: this.clock.now(),
      };
      await this.ensureFree(next);
      await this.pages.update(next);
      const fields = Object.keys(input).filter((k) => input[k as keyof UpdateStatusPageInput] !== undefined);
      await this.audit.record(principal, next.accountId, 'status_page.update', pageTarget(next), fields);
      return [current, next] as const;
    });
    this.changed(before, after);
    return after;
  }

  async remove(principal: Principal, id: string): Promise<void> {
    const page = await this.store.transaction(async () => {
      const current = await this.get(principal, id);
      await this.pages.delete(id);
      await this.audit.record(principal, current.accountId, 'status_page.delete', pageTarget(current));
      return current;
    });
    this.changed(page, null);
  }

  /** The page's public address: on its custom domain when it has one. */
  url(page: StatusPage): string {
    return page.customDomain ? `https://${page.customDomain}/` : `${this.config.publicUrl}/status/${page.slug}`;
  }

  private async ownChecks(principal: Principal, ids: readonly string[]): Promise<string[]> {
    const unique = [...new Set(ids)];
    for (const id of unique) {
      const check = await this.store.checks.byId(id);
      if (!check || check.accountId !== principal.account.id) throw errors.badRequest(`checkIds: ${id} is not a check of this account`);
    }
    return unique;
  }

  private async ensureFree(page: StatusPage): Promise<void> {
    const sameSlug = await this.pages.bySlug(page.slug);
    if (sameSlug && sameSlug.id !== page.id) throw errors.conflict(`slug ${page.slug} is already taken`);
    if (page.customDomain === null) return;
    const sameDomain = await this.pages.byDomain(page.customDomain);
    if (sameDomain && sameDomain.id !== page.id) throw errors.conflict(`customDomain ${page.customDomain} is already used by another status page`);
  }

  /** Listeners (render-cache purges) hear of a change once it has committed. */
  private changed(before: StatusPage | null, after: StatusPage | null): void {
    this.store.afterCommit(() => {
      for (const listener of this.listeners) listener(before, after);
    });
  }
}

function pageTags(tags: readonly string[]): string[] {
  for (const tag of tags) {
    const problem = tagProblem(tag);
    if (problem !== null) throw errors.badRequest(`tags: ${problem}`);
  }
  return uniqueTags(tags);
}

type Look = Pick<StatusPage, 'logoUrl' | 'accentColor' | 'footerText' | 'favicon' | 'hidePoweredBy' | 'embedAllowedOrigins'>;

/** What a page's settings are once created from this input (every field but its slug and checks). */
export type PageSettings = Pick<StatusPage, 'title' | 'description' | 'customDomain' | 'tags' | 'autoIncidents' | 'webhookSubscriptions'> & Look;

/** The settings a create stores for this input, validated (a monitoring file compares a page with them). */
export function pageSettingsOf(input: Omit<CreateStatusPageInput, 'slug' | 'checkIds'>): PageSettings {
  return {
    title: displayName(input.title, 'title'),
    description: description(input.description),
    customDomain: customDomain(input.customDomain),
    tags: pageTags(input.tags ?? []),
    autoIncidents: input.autoIncidents ?? false,
    webhookSubscriptions: input.webhookSubscriptions ?? false,
    ...lookOf(input, null),
  };
}

/** The look's fields of a create or update: each validated, those left out kept (or empty on create). */
function lookOf(input: { [K in keyof Look]?: Look[K] }, current: Look | null): Look {
  const keep = <K extends keyof Look>(key: K, parse: (raw: NonNullable<Look[K]>) => Look[K]): Look[K] => {
    const raw = input[key];
    if (raw === undefined) return current ? current[key] : (EMPTY_LOOK[key] as Look[K]);
    return raw === null ? (null as Look[K]) : parse(raw as NonNullable<Look[K]>);
  };
  return {
    logoUrl: keep('logoUrl', (raw) => httpsUrl(raw, 'logoUrl')),
    accentColor: keep('accentColor', accentColor),
    footerText: keep('footerText', footerText),
    favicon: keep('favicon', (raw) => httpsUrl(raw, 'favicon')),
    hidePoweredBy: keep('hidePoweredBy', (raw) => raw),
    embedAllowedOrigins: keep('embedAllowedOrigins', embedOrigins),
  };
}

/** A new page's look where the input says nothing. */
const EMPTY_LOOK: Look = { logoUrl: null, accentColor: null, footerText: null, favicon: null, hidePoweredBy: false, embedAllowedOrigins: [] };

/** An absolute https URL without credentials, as the URL parser writes it (quotes and spaces percent-encoded). */
function httpsUrl(raw: string, field: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw errors.badRequest(`${field} must be an https URL`);
  }
  if (url.protocol !== 'https:' || !url.hostname) throw errors.badRequest(`${field} must be an https URL`);
  if (url.username || url.password) throw errors.badRequest(`${field} must not carry a user name or password`);
  return url.href;
}

const HEX_COLOR = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;

function accentColor(raw: string): string {
  const color = raw.trim().toLowerCase();
  if (!HEX_COLOR.test(color)) throw errors.badRequest('accentColor must be a hex colour such as #3b6fd8 or #36d');
  return color;
}

/** Plain text: line breaks kept, other control characters refused; blank is none. */
function footerText(raw: string): string | null {
  const text = raw.replace(/\r\n?/g, '\n').trim();
  if (text === '') return null;
  if (/[^\P{Cc}\n]/u.test(text)) throw errors.badRequest('footerText must not contain control characters other than line breaks');
  return text;
}

function description(raw: string | null | undefined): string | null {
  const text = raw?.trim() ?? '';
  return text === '' ? null : text;
}

function customDomain(raw: string | null | undefined): string | null {
  if (raw === undefined || raw === null) return null;
  const host = raw.trim().toLowerCase().replace(/\.$/, '');
  if (!HOST_NAME.test(host)) throw errors.badRequest('customDomain must be a host name such as status.example.com (no scheme, port or path)');
  return host;
}

const pageTarget = (p: StatusPage) => ({ kind: 'status_page', id: p.id, name: p.title });
