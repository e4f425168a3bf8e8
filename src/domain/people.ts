import type { Scope } from './records.js';

/** A member's role in an account (issue 28), strongest first. */
export type Role = 'owner' | 'admin' | 'editor' | 'viewer';
export const ROLES: readonly Role[] = ['owner', 'admin', 'editor', 'viewer'];

const RANK: Record<Role, number> = { owner: 4, admin: 3, editor: 2, viewer: 1 };

/** True when `a` may do at least what `b` may. */
export function roleAtLeast(a: Role, b: Role): boolean {
  return RANK[a] >= RANK[b];
}

/**
 * What a role may do, as the API's scopes, so every route's scope check authorises people too:
 * viewers read, editors also change checks, folders, tags, maintenance and status pages (and read
 * alert settings), admins and owners do everything. What only owners or admins may do beyond
 * the scopes (members, API keys, the audit log) is checked by role where it is done.
 */
export function scopesOfRole(role: Role): readonly Scope[] {
  switch (role) {
    case 'owner':
    case 'admin':
      return ['checks:read', 'checks:write', 'checks:delete', 'alerts:read', 'alerts:write'];
    case 'editor':
      return ['checks:read', 'checks:write', 'checks:delete', 'alerts:read'];
    case 'viewer':
      return ['checks:read', 'alerts:read'];
  }
}

/** A person with a role in one account; the email is unique across the server (it signs in). */
export interface User {
  id: string;
  accountId: string;
  email: string;
  name: string | null;
  role: Role;
  /** scrypt$N$r$p$salt$hash (core/passwords.ts); null until the person sets one. */
  passwordHash: string | null;
  /** Base32 TOTP secret: pending until totpEnabledAt is set by a confirmed code. */
  totpSecret: string | null;
  totpEnabledAt: number | null;
  /** The last TOTP time step accepted: a code is good once. */
  totpLastStep: number | null;
  createdAt: number;
  updatedAt: number;
}

/** Who a session belongs to, as every request with it sees them. */
export interface UserRef {
  id: string;
  email: string;
  name: string | null;
  role: Role;
}

/** Who did something, as the audit log names them. */
export interface Actor {
  kind: 'user' | 'key' | 'agent' | 'cli' | 'system';
  id: string;
  name: string;
}

export const SYSTEM_ACTOR: Actor = { kind: 'system', id: 'system', name: 'Vigil' };

/** A new member without a password or second factor yet. */
export function newUser(id: string, accountId: string, email: string, role: Role, name: string | null, now: number): User {
  return { id, accountId, email, name, role, passwordHash: null, totpSecret: null, totpEnabledAt: null, totpLastStep: null, createdAt: now, updatedAt: now };
}

/**
 * Whoever makes a change, as the audit log needs them: a credential's principal (its member, key
 * or agent token) or a named actor (the CLI, Vigil itself, a person not yet signed in). Any
 * principal fits this shape.
 */
export interface ChangeSource {
  actor?: Actor;
  user?: UserRef | null;
  kind?: string;
  credentialId?: string;
  key?: { name?: string | null } | null;
  /** The client's address, when the change came over HTTP. */
  address?: string;
}

export function actorOf(source: ChangeSource): Actor {
  if (source.actor) return source.actor;
  if (source.user) return { kind: 'user', id: source.user.id, name: source.user.name ?? source.user.email };
  const id = source.credentialId ?? 'unknown';
  if (source.kind === 'api_key') return { kind: 'key', id, name: source.key?.name ?? id };
  if (source.kind === 'bearer') return { kind: 'agent', id, name: 'agent' };
  return { kind: 'user', id, name: 'login link' };
}

/** What a change is about: its kind (`check`, `webhook`, `member`, …), id and a readable name. */
export interface AuditTarget {
  kind: string;
  id: string | null;
  name?: string | null;
}

/** One audit entry of a change (the audit log's row without its sequence number). */
export function auditEntry(source: ChangeSource, accountId: string, action: string, target: AuditTarget, fields: readonly string[], at: number) {
  return {
    accountId, at, actor: actorOf(source), action,
    target: { kind: target.kind, id: target.id, name: target.name ?? null },
    fields: [...fields],
    address: source.address ?? null,
  };
}
