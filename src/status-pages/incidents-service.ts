import type { Clock } from '../domain/clock.js';
import { displayName } from '../domain/display-name.js';
import { errors } from '../domain/errors.js';
import { newId } from '../domain/secrets.js';
import { AuditLog, type AuditSource } from '../core/audit-log.js';
import type { Principal } from '../core/principal.js';
import { SYSTEM_ACTOR } from '../domain/people.js';
import { offsetPage } from '../core/pagination.js';
import type { CreateIncidentInput, IncidentUpdateInput, UpdateIncidentInput } from '../core/schemas/incidents.js';
import type { StatusChange, StatusFeed } from '../core/status-feed.js';
import type { Incident, IncidentRepo, IncidentStatus, IncidentUpdate } from '../store/incidents.js';
import type { StatusPage, StatusPageRepo } from '../store/status-pages.js';
import type { Store } from '../store/store.js';
import type { StatusPagesService } from './status-pages-service.js';

/** What happened to an incident, as listeners (caches, subscribers) hear it once committed. */
export type IncidentChange = 'opened' | 'updated' | 'resolved' | 'edited' | 'deleted';
export type IncidentListener = (page: StatusPage, incident: Incident, change: IncidentChange, update: IncidentUpdate | null) => void;

/** How long a resolved incident stays on the public page. */
export const INCIDENT_HISTORY_DAYS = 30;
const DAY_MS = 86_400_000;
/** Who opens and resolves autoIncidents' incidents, as the audit log names it. */
const AUTOMATIC: AuditSource = { actor: { ...SYSTEM_ACTOR, id: 'auto-incidents', name: 'automatic incidents' } };

/** Plain text with line breaks: other control characters are refused (they have no place in a page or a mail). */
function message(raw: string): string {
  const text = raw.replace(/\r\n?/g, '\n').trim();
  if (text === '') throw errors.badRequest('message must not be empty');
  if (/[^\P{Cc}\n\t]/u.test(text)) throw errors.badRequest('message must not contain control characters other than line breaks and tabs');
  return text;
}

/**
 * Incidents of a status page (issue 29): what the operator says while something is wrong, as a
 * timeline of updates until `resolved` closes it. Managing them follows the page's own rules
 * (the page's account, unrestricted keys). With a page's `autoIncidents`, a confirmed outage of
 * one of its checks opens one and the check's recovery resolves it, until an operator's update
 * or edit takes it over.
 */
export class IncidentsService {
  private readonly listeners: IncidentListener[] = [];
  private readonly audit: AuditLog;

  constructor(
    private readonly deps: {
      store: Pick<Store, 'afterCommit' | 'checks' | 'transaction' | 'audit'>;
      incidents: IncidentRepo;
      pages: Pick<StatusPageRepo, 'autoIncidentPages'>;
      statusPages: Pick<StatusPagesService, 'get'>;
      clock: Clock;
      /** Status changes once committed: confirmed outages and recoveries (autoIncidents). */
      feed?: StatusFeed;
      onError?: (err: unknown) => void;
    },
  ) {
    this.audit = new AuditLog(deps.store, deps.clock);
    deps.feed?.subscribe((change) => this.followCheck(change));
  }

  onChange(listener: IncidentListener): void {
    this.listeners.push(listener);
  }

  async list(principal: Principal, pageId: string, query: { limit?: number; page?: number }): Promise<{ data: Incident[]; total: number; page: number; limit: number }> {
    const page = await this.deps.statusPages.get(principal, pageId);
    const { limit, page: number, offset } = offsetPage(query);
    const data = await this.deps.incidents.list(page.id, { limit, offset });
    return { data, total: await this.deps.incidents.count(page.id), page: number, limit };
  }

  async get(principal: Principal, pageId: string, incidentId: string): Promise<Incident> {
    const page = await this.deps.statusPages.get(principal, pageId);
    return this.of(page, incidentId);
  }

  async create(principal: Principal, pageId: string, input: CreateIncidentInput): Promise<Incident> {
    const page = await this.deps.statusPages.get(principal, pageId);
    const status = input.status ?? 'investigating';
    return this.open(principal, page, {
      title: displayName(input.title, 'title'),
      impact: input.impact ?? 'minor',
      status,
      message: message(input.message),
      checkIds: onPage(page, input.checkIds ?? []),
      autoCheckId: null,
    });
  }

  /** Title, impact and affected checks; the status moves with updates. An edit takes an automatic incident over. */
  async update(principal: Principal, pageId: string, incidentId: string, input: UpdateIncidentInput): Promise<Incident> {
    const page = await this.deps.statusPages.get(principal, pageId);
    const current = await this.of(page, incidentId);
    const next: Incident = {
      ...current,
      title: input.title === undefined ? current.title : displayName(input.title, 'title'),
      impact: input.impact ?? current.impact,
      checkIds: input.checkIds === undefined ? current.checkIds : onPage(page, input.checkIds),
      autoCheckId: null,
      updatedAt: this.deps.clock.now(),
    };
    const fields = (['title', 'impact', 'checkIds'] as const).filter((k) => input[k] !== undefined);
    await this.deps.store.transaction(async () => {
      await this.deps.incidents.save(next, null);
      await this.audit.record(principal, page.accountId, 'incident.update', incidentTarget(next), fields);
      this.changed(page, next, 'edited', null);
    });
    return next;
  }

  async remove(principal: Principal, pageId: string, incidentId: string): Promise<void> {
    const page = await this.deps.statusPages.get(principal, pageId);
    const current = await this.of(page, incidentId);
    await this.deps.store.transaction(async () => {
      await this.deps.incidents.delete(current.id);
      await this.audit.record(principal, page.accountId, 'incident.delete', incidentTarget(current));
      this.changed(page, current, 'deleted', null);
    });
  }

  /** A new entry of the timeline; `resolved` closes the incident, and a closed one is not reopened. */
  async addUpdate(principal: Principal, pageId: string, incidentId: string, input: IncidentUpdateInput): Promise<Incident> {
    const page = await this.deps.statusPages.get(principal, pageId);
    const current = await this.of(page, incidentId);
    if (current.status === 'resolved' && input.status !== 'resolved') {
      throw errors.conflict('This incident is resolved: post a new incident, or an update with status resolved to add a note');
    }
    return this.append(principal, page, { ...current, autoCheckId: null }, input.status, message(input.message));
  }

  /** Open incidents, and those resolved in the last 30 days: what the public page shows. */
  shown(page: StatusPage, now: number): ReturnType<IncidentRepo['shown']> {
    return this.deps.incidents.shown(page.id, now - INCIDENT_HISTORY_DAYS * DAY_MS);
  }

  private async of(page: StatusPage, incidentId: string): Promise<Incident> {
    const incident = await this.deps.incidents.byId(incidentId);
    if (!incident || incident.pageId !== page.id) throw errors.notFound(`Incident ${incidentId} not found on status page ${page.id}`);
    return incident;
  }

  private async open(
    source: AuditSource,
    page: StatusPage,
    draft: Pick<Incident, 'title' | 'impact' | 'status' | 'checkIds' | 'autoCheckId'> & { message: string },
  ): Promise<Incident> {
    const now = this.deps.clock.now();
    const update: IncidentUpdate = { id: newId('inu'), status: draft.status, message: draft.message, at: now };
    const incident: Incident = {
      id: newId('inc'),
      pageId: page.id,
      title: draft.title,
      impact: draft.impact,
      status: draft.status,
      checkIds: draft.checkIds,
      updates: [update],
      autoCheckId: draft.autoCheckId,
      createdAt: now,
      updatedAt: now,
      resolvedAt: draft.status === 'resolved' ? now : null,
    };
    await this.deps.store.transaction(async () => {
      await this.deps.incidents.insert(incident);
      await this.audit.record(source, page.accountId, 'incident.create', incidentTarget(incident), ['title', 'impact', 'status', 'message', 'checkIds']);
      this.changed(page, incident, 'opened', update);
    });
    return incident;
  }

  private async append(source: AuditSource, page: StatusPage, current: Incident, status: IncidentStatus, text: string): Promise<Incident> {
    const now = this.deps.clock.now();
    const update: IncidentUpdate = { id: newId('inu'), status, message: text, at: now };
    const resolves = status === 'resolved' && current.status !== 'resolved';
    const next: Incident = {
      ...current,
      status,
      updates: [...current.updates, update],
      updatedAt: now,
      resolvedAt: status === 'resolved' ? (current.resolvedAt ?? now) : null,
    };
    await this.deps.store.transaction(async () => {
      await this.deps.incidents.save(next, update);
      await this.audit.record(source, page.accountId, 'incident.post_update', incidentTarget(next), ['status', 'message']);
      this.changed(page, next, resolves ? 'resolved' : 'updated', update);
    });
    return next;
  }

  private changed(page: StatusPage, incident: Incident, change: IncidentChange, update: IncidentUpdate | null): void {
    this.deps.store.afterCommit(() => {
      for (const listener of this.listeners) listener(page, incident, change, update);
    });
  }

  /** autoIncidents: a confirmed outage (website_down, once committed) opens, a recovery (website_up) resolves. */
  private followCheck(change: StatusChange): void {
    if (change.type !== 'website_down' && change.type !== 'website_up') return;
    const done = change.type === 'website_down' ? this.autoOpen(change.checkId) : this.autoResolve(change.checkId);
    done.catch((err: unknown) => this.deps.onError?.(err));
  }

  private async autoOpen(checkId: string): Promise<void> {
    const pages = await this.deps.pages.autoIncidentPages(checkId);
    if (pages.length === 0) return;
    const check = await this.deps.store.checks.byId(checkId);
    if (!check) return;
    for (const page of pages) {
      if (page.accountId !== check.accountId || (await this.deps.incidents.openAuto(page.id, checkId))) continue;
      await this.open(AUTOMATIC, page, {
        title: `${check.name} is not responding`.slice(0, 200),
        impact: 'major',
        status: 'investigating',
        message: `Vigil's checks find ${check.name} not responding. This incident resolves itself when it responds again.`,
        checkIds: [checkId],
        autoCheckId: checkId,
      });
    }
  }

  private async autoResolve(checkId: string): Promise<void> {
    const pages = await this.deps.pages.autoIncidentPages(checkId);
    for (const page of pages) {
      const open = await this.deps.incidents.openAuto(page.id, checkId);
      if (!open) continue;
      const check = await this.deps.store.checks.byId(checkId);
      await this.append(AUTOMATIC, page, open, 'resolved', `${check?.name ?? 'The check'} is responding again.`);
    }
  }
}

function incidentTarget(incident: Incident) {
  return { kind: 'incident', id: incident.id, name: incident.title };
}

/** Affected checks must be on the page; duplicates dropped, order kept. */
function onPage(page: StatusPage, ids: readonly string[]): string[] {
  const unique = [...new Set(ids)];
  for (const id of unique) {
    if (!page.checkIds.includes(id)) throw errors.badRequest(`checkIds: ${id} is not a check of this status page`);
  }
  return unique;
}
