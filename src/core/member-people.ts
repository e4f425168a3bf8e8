import type { Store } from '../store/store.js';
import { errors } from '../domain/errors.js';
import type { User } from '../domain/people.js';
import type { AuditLog } from './audit-log.js';
import type { MembersService } from './members-service.js';
import type { Principal } from './principal.js';
import type { OpenedSession, SessionsService, SignInClient } from './sessions-service.js';
import type { Person, SignInPeople } from './sign-in-people.js';

const personOf = (u: User): Person => ({ id: u.id, accountId: u.accountId, email: u.email, name: u.name });

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
    return user ? personOf(user) : null;
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
    const { store, sessions, audit } = this.deps;
    const user = await store.users.byId(person.id);
    if (!user) throw errors.unauthorized('This member was removed; ask an owner or admin', 'Bearer realm="vigil"');
    return store.transaction(async () => {
      const opened = await sessions.openForUser(user, method, client);
      const source = { actor: { kind: 'user' as const, id: user.id, name: user.name ?? user.email }, address: client.address ?? undefined };
      await audit.record(source, user.accountId, 'session.sign_in', { kind: 'session', id: opened.principal.credentialId, name: method });
      return opened;
    });
  }
}
