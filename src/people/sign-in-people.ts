import type { Store } from '../store/store.js';
import { errors } from '../domain/errors.js';
import type { User } from '../domain/people.js';
import type { AuditLog } from '../core/audit-log.js';
import type { Principal } from '../core/principal.js';
import type { MembersService } from './members-service.js';
import type { OpenedSession, SessionsService, SignInClient } from './sessions-service.js';

/** A member as the sign-in ways beside the password see them (passkeys, single sign-on, email link). */
export interface Person {
  id: string;
  accountId: string;
  email: string;
  name: string | null;
  /** The client's address, when the person is the one making the request (the audit log's). */
  address?: string;
}

export type { SignInClient };

/**
 * The members model as passkeys, single sign-on and email links use it: find a person, create
 * one (single sign-on may), and end a sign-in with "create a session for this person".
 */
export interface SignInPeople {
  /** The person a principal is (a member's session), or null for any other credential. */
  of(principal: Principal): Promise<Person | null>;
  byId(id: string): Promise<Person | null>;
  byEmail(email: string): Promise<Person | null>;
  /** A new member of the account with this role (single sign-on's first sign-in). */
  create(accountId: string, email: string, name: string | null, role: string): Promise<Person>;
  /** Opens a session for the person; `method` names the way they signed in (`passkey`, `oidc`, `email_link`). */
  openSession(person: Person, method: string, client: SignInClient): Promise<OpenedSession>;
  /**
   * A sign-in the person's own credential failed (a known passkey that did not verify), for the
   * audit log; `fields` names what was refused where that tells more (single sign-on's claims).
   */
  signInFailed(person: Person, method: string, client: SignInClient, fields?: readonly string[]): Promise<void>;
  /** Runs `change` (store writes) and records it as the person's `action`, in one unit of work. */
  changed(person: Person, action: string, target: { kind: string; id: string; name: string }, fields: readonly string[], change: () => Promise<void>): Promise<void>;
}

const personOf = (u: User): Person => ({ id: u.id, accountId: u.accountId, email: u.email, name: u.name });
const memberActor = (p: Person) => ({ kind: 'user' as const, id: p.id, name: p.name ?? p.email });

/**
 * The members model (issue 28 item 1) as passkeys, single sign-on and email links see it: a
 * sign-in ends in the member's session and a `session.sign_in` audit entry naming the way, in one
 * unit of work; single sign-on creates members through MembersService (audited as `member.create`).
 */
export class MemberPeople implements SignInPeople {
  constructor(
    private readonly deps: { store: Store; sessions: SessionsService; members: MembersService; audit: AuditLog },
  ) {}

  async of(principal: Principal): Promise<Person | null> {
    if (!principal.user) return null;
    const user = await this.deps.store.users.byId(principal.user.id);
    return user ? { ...personOf(user), ...(principal.address ? { address: principal.address } : {}) } : null;
  }

  async byId(id: string): Promise<Person | null> {
    const user = await this.deps.store.users.byId(id);
    return user ? personOf(user) : null;
  }

  async byEmail(email: string): Promise<Person | null> {
    const user = await this.deps.store.users.byEmail(email.trim().toLowerCase());
    return user ? personOf(user) : null;
  }

  async create(accountId: string, email: string, name: string | null, role: string): Promise<Person> {
    const actor = { kind: 'system' as const, id: 'oidc', name: 'single sign-on' };
    const created = await this.deps.members.createUser({ account: accountId, email, role, ...(name ? { name } : {}) }, actor);
    return { id: created.id, accountId: created.accountId, email: created.email, name: created.name };
  }

  async openSession(person: Person, method: string, client: SignInClient): Promise<OpenedSession> {
    const user = await this.deps.store.users.byId(person.id);
    if (!user) throw errors.unauthorized('This member was removed; ask an owner or admin', 'Bearer realm="vigil"');
    return this.deps.sessions.openForUser(user, method, client);
  }

  async signInFailed(person: Person, method: string, client: SignInClient, fields: readonly string[] = []): Promise<void> {
    const source = { actor: memberActor(person), address: client.address ?? undefined };
    await this.deps.audit.record(source, person.accountId, 'session.sign_in_failed', { kind: 'session', id: null, name: method }, fields);
  }

  async changed(person: Person, action: string, target: { kind: string; id: string; name: string }, fields: readonly string[], change: () => Promise<void>): Promise<void> {
    await this.deps.store.transaction(async () => {
      await change();
      await this.deps.audit.record({ actor: memberActor(person), address: person.address }, person.accountId, action, target, fields);
    });
  }
}
