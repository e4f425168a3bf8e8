import type { Clock } from '../domain/clock.js';
import { errors } from '../domain/errors.js';
import { auditEntry, type AuditTarget, type ChangeSource } from '../domain/people.js';
import type { AuditEntry, AuditQuery } from '../store/people-store.js';
import type { Store } from '../store/store.js';
import { requireRole, requireUnrestricted, type Principal } from './principal.js';

export { actorOf, type AuditTarget } from '../domain/people.js';

/** Who acts: a credential (its principal), or the CLI or Vigil itself (an actor). */
export type AuditSource = ChangeSource;

/**
 * The audit log (issue 28 item 4): the services that change an account's data call `record`
 * inside the unit of work of the change, so the entry commits with it or not at all. Entries
 * name fields, never their values.
 */
export class AuditLog {
  constructor(
    private readonly store: Pick<Store, 'audit'>,
    private readonly clock: Clock,
  ) {}

  record(source: AuditSource, accountId: string, action: string, target: AuditTarget, fields: readonly string[] = []): Promise<void> {
    return this.store.audit.append(auditEntry(source, accountId, action, target, fields, this.clock.now()));
  }

  /** Owners and admins, or an unrestricted key with alerts:read (issue 28). */
  async list(principal: Principal, query: Omit<AuditQuery, 'accountId'>, page: { limit: number; beforeSeq: number | null }): Promise<AuditEntry[]> {
    if (principal.user) requireRole(principal, 'admin', 'read the audit log');
    else {
      requireUnrestricted(principal);
      if (!principal.scopes.includes('alerts:read')) throw errors.forbidden('Reading the audit log needs the alerts:read scope');
    }
    return this.store.audit.list({ ...query, accountId: principal.account.id }, page);
  }

  /** Drops entries older than `keepDays` (the audit-prune job). */
  async prune(keepDays: number): Promise<number> {
    return this.store.audit.deleteOlderThan(this.clock.now() - keepDays * 24 * 60 * 60 * 1000);
  }
}
