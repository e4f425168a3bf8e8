import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SsoIdentities, type AssertedIdentity } from '../../src/people/sso-identities.js';
import { SsoRefused } from '../../src/people/sso-refused.js';
import type { Person, SignInPeople } from '../../src/people/sign-in-people.js';
import type { IdentityRepo, IdentityRow } from '../../src/store/identity-store.js';
import type { Store } from '../../src/store/store.js';

const ISSUER = 'https://idp.example.com';
const ada: Person = { id: 'usr_ada', accountId: 'acc_1', email: 'ada@example.com', name: null };
const asserted = (over: Partial<AssertedIdentity> = {}): AssertedIdentity => ({ issuer: ISSUER, subject: 'sub-ada', email: ada.email, emailVerified: true, ...over });

/** SsoIdentities over a scripted identity repo: what the store answers is set by each test. */
function world(repo: Partial<IdentityRepo>, opts: { trust?: boolean; password?: boolean; passkeys?: number; emailLinks?: boolean } = {}) {
  const failed: Array<{ person: string; fields: readonly string[] }> = [];
  const changes: string[] = [];
  const people = {
    byId: async (id: string) => (id === ada.id ? ada : null),
    signInFailed: async (person: Person, _method: string, _client: unknown, fields: readonly string[] = []) => void failed.push({ person: person.id, fields }),
    changed: async (_p: Person, action: string, _t: unknown, _f: readonly string[], change: () => Promise<void>) => {
      await change();
      changes.push(action);
    },
  } as unknown as SignInPeople;
  const store = {
    identities: { listForUser: () => [], bySubject: () => null, insert: () => true, recordUse: () => undefined, delete: () => true, ...repo },
    users: { byId: () => ({ passwordHash: opts.password ? 'scrypt$…' : null }) },
    passkeys: { listForUser: () => Array.from({ length: opts.passkeys ?? 0 }) },
  } as unknown as Pick<Store, 'identities' | 'users' | 'passkeys'>;
  const identities = new SsoIdentities({ store, people, clock: { now: () => 1_000 } as never, trustUnverifiedEmail: opts.trust ?? false, issuer: `${ISSUER}/`, emailLinks: () => opts.emailLinks ?? false });
  return { identities, failed, changes };
}

const row = (userId: string, over: Partial<IdentityRow> = {}): IdentityRow => ({ id: 'idn_1', userId, issuer: ISSUER, subject: 'sub-ada', email: null, createdAt: 1, lastUsedAt: null, ...over });

test('only the boolean true vouches for an address, unless the operator trusts unverified ones', () => {
  const strict = world({}).identities;
  assert.equal(strict.emailTrusted(asserted()), true);
  assert.equal(strict.emailTrusted(asserted({ emailVerified: false })), false);
  assert.equal(world({}, { trust: true }).identities.emailTrusted(asserted({ emailVerified: false })), true);
});

test('a link lost to a racing sign-in of the same subject stands; one lost to another member is refused with "sub"', async () => {
  const same = world({ insert: () => false, bySubject: () => row(ada.id) });
  await same.identities.link(ada, asserted(), { address: '127.0.0.1' } as never);
  assert.deepEqual(same.failed, []);

  const other = world({ insert: () => false, bySubject: () => row('usr_mallory') });
  await assert.rejects(other.identities.link(ada, asserted(), { address: null } as never), SsoRefused);
  assert.deepEqual(other.failed, [{ person: ada.id, fields: ['sub'] }]);
  assert.deepEqual(other.changes, [], 'the lost link recorded nothing');
});

test('a member bound at the provider already is not linked to a second subject', async () => {
  const w = world({ listForUser: () => [row(ada.id, { subject: 'sub-first' })], insert: () => assert.fail('nothing is inserted') });
  await assert.rejects(w.identities.link(ada, asserted({ subject: 'sub-second' }), { address: null } as never), /signs in with another account at this identity provider/);
  assert.deepEqual(w.failed, [{ person: ada.id, fields: ['sub'] }]);
});

test('the last identity is removed only when another way in is left', async () => {
  const only = [row(ada.id)];
  await assert.rejects(world({ listForUser: () => only }).identities.remove(ada, 'idn_1'), /only way to sign in/);
  for (const way of [{ password: true }, { passkeys: 1 }, { emailLinks: true }]) {
    const w = world({ listForUser: () => only }, way);
    await w.identities.remove(ada, 'idn_1');
    assert.deepEqual(w.changes, ['member.identity_remove'], JSON.stringify(way));
  }
  const old = world({ listForUser: () => [row(ada.id), row(ada.id, { id: 'idn_2', issuer: 'https://old-idp.example.com' })] });
  await old.identities.remove(ada, 'idn_2');
  assert.deepEqual(old.changes, ['member.identity_remove'], 'an identity at a provider no longer used signs nobody in');
  await assert.rejects(world({ listForUser: () => only }).identities.remove(ada, 'idn_other'), /No identity idn_other/);
});
