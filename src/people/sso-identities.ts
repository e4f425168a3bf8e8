import type { Clock } from '../domain/clock.js';
import { errors } from '../domain/errors.js';
import { newId } from '../domain/secrets.js';
import type { IdentityRow } from '../store/identity-store.js';
import type { Store } from '../store/store.js';
import type { Person, SignInClient, SignInPeople } from './sign-in-people.js';
import { SsoRefused } from './sso-refused.js';

/** Who the provider says signs in, its ID token checked (issuer, audience, nonce, signature). */
export interface AssertedIdentity {
  issuer: string;
  subject: string;
  /** The address the provider gave, lower-cased; null when it gave none. */
  email: string | null;
  /** The provider's `email_verified` was the boolean `true` (absent, false or a string is not). */
  emailVerified: boolean;
}

export interface IdentityView {
  id: string;
  issuer: string;
  /** The address the provider gave at the last sign-in (it signs in by issuer and subject, not by this). */
  email: string | null;
  createdAt: string;
  lastUsedAt: string | null;
}

const LINK = 'member.identity_link';
const REMOVE = 'member.identity_remove';
/** The claim a refused sign-in names in the audit log (names only, never the values). */
export type RefusedClaim = 'email_verified' | 'sub' | 'email';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const sameIssuer = (a: string, b: string) => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');
const target = (row: IdentityRow) => ({ kind: 'identity', id: row.id, name: row.issuer });

export function identityView(row: IdentityRow): IdentityView {
  return { id: row.id, issuer: row.issuer, email: row.email, createdAt: iso(row.createdAt)!, lastUsedAt: iso(row.lastUsedAt) };
}

/** An insert that bound nothing, to roll its unit of work back (its audit entry with it). */
class NotBound extends Error {}

/**
 * Members bound to their accounts at OpenID providers (issue 34 item 3). Single sign-on finds a
 * member by the provider's (issuer, subject) alone; the email only links a member who has no
 * identity at that provider yet, and only when the provider vouches for it (or the operator
 * trusts unverified addresses). Links, removals and refusals are in the member's audit log.
 */
export class SsoIdentities {
  constructor(
    private readonly deps: {
      store: Pick<Store, 'identities' | 'users' | 'passkeys'>;
      people: SignInPeople;
      clock: Clock;
      trustUnverifiedEmail: boolean;
      /** The provider single sign-on uses now (auth.oidc.issuer), or null when it is off. */
      issuer: string | null;
      /** Whether members can be emailed a sign-in link (SMTP configured): a way in beside a password. */
      emailLinks: () => boolean;
    },
  ) {}

  /** The member this identity is bound to, its use recorded; null when it is bound to nobody. */
  async boundMember(asserted: AssertedIdentity): Promise<Person | null> {
    const { store, people, clock } = this.deps;
    const row = await store.identities.bySubject(asserted.issuer, asserted.subject);
    if (!row) return null;
    const person = await people.byId(row.userId);
    if (person) await store.identities.recordUse(row.id, asserted.email, clock.now());
    return person;
  }

  /** Whether the address may link a member (the provider vouches for it, or the operator trusts it). */
  emailTrusted(asserted: AssertedIdentity): boolean {
    return asserted.emailVerified || this.deps.trustUnverifiedEmail;
  }

  /**
   * Binds the identity to the member (its email named them, or they asked while signed in).
   * Refused (and audited) when the member is bound to another subject at this provider already:
   * that account, not this one, is theirs.
   */
  async link(person: Person, asserted: AssertedIdentity, client: SignInClient): Promise<void> {
    const { store, people, clock } = this.deps;
    const at = (await store.identities.listForUser(person.id)).find((i) => i.issuer === asserted.issuer);
    if (at) throw await this.refuse(person, client, 'sub', this.otherSubject(person));
    const now = clock.now();
    const row: IdentityRow = { id: newId('idn'), userId: person.id, issuer: asserted.issuer, subject: asserted.subject, email: asserted.email, createdAt: now, lastUsedAt: now };
    const actor = { ...person, ...(client.address ? { address: client.address } : {}) };
    try {
      await people.changed(actor, LINK, target(row), ['issuer', 'subject'], async () => {
        if (!(await store.identities.insert(row))) throw new NotBound();
      });
    } catch (err) {
      if (!(err instanceof NotBound)) throw err;
      // Another sign-in bound first: this one stands only if it bound the same member.
      const winner = await store.identities.bySubject(asserted.issuer, asserted.subject);
      if (winner?.userId !== person.id) throw await this.refuse(person, client, 'sub', this.otherSubject(person));
    }
  }

  /** Refuses to start a link for a member who has an identity at the provider in use already. */
  async assertLinkable(person: Person): Promise<void> {
    const { store, issuer } = this.deps;
    const at = (await store.identities.listForUser(person.id)).some((i) => issuer !== null && sameIssuer(i.issuer, issuer));
    if (at) throw errors.conflict('Your account at this identity provider is linked already; unlink it first to link another');
  }

  /**
   * Binds the identity to a member who signed in here another way and asked to link it: no email
   * rule, since the member, not the address, is proven. An identity bound to someone else stays theirs.
   */
  async linkSignedIn(person: Person, asserted: AssertedIdentity, client: SignInClient): Promise<void> {
    const bound = await this.deps.store.identities.bySubject(asserted.issuer, asserted.subject);
    if (bound?.userId === person.id) return;
    if (bound) throw new SsoRefused('This account at the identity provider is linked to another member');
    await this.link(person, asserted, client);
  }

  /** Records a refused sign-in in the member's audit log, naming the claim; the error to throw. */
  async refuse(person: Person, client: SignInClient, claim: RefusedClaim, message: string): Promise<SsoRefused> {
    await this.deps.people.signInFailed(person, 'oidc', client, [claim]);
    return new SsoRefused(message);
  }

  async list(person: Person): Promise<IdentityView[]> {
    return (await this.deps.store.identities.listForUser(person.id)).map(identityView);
  }

  /**
   * Unbinds one of the member's identities: single sign-on no longer finds them by it (the
   * provider's verified email may link them again). Refused while it is their only way in: an
   * identity at the provider in use, and no password, passkey or email link beside it.
   */
  async remove(person: Person, id: string): Promise<void> {
    const { store, people, issuer } = this.deps;
    const row = (await store.identities.listForUser(person.id)).find((i) => i.id === id);
    if (!row) throw errors.notFound(`No identity ${id}`);
    if (issuer !== null && sameIssuer(row.issuer, issuer) && !(await this.otherWayIn(person))) {
      throw errors.conflict('This is your only way to sign in: set a password or add a passkey before removing it');
    }
    await people.changed(person, REMOVE, target(row), ['issuer', 'subject'], async () => {
      if (!(await store.identities.delete(id, person.id))) throw errors.notFound(`No identity ${id}`);
    });
  }

  private async otherWayIn(person: Person): Promise<boolean> {
    const { store, emailLinks } = this.deps;
    if (emailLinks()) return true;
    const user = await store.users.byId(person.id);
    if (user?.passwordHash) return true;
    return (await store.passkeys.listForUser(person.id)).length > 0;
  }

  private otherSubject(person: Person): string {
    return `${person.email} signs in with another account at this identity provider; use that one, or remove it on the Security page first`;
  }
}
