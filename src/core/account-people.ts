import type { Store } from '../store/store.js';
import { errors } from '../domain/errors.js';
import type { Account } from '../domain/records.js';
import type { Principal } from './principal.js';
import type { SessionsService } from './sessions-service.js';
import type { Person, SignInPeople } from './sign-in-people.js';

const personOf = (a: Account): Person => ({ id: a.id, accountId: a.id, email: a.email, name: null });

/**
 * Sign-in people before members exist: each account is its one person, and a session for it is
 * the one a login link opens. Replaced by the members model (issue 28 item 1).
 */
export class AccountPeople implements SignInPeople {
  constructor(private readonly store: Store, private readonly sessions: SessionsService) {}

  async of(principal: Principal): Promise<Person | null> {
    return principal.kind === 'session' && principal.key === null ? personOf(principal.account) : null;
  }

  async byId(id: string): Promise<Person | null> {
    const account = await this.store.accounts.byId(id);
    return account ? personOf(account) : null;
  }

  async byEmail(email: string): Promise<Person | null> {
    const account = await this.store.accounts.byEmail(email);
    return account ? personOf(account) : null;
  }

  async create(): Promise<Person> {
    throw errors.forbidden('Accounts have no members yet');
  }

  async openSession(person: Person) {
    const link = this.sessions.createLoginLink(person.accountId);
    return this.sessions.signInWithLoginLink(new URL(link.url).hash.replace(/^#login=/, ''));
  }
}
