import type { Clock } from '../domain/clock.js';
import { errors } from '../domain/errors.js';
import type { Actor } from '../domain/people.js';
import type { AuditEntry, AuditQuery } from '../store/people-store.js';
import type { Answer, Store } from '../store/store.js';
import { requireRole, requireUnrestricted, type Principal } from './principal.js';

/** What a change is about: its kind (`check`, `webhook`, `member`, …), id and a readable name. */
export interface AuditTarget {
  kind: string;
  id: string | null;
  name?: string | null;
}

/** Who acts: a credential (its principal), or the CLI or Vigil itself (an actor). */
export type AuditSource = Principal | { actor: Actor; address?: string };

/** The audit log's actor for a principal: the member, the key, the agent's token, or what the caller named. */
export function actorOf(source: AuditSource): Actor {
  if (source.actor) return source.actor;
  const p = source as Principal;
  if (p.user) return { kind: 'user', id: p.user.id, name: p.user.name ?? p.user.email };
  if (p.kind === 'api_key') return { kind: 'key', id: p.credentialId, name: p.key?.name ?? p.credentialId };
  if (p.kind === 'bearer') return { kind: 'agent', id: p.credentialId, name: 'agent' };
  return { kind: 'user', id: p.credentialId, name: 'login link' };
}

/**
 * The audit log (issue 28 item 4): the services that change an account's data call `record`
 * inside the unit of work of the change, so the entry commits with it or not at all. Entries
 * name fields, never their values.
 */
export class AuditLog {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  record(source: AuditSource, accountId: string, action: string, target: AuditTarget, fields: readonly string[] = []): Answer<void> {
    return this.store.audit.append({
      accountId,
      at: this.clock.now(),
      actor: actorOf(source),
      action,
      target: { kind: target.kind, id: target.id, name: target.name ?? null },
      fields: [...fields],
      address: source.address ?? null,
    });
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
