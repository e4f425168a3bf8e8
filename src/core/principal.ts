import type { Account, KeyAccess, Scope } from '../domain/records.js';
import { SCOPES } from '../domain/records.js';
import { errors } from '../domain/errors.js';
import { roleAtLeast, type Actor, type Role, type UserRef } from '../domain/people.js';

/**
 * Who is calling: an API key today, an OAuth bearer token later. Everything past authentication
 * (scopes, restrictions, rate limits, idempotency) speaks only to this.
 */
export interface Principal {
  /** 'session': a dashboard session opened by a login link (one opened with a key is that key's principal). */
  kind: 'api_key' | 'bearer' | 'session';
  /** The credential's id: the per-key rate-limit bucket. */
  credentialId: string;
  account: Account;
  scopes: readonly Scope[];
  /** Restriction to checks or folders; null when unrestricted. */
  access: KeyAccess | null;
  /** The API key's own limits for the account response; null for bearer sessions. */
  key: { expiresAt: number | null; access: KeyAccess | null; name?: string | null } | null;
  /** The person of a session opened by a member (issue 28): their role gives the scopes. */
  user?: UserRef | null;
  /** Who the audit log names when it is not the credential itself (the CLI; an agent by its signup's name). */
  actor?: Actor;
  /** When the dashboard session of the request's cookie ends (what GET /sessions/current answers). */
  sessionExpiresAt?: number;
  /** The client's address, on requests that may change something (the audit log's). */
  address?: string;
}

export function requireScope(principal: Principal, scope: Scope): void {
  if (principal.scopes.includes(scope)) return;
  if (principal.user) throw errors.forbidden(`The ${principal.user.role} role cannot do this (it needs ${scope})`);
  throw errors.forbidden(`This credential lacks the ${scope} scope`);
}

/**
 * Managing members and reading the audit log: a member with at least `role`, or a key that
 * could do everything (every scope, unrestricted), which counts as an admin.
 */
export function requireRole(principal: Principal, role: Role, what: string): Role {
  if (principal.user) {
    if (!roleAtLeast(principal.user.role, role)) throw errors.forbidden(`The ${principal.user.role} role cannot ${what}; it needs ${role} or above`);
    return principal.user.role;
  }
  if (principal.access || SCOPES.some((s) => !principal.scopes.includes(s))) {
    throw errors.forbidden(`${what[0]!.toUpperCase()}${what.slice(1)} needs an owner's or admin's session, or a key with every scope`);
  }
  return 'admin';
}

export function requireUnrestricted(principal: Principal): void {
  if (principal.access) throw errors.forbidden('This endpoint needs an unrestricted key; this key is restricted to some checks or folders');
}

/**
 * Managing API keys: only a credential that could do everything itself (every scope, no
 * restriction), so no key can mint or revoke one more powerful than itself, and a leaked
 * narrower key cannot leave keys behind that outlive its revocation.
 */
export function requireFullAccess(principal: Principal): void {
  if (principal.user && !roleAtLeast(principal.user.role, 'admin')) {
    throw errors.forbidden(`The ${principal.user.role} role cannot manage API keys; it needs admin or owner`);
  }
  requireUnrestricted(principal);
  const missing = SCOPES.filter((s) => !principal.scopes.includes(s));
  if (missing.length > 0) throw errors.forbidden(`Managing API keys needs a credential with every scope; this one lacks ${missing.join(', ')}`);
}

/** True when a restricted principal may touch the check (always true when unrestricted). */
export function accessAllows(access: KeyAccess | null, check: { id: string; folder: string | null }): boolean {
  if (!access) return true;
  return access.checkIds.includes(check.id) || (check.folder !== null && access.folders.includes(check.folder));
}

/** Turns a bearer token into a principal (the OAuth layer plugs one in), or null if unknown. */
export interface BearerResolver {
  resolve(token: string, now: number): Promise<Principal | null>;
}
