import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_SETTINGS } from '../../src/core/check-settings.js';
import type { Account, ApiKey, Check } from '../../src/domain/records.js';
import type { Store } from '../../src/store/store.js';
import { newUser, type Actor } from '../../src/domain/people.js';
import type { ObservationWrite, WriteRecord } from '../../src/store/writes.js';
import type { AuthChallengeRow, PasskeyRow } from '../../src/store/passkey-store.js';
import type { IdentityRow } from '../../src/store/identity-store.js';
import { StaleOwner } from '../../src/store/cluster-repo.js';
import { Rollup } from '../../src/domain/rollup.js';

/** A rollup's row with its histograms as plain arrays (comparable whatever bytes type holds them). */
const rowOf = (r: Rollup) => Object.fromEntries(Object.entries(r.toRow()).map(([k, v]) => [k, v instanceof Uint8Array ? [...v] : v]));

/**
 * The Store contract (src/store/store.ts, docs/architecture.md#transactions), one set of tests
 * for every store: a test file runs it with its store's factory (SQLite now, PostgreSQL next).
 * Every repository call is awaited, so a store may answer with values or with promises. Nothing
 * here knows the store's storage: no SQL, no handle; what a test needs of a store it cannot ask
 * through the contract (a commit that fails), the factory provides.
 */
export interface StoreFactory {
  name: string;
  /** A fresh, empty store. */
  open(options: StoreFactoryOptions): Promise<Store>;
  /** Ends the store and removes what it kept. */
  close(store: Store): Promise<void>;
  /**
   * Makes the next commit of this store fail (the next outermost unit of work's, or the next
   * batch's), as a full disk would: everything the unit wrote is rolled back.
   */
  failNextCommit(store: Store): void;
}

export interface StoreFactoryOptions {
  /** An effect that threw after its unit committed. */
  effectFailed?: (err: unknown) => void;
}

const T = Date.UTC(2026, 6, 1, 9);
let n = 0;
const id = (prefix: string) => `${prefix}_${(++n).toString(36).padStart(8, '0')}`;
const hash = (text: string) => Buffer.from(text.padEnd(32, '.'));

function account(): Account {
  return { id: id('acc'), email: `${id('user')}@example.com`, tier: 'pro', maxChecksOverride: null, claimed: true, createdAt: T };
}

function apiKey(accountId: string): ApiKey {
  return { id: id('key'), accountId, name: 'contract', scopes: ['checks:read'], access: null, expiresAt: null, disabled: false, revokedAt: null, createdAt: T };
}

function check(accountId: string, url: string): Omit<Check, 'seq'> {
  return {
    ...DEFAULT_SETTINGS, name: url, url, type: 'website',
    id: id('chk'), accountId, disabled: false, disabledReason: null, maintenance: false, maintenanceUntil: null, windowMaintenance: false, heartbeatToken: null,
    status: 'pending', consecutiveFailures: 0, degraded: false, lastChecked: null, lastResponseTime: null, lastStatusCode: null,
    lastError: null, lastStatusChange: null, probesTotal: 0, probesUp: 0, ssl: null, domain: null, regions: null,
    errorAlerted: false, sslAlerts: null, createdAt: T, updatedAt: T,
  };
}

function result(c: Check, at: number, up: boolean): WriteRecord {
  return {
    kind: 'observation', checkId: c.id, checkSeq: c.seq, at,
    result: { checkSeq: c.seq, at, kind: 'probe', status: up ? 'up' : 'down', statusCode: up ? 200 : 500, responseTime: 100, timing: null, error: up ? null : 'HTTP 500', region: 'local', snippet: null, meta: null },
    event: null, sample: { ok: up, responseTime: 100, timing: null }, sampleAt: at,
    runtime: null, statusChange: null, verifyStatus: null, endMaintenance: null, domain: null, domainMemory: null,
  };
}

async function seeded(store: Store): Promise<{ acc: Account; c: Check }> {
  const acc = account();
  await store.accounts.insert(acc);
  const draft = check(acc.id, `https://${id('site')}.example.com/`);
  const seq = await store.checks.insert(draft, draft.url, null);
  return { acc, c: { ...draft, seq } };
}

/** A member of a fresh account, for rows kept per member (passkeys). */
async function member(store: Store): Promise<string> {
  const { acc } = await seeded(store);
  const user = newUser(id('usr'), acc.id, `${id('member')}@example.com`, 'editor', null, T);
  await store.users.insert(user);
  return user.id;
}

export function storeContract(factory: StoreFactory): void {
  const reported: unknown[] = [];
  const withStore = (name: string, body: (store: Store) => Promise<void>, options: StoreFactoryOptions = {}) =>
    test(name, async () => {
      const store = await factory.open(options);
      try {
        await body(store);
      } finally {
        await factory.close(store);
      }
    });

  describe(`the Store contract: ${factory.name}`, () => {
    withStore('accounts: insert, by id and email, count, claim, delete', async (store) => {
      const a = { ...account(), claimed: false };
      await store.accounts.insert(a);
      assert.deepEqual(await store.accounts.byId(a.id), a);
      assert.deepEqual(await store.accounts.byEmail(a.email), a);
      assert.equal(await store.accounts.count(), 1);
      assert.deepEqual((await store.accounts.unclaimedCreatedBefore(T)).map((x) => x.id), [a.id]);
      await store.accounts.setClaimed(a.id);
      assert.equal((await store.accounts.byId(a.id))!.claimed, true);
      await store.accounts.delete(a.id);
      assert.equal(await store.accounts.byId(a.id), null);
    });

    withStore('keys: insert, by hash, list, disable, revoke; credentials version moves', async (store) => {
      const a = account();
      await store.accounts.insert(a);
      const k = apiKey(a.id);
      const before = store.credentialsVersion();
      await store.keys.insert(k, hash(k.id));
      assert.notEqual(store.credentialsVersion(), before);
      assert.deepEqual(await store.keys.byHash(hash(k.id)), k);
      assert.equal(await store.keys.countLive(a.id), 1);
      await store.keys.setDisabled(k.id, true);
      assert.equal((await store.keys.byId(k.id))!.disabled, true);
      await store.keys.revoke(k.id, T + 1);
      assert.equal(await store.keys.countLive(a.id), 0);
      assert.deepEqual((await store.keys.list(a.id)).map((x) => x.id), [k.id]);
    });

    withStore('checks: insert, read, list and count by status, url keys, settings, pause, delete', async (store) => {
      const { acc, c } = await seeded(store);
      assert.equal((await store.checks.byId(c.id))!.url, c.url);
      const q = { accountId: acc.id, access: null };
      assert.deepEqual((await store.checks.list(q, { limit: 10, offset: 0, afterSeq: null })).map((x) => x.id), [c.id]);
      assert.equal(await store.checks.count(q), 1);
      assert.equal(await store.checks.countForAccount(acc.id), 1);
      assert.equal(await store.checks.urlTaken(acc.id, c.url, null), true);
      assert.equal(await store.checks.urlTaken(acc.id, c.url, c.id), false);
      const version = store.checks.version();
      await store.checks.updateSettings(c.id, { ...c, name: 'renamed' }, c.url, T + 1);
      assert.notEqual(store.checks.version(), version, 'the version moves on every write');
      assert.equal((await store.checks.byId(c.id))!.name, 'renamed');
      await store.checks.setDisabled(c.id, true, 'contract', T + 2);
      assert.equal(await store.checks.count({ ...q, status: 'paused' }), 1);
      const enabled: string[] = [];
      await store.checks.forEachEnabled((x) => void enabled.push(x.id));
      assert.deepEqual(enabled, []);
      await store.checks.delete(c.id);
      assert.equal(await store.checks.byId(c.id), null);
    });

    withStore('checks: tags stored as given; the list filter needs every tag, case-insensitively, a key matching any value', async (store) => {
      const { acc, c } = await seeded(store);
      const second = { ...check(acc.id, `https://${id('site')}.example.com/`), tags: ['Env:Production', 'team:web'] };
      await store.checks.insert(second, second.url, null);
      const third = { ...check(acc.id, `https://${id('site')}.example.com/`), tags: ['env:staging', 'environment'] };
      await store.checks.insert(third, third.url, null);
      assert.deepEqual((await store.checks.byId(second.id))!.tags, ['Env:Production', 'team:web']);
      await store.checks.updateSettings(third.id, { ...third, dependsOn: [second.id, c.id] }, third.url, T + 1);
      assert.deepEqual((await store.checks.byId(third.id))!.dependsOn, [second.id, c.id], 'dependencies are stored in order');
      const q = { accountId: acc.id, access: null };
      const ids = async (tags: string[]) => (await store.checks.list({ ...q, tags }, { limit: -1, offset: 0, afterSeq: null })).map((x) => x.id);
      assert.deepEqual(await ids(['env:production']), [second.id]);
      assert.deepEqual(await ids(['ENV']), [second.id, third.id]);
      assert.deepEqual(await ids(['env', 'team:WEB']), [second.id]);
      assert.deepEqual(await ids(['env:production', 'team:db']), []);
      assert.deepEqual(await ids([]), [c.id, second.id, third.id]);
      assert.equal(await store.checks.count({ ...q, tags: ['env'] }), 2);
      await store.checks.updateSettings(second.id, { ...second, tags: [] }, second.url, T + 1);
      assert.deepEqual(await ids(['env']), [third.id], 'a settings write moves the check out of a tag list');
    });

    withStore('maintenance windows: insert, read, list, update, delete; a check\'s window flag', async (store) => {
      const { acc, c } = await seeded(store);
      const w = {
        id: id('mtw'), accountId: acc.id, title: 'Upgrade', description: null, checkIds: [c.id], folders: ['db'], tags: ['env:Prod'], allChecks: false,
        startsAt: T, endsAt: T + 3_600_000, schedule: null, durationMinutes: null, timezone: null, createdAt: T, updatedAt: T,
      };
      const recurring = { ...w, id: id('mtw'), title: 'Weekly', startsAt: null, endsAt: null, schedule: '0 2 * * 0', durationMinutes: 60, timezone: 'Europe/Berlin', allChecks: true, createdAt: T + 1 };
      await store.maintenanceWindows.insert(w);
      await store.maintenanceWindows.insert(recurring);
      assert.deepEqual(await store.maintenanceWindows.byId(w.id), w);
      assert.deepEqual((await store.maintenanceWindows.listForAccount(acc.id)).map((x) => x.id), [w.id, recurring.id]);
      assert.deepEqual((await store.maintenanceWindows.all()).map((x) => x.id), [w.id, recurring.id]);
      await store.maintenanceWindows.update({ ...w, title: 'Renamed', endsAt: null, updatedAt: T + 2 });
      assert.deepEqual(await store.maintenanceWindows.byId(w.id), { ...w, title: 'Renamed', endsAt: null, updatedAt: T + 2 });
      await store.maintenanceWindows.delete(w.id);
      assert.equal(await store.maintenanceWindows.byId(w.id), null);

      assert.equal((await store.checks.byId(c.id))!.windowMaintenance, false);
      await store.checks.setWindowMaintenance(c.id, true, T + 3);
      assert.equal((await store.checks.byId(c.id))!.windowMaintenance, true);
      assert.deepEqual(await store.checks.inWindowMaintenance(), [c.id]);
      await store.checks.setWindowMaintenance(c.id, false, T + 4);
      assert.deepEqual(await store.checks.inWindowMaintenance(), []);
    });

    withStore('history and the state-change log', async (store) => {
      const { c } = await seeded(store);
      await store.history.insertEvent({ checkSeq: c.seq, at: T, status: 'paused', region: null, meta: { reason: 'contract' } });
      await store.stateChanges.append(c.seq, T, 'paused');
      await store.stateChanges.append(c.seq, T + 10, 'up');
      assert.deepEqual(await store.stateChanges.between(c.seq, T + 5, T + 20), [{ at: T, status: 'paused' }, { at: T + 10, status: 'up' }]);
      assert.equal((await store.history.forCheck(c.seq, 10)).length, 1);
      await store.history.deleteForCheck(c.seq);
      await store.stateChanges.deleteForCheck(c.seq);
      assert.deepEqual(await store.history.forCheck(c.seq, 10), []);
      assert.deepEqual(await store.stateChanges.between(c.seq, T, T + 20), []);
    });

    withStore('idempotency records, nodes and their cursors, sessions and login links', async (store) => {
      const acc = account();
      await store.accounts.insert(acc);
      const record = { accountId: acc.id, key: 'k1', method: 'POST', path: '/x', bodyHash: 'h', status: 201, response: '{}', createdAt: T };
      await store.idempotency.put(record);
      assert.deepEqual(await store.idempotency.get(acc.id, 'k1'), record);
      assert.equal(await store.idempotency.deleteOlderThan(T + 1), 1);

      const node = { id: id('nod'), name: 'edge', region: 'eu-1', createdAt: T, revokedAt: null };
      await store.nodes.insert(node, hash(node.id));
      assert.deepEqual(await store.nodes.byTokenHash(hash(node.id)), node);
      await store.nodes.setCursor(node.id, { epoch: 'e1', seq: 7 });
      assert.deepEqual(await store.nodes.cursor(node.id), { epoch: 'e1', seq: 7 });
      assert.deepEqual(await store.nodes.regions(), [{ region: 'eu-1', nodes: 1 }]);

      const session = { id: id('ses'), accountId: acc.id, keyId: null, userId: null, method: 'login_link', address: '127.0.0.1', userAgent: 'test', createdAt: T, expiresAt: T + 1000 };
      await store.sessions.insert(session, hash(session.id));
      assert.deepEqual(await store.sessions.byTokenHash(hash(session.id)), session);
      await store.sessions.insertLoginLink(hash('link'), acc.id, T, T + 1000);
      assert.equal(await store.sessions.redeemLoginLink(hash('link'), T + 1), acc.id);
      assert.equal(await store.sessions.redeemLoginLink(hash('link'), T + 2), null, 'a link is used once');
    });

    withStore('members: users, roles, set-up links, TOTP steps, recovery codes, their sessions', async (store) => {
      const acc = account();
      await store.accounts.insert(acc);
      const owner = newUser(id('usr'), acc.id, `${id('owner')}@example.com`, 'owner', 'Olga', T);
      const viewer = newUser(id('usr'), acc.id, `${id('viewer')}@example.com`, 'viewer', null, T + 1);
      await store.users.insert(owner);
      await store.users.insert(viewer);
      assert.deepEqual(await store.users.byId(owner.id), owner);
      assert.deepEqual(await store.users.byEmail(viewer.email.toUpperCase()), viewer, 'emails match case-insensitively');
      assert.deepEqual((await store.users.list(acc.id)).map((u) => u.id), [owner.id, viewer.id]);
      assert.ok((await store.users.list(null)).length >= 2);
      assert.equal(await store.users.countOwners(acc.id), 1);
      await store.users.setRole(viewer.id, 'owner', T + 5);
      assert.equal(await store.users.countOwners(acc.id), 2);
      await store.users.setPassword(viewer.id, 'scrypt$1$1$1$a$b', T + 6);
      assert.equal((await store.users.byId(viewer.id))!.passwordHash, 'scrypt$1$1$1$a$b');

      await store.users.setTotp(owner.id, 'JBSWY3DPEHPK3PXP', null, T + 7);
      assert.equal((await store.users.byId(owner.id))!.totpEnabledAt, null, 'pending until confirmed');
      await store.users.setTotp(owner.id, 'JBSWY3DPEHPK3PXP', T + 8, T + 8);
      assert.equal(await store.users.useTotpStep(owner.id, 100), true);
      assert.equal(await store.users.useTotpStep(owner.id, 100), false, 'a step is used once');
      assert.equal(await store.users.useTotpStep(owner.id, 99), false, 'never an earlier one');
      assert.equal(await store.users.useTotpStep(owner.id, 101), true);

      await store.users.replaceRecoveryCodes(owner.id, [hash('rc1'), hash('rc2')], T);
      assert.equal(await store.users.unusedRecoveryCodes(owner.id), 2);
      assert.equal(await store.users.useRecoveryCode(owner.id, hash('rc1'), T + 1), true);
      assert.equal(await store.users.useRecoveryCode(owner.id, hash('rc1'), T + 2), false, 'a recovery code is used once');
      assert.equal(await store.users.useRecoveryCode(viewer.id, hash('rc2'), T + 2), false, 'codes are per member');
      assert.equal(await store.users.unusedRecoveryCodes(owner.id), 1);

      await store.users.insertSetupLink(hash('setup'), viewer.id, T, T + 1000);
      assert.equal(await store.users.redeemSetupLink(hash('setup'), T + 1000), null, 'expired');
      assert.equal(await store.users.redeemSetupLink(hash('setup'), T + 1), viewer.id);
      assert.equal(await store.users.redeemSetupLink(hash('setup'), T + 2), null, 'used once');
      // A new link replaces the ones sent before (issue 35).
      await store.users.insertSetupLink(hash('lost'), viewer.id, T, T + 1000);
      await store.users.retireSetupLinks(viewer.id, T + 1);
      await store.users.insertSetupLink(hash('resent'), viewer.id, T + 1, T + 1000);
      assert.equal(await store.users.redeemSetupLink(hash('lost'), T + 2), null, 'retired');
      assert.equal(await store.users.redeemSetupLink(hash('resent'), T + 2), viewer.id);

      const mine = { id: id('ses'), accountId: acc.id, keyId: null, userId: viewer.id, method: 'password', address: '10.0.0.1', userAgent: null, createdAt: T, expiresAt: T + 1000 };
      const old = { ...mine, id: id('ses'), createdAt: T - 10, expiresAt: T + 5 };
      await store.sessions.insert(mine, hash(mine.id));
      await store.sessions.insert(old, hash(old.id));
      assert.deepEqual(await store.sessions.byId(mine.id), mine);
      assert.deepEqual((await store.sessions.listForUser(viewer.id, T + 1)).map((s) => s.id), [mine.id, old.id], 'newest first');
      assert.deepEqual((await store.sessions.listForUser(viewer.id, T + 5)).map((s) => s.id), [mine.id], 'expired ones are not listed');
      await store.users.delete(viewer.id);
      assert.equal(await store.users.byId(viewer.id), null);
      assert.equal(await store.sessions.byTokenHash(hash(mine.id)), null, "a removed member's sessions go with them");
    });

    withStore("a member's other sessions end together; the one kept stays", async (store) => {
      const acc = account();
      await store.accounts.insert(acc);
      const member = newUser(id('usr'), acc.id, `${id('m')}@example.com`, 'editor', null, T);
      await store.users.insert(member);
      const session = (userId: string | null) => ({ id: id('ses'), accountId: acc.id, keyId: null, userId, method: 'password', address: null, userAgent: null, createdAt: T, expiresAt: T + 1000 });
      const [kept, a, b, linkSession] = [session(member.id), session(member.id), session(member.id), session(null)];
      for (const s of [kept, a, b, linkSession]) await store.sessions.insert(s, hash(s.id));
      assert.equal(await store.sessions.deleteForUser(member.id, kept.id), 2);
      assert.deepEqual((await store.sessions.listForUser(member.id, T)).map((s) => s.id), [kept.id]);
      assert.ok(await store.sessions.byId(linkSession.id), 'sessions of no member are not touched');
      assert.equal(await store.sessions.deleteForUser(member.id, null), 1, 'null keeps none');
    });

    withStore('sign-in attempt tallies: reserved up to the limit, refused without moving the window, released, forgotten', async (store) => {
      const tallies = store.signInAttempts;
      const key = `u:${id('who')}`;
      for (let i = 1; i <= 3; i++) assert.deepEqual(await tallies.reserve(key, 3, T + i, 1000), { admitted: true, tally: { attempts: i, forgetAt: T + i + 1000 } });
      assert.deepEqual(await tallies.reserve(key, 3, T + 10, 1000), { admitted: false, tally: { attempts: 3, forgetAt: T + 1003 } }, 'the fourth is refused; the window stays');
      await tallies.release(key);
      assert.equal((await tallies.reserve(key, 3, T + 11, 1000)).admitted, true, 'one given back is one more allowed');
      assert.equal((await tallies.reserve(key, 3, T + 12, 1000)).admitted, false);
      assert.deepEqual(await tallies.reserve(key, 3, T + 1011, 1000), { admitted: true, tally: { attempts: 1, forgetAt: T + 2011 } }, 'a forgotten tally starts again');
      await tallies.clear(key);
      assert.equal((await tallies.reserve(key, 1, T + 1012, 1000)).tally.attempts, 1, 'cleared');
      const shared = `a:${id('addr')}`;
      const racing = await Promise.all(Array.from({ length: 20 }, () => tallies.reserve(shared, 5, T, 1000)));
      assert.equal(racing.filter((r) => r.admitted).length, 5, 'twenty at once: five admitted');
      assert.equal(await tallies.prune(T + 5000), 2);
    });

    withStore('the audit log: append, filters, cursor, retention', async (store) => {
      const acc = account();
      const other = account();
      await store.accounts.insert(acc);
      await store.accounts.insert(other);
      const who = { kind: 'user' as const, id: 'usr_1', name: 'Olga' };
      const key = { kind: 'key' as const, id: 'key_1', name: 'deploy' };
      const entry = (at: number, action: string, actor: Actor = who, accountId = acc.id) =>
        ({ accountId, at, actor, action, target: { kind: action.split('.')[0]!, id: `t${at}`, name: null }, fields: ['name'], address: '10.0.0.1' });
      await store.audit.append(entry(T, 'check.create'));
      await store.audit.append(entry(T + 1, 'check.update', key));
      await store.audit.append(entry(T + 2, 'webhook.delete'));
      await store.audit.append(entry(T + 3, 'check.delete', who, other.id));
      const all = await store.audit.list({ accountId: acc.id }, { limit: 10, beforeSeq: null });
      assert.deepEqual(all.map((e) => e.action), ['webhook.delete', 'check.update', 'check.create'], 'newest first, one account only');
      assert.deepEqual(all[2], { ...entry(T, 'check.create'), seq: all[2]!.seq });
      const page = await store.audit.list({ accountId: acc.id }, { limit: 2, beforeSeq: null });
      const next = await store.audit.list({ accountId: acc.id }, { limit: 2, beforeSeq: page[1]!.seq });
      assert.deepEqual(next.map((e) => e.action), ['check.create']);
      assert.deepEqual((await store.audit.list({ accountId: acc.id, action: 'check.' }, { limit: 10, beforeSeq: null })).map((e) => e.action), ['check.update', 'check.create']);
      assert.deepEqual((await store.audit.list({ accountId: acc.id, action: 'check' }, { limit: 10, beforeSeq: null })).length, 0, 'an action without its dot is exact');
      assert.deepEqual((await store.audit.list({ accountId: acc.id, actorId: 'key_1' }, { limit: 10, beforeSeq: null })).map((e) => e.action), ['check.update']);
      assert.deepEqual((await store.audit.list({ accountId: acc.id, actorKind: 'user' }, { limit: 10, beforeSeq: null })).length, 2);
      assert.deepEqual((await store.audit.list({ accountId: acc.id, targetId: `t${T + 2}` }, { limit: 10, beforeSeq: null })).map((e) => e.action), ['webhook.delete']);
      assert.deepEqual((await store.audit.list({ accountId: acc.id, from: T + 1, to: T + 1 }, { limit: 10, beforeSeq: null })).map((e) => e.action), ['check.update'], 'from and to are inclusive');
      assert.equal(await store.audit.deleteOlderThan(T + 2), 2);
      assert.deepEqual((await store.audit.list({ accountId: acc.id }, { limit: 10, beforeSeq: null })).map((e) => e.action), ['webhook.delete']);
    });

    withStore('status pages and the alert settings', async (store) => {
      const { acc, c } = await seeded(store);
      const page = { id: id('spg'), accountId: acc.id, slug: 'contract', title: 'Contract', description: null, customDomain: null, checkIds: [c.id], tags: ['env:Prod'], autoIncidents: false,
        logoUrl: 'https://acme.example/logo.png', accentColor: '#123456', footerText: 'Acme\nInc.', favicon: null, hidePoweredBy: true, webhookSubscriptions: false,
        embedAllowedOrigins: ['https://www.acme.example'], createdAt: T, updatedAt: T };
      await store.statusPages.insert(page);
      assert.deepEqual(await store.statusPages.bySlug('contract'), page);
      await store.statusPages.update({ ...page, accentColor: null, favicon: 'https://acme.example/icon.png', hidePoweredBy: false, webhookSubscriptions: true, embedAllowedOrigins: [] });
      assert.deepEqual(await store.statusPages.bySlug('contract'), { ...page, accentColor: null, favicon: 'https://acme.example/icon.png', hidePoweredBy: false, webhookSubscriptions: true, embedAllowedOrigins: [] });
      assert.deepEqual(await store.statusPages.slugsListing(c.id), ['contract']);
      await store.statusPages.delete(page.id);
      assert.equal(await store.statusPages.listsCheck(c.id), false);

      const email = { accountId: acc.id, enabled: true, recipients: ['ops@example.com'], events: ['website_down' as const], emailFormat: 'text' as const, updatedAt: T, checkIds: [], folders: [], tags: ['team:Web'], remindEveryMinutes: null };
      await store.alerts.emailSettings.put(email);
      assert.deepEqual(await store.alerts.emailSettings.get(acc.id), email);
      await store.alerts.domainWatch.put({ checkId: c.id, expiresAt: null, alerted: 'ok', checkedAt: T, lastError: null });
      assert.equal((await store.alerts.domainWatch.get(c.id))!.checkedAt, T);
    });

    withStore('status page incidents: timeline, checks, what the page shows, automatic ones', async (store) => {
      const { acc, c } = await seeded(store);
      const page = { id: id('spg'), accountId: acc.id, slug: 'incidents', title: 'Incidents', description: null, customDomain: null, checkIds: [c.id], tags: [], autoIncidents: true, logoUrl: null, accentColor: null, footerText: null, favicon: null, hidePoweredBy: false, webhookSubscriptions: false, embedAllowedOrigins: [], createdAt: T, updatedAt: T };
      await store.statusPages.insert(page);
      assert.deepEqual((await store.statusPages.autoIncidentPages(c.id)).map((p) => p.id), [page.id]);
      const first = { id: id('inu'), status: 'investigating' as const, message: 'Looking\ninto it', at: T };
      const incident = {
        id: id('inc'), pageId: page.id, title: 'Checkout errors', impact: 'major' as const, status: 'investigating' as const, checkIds: [c.id],
        updates: [first], autoCheckId: c.id, createdAt: T, updatedAt: T, resolvedAt: null,
      };
      await store.incidents.insert(incident);
      assert.deepEqual(await store.incidents.byId(incident.id), incident);
      assert.deepEqual(await store.incidents.openAuto(page.id, c.id), incident);
      const old = { ...incident, id: id('inc'), title: 'Old', autoCheckId: null, status: 'resolved' as const, updates: [{ ...first, id: id('inu'), at: T - 40 }], createdAt: T - 40, updatedAt: T - 40, resolvedAt: T - 40 };
      await store.incidents.insert(old);
      assert.equal(await store.incidents.count(page.id), 2);
      assert.deepEqual((await store.incidents.list(page.id, { limit: 1, offset: 0 })).map((i) => i.id), [incident.id], 'newest first');
      assert.deepEqual((await store.incidents.list(page.id, { limit: 5, offset: 1 })).map((i) => i.id), [old.id]);
      assert.deepEqual((await store.incidents.shown(page.id, T - 10)).map((i) => i.id), [incident.id], 'resolved before the cut-off: not shown');

      const resolve = { id: id('inu'), status: 'resolved' as const, message: 'Fixed', at: T + 5 };
      const resolved = { ...incident, status: 'resolved' as const, impact: 'minor' as const, updates: [first, resolve], updatedAt: T + 5, resolvedAt: T + 5 };
      await store.incidents.save(resolved, resolve);
      assert.deepEqual(await store.incidents.byId(incident.id), resolved);
      assert.equal(await store.incidents.openAuto(page.id, c.id), null, 'a resolved incident is no longer open');
      assert.deepEqual((await store.incidents.shown(page.id, T)).map((i) => i.id), [incident.id]);

      await store.checks.delete(c.id);
      assert.deepEqual((await store.incidents.byId(incident.id))!.checkIds, [], 'a deleted check leaves its incidents');
      await store.incidents.delete(old.id);
      assert.equal(await store.incidents.byId(old.id), null);
      await store.statusPages.delete(page.id);
      assert.equal(await store.incidents.byId(incident.id), null, 'a deleted page takes its incidents');
    });

    withStore('status page subscribers: the cap, duplicates, confirmation, counts, expiry', async (store) => {
      const { acc } = await seeded(store);
      const page = { id: id('spg'), accountId: acc.id, slug: 'subscribed', title: 'Subscribed', description: null, customDomain: null, checkIds: [], tags: [], autoIncidents: false, logoUrl: null, accentColor: null, footerText: null, favicon: null, hidePoweredBy: false, webhookSubscriptions: false, embedAllowedOrigins: [], createdAt: T, updatedAt: T };
      await store.statusPages.insert(page);
      const sub = (kind: 'email' | 'webhook', address: string, at = T) => ({
        id: id('sub'), pageId: page.id, kind, address, secret: kind === 'webhook' ? 's3cret' : null, token: id('tok').padEnd(64, '0'),
        confirmedAt: kind === 'webhook' ? at : null, createdAt: at,
      });
      const cut = (before: number) => ({ email: before, webhook: before });
      const ann = sub('email', 'ann@example.com');
      assert.deepEqual(await store.subscribers.add(ann, 3, cut(T - 100)), { kind: 'added', subscriber: ann });
      const again = await store.subscribers.add(sub('email', 'ann@example.com'), 3, cut(T - 100));
      assert.equal(again.kind, 'exists');
      assert.equal(again.kind === 'exists' && again.subscriber.id, ann.id, 'the same address twice is one subscriber');
      const hook = sub('webhook', 'https://hooks.example.com/x');
      assert.equal((await store.subscribers.add(hook, 3, cut(T - 100))).kind, 'added');
      assert.deepEqual(await store.subscribers.byToken(ann.token), ann);
      assert.deepEqual(await store.subscribers.counts(page.id), { email: 0, webhook: 1, pending: 1 });
      assert.deepEqual((await store.subscribers.confirmed(page.id)).map((x) => x.id), [hook.id], 'pending addresses hear nothing');
      assert.equal(await store.subscribers.confirm(ann.id, T + 1), true);
      assert.equal(await store.subscribers.confirm(ann.id, T + 2), false, 'confirmed once');
      assert.equal((await store.subscribers.byId(ann.id))!.confirmedAt, T + 1);
      assert.deepEqual((await store.subscribers.confirmed(page.id)).map((x) => x.id), [ann.id, hook.id]);
      const bob = sub('email', 'bob@example.com', T + 2);
      assert.equal((await store.subscribers.add(bob, 3, cut(T - 100))).kind, 'added');
      assert.deepEqual(await store.subscribers.add(sub('email', 'cy@example.com'), 3, cut(T - 100)), { kind: 'full' });
      assert.equal((await store.subscribers.add(sub('email', 'cy@example.com', T + 10), 3, cut(T + 5))).kind, 'added', 'a pending address past its time makes room');
      assert.equal(await store.subscribers.byId(bob.id), null);
      assert.deepEqual((await store.subscribers.list(page.id, { limit: 2, offset: 0 })).map((x) => x.id), [ann.id, hook.id], 'oldest first');
      // Issue 34: webhooks wait for their receiver's answer; the sweep drops those past their time, per kind, twice harmlessly.
      const pendingHook = { ...sub('webhook', 'https://hooks.example.com/pending', T + 3), confirmedAt: null };
      const late = sub('email', 'late@example.com', T + 3);
      assert.equal((await store.subscribers.add(pendingHook, 5, cut(T - 100))).kind, 'added');
      assert.equal((await store.subscribers.add(late, 5, cut(T - 100))).kind, 'added');
      assert.equal((await store.subscribers.counts(page.id)).pending, 2 + 1, 'cy, the pending webhook, late');
      assert.equal(await store.subscribers.expirePending('webhook', T + 3), 0, 'created at the cutoff: kept');
      assert.equal(await store.subscribers.expirePending('webhook', T + 4), 1);
      assert.equal(await store.subscribers.expirePending('webhook', T + 4), 0, 'a second run finds nothing');
      assert.equal(await store.subscribers.byId(pendingHook.id), null);
      assert.ok(await store.subscribers.byId(hook.id), 'a confirmed webhook stays');
      assert.ok(await store.subscribers.byId(late.id), 'an email address waits its own time');
      assert.equal((await store.subscribers.add(sub('email', 'dee@example.com', T + 20), 9, { email: T + 4, webhook: T - 100 })).kind, 'added');
      assert.equal(await store.subscribers.byId(late.id), null, 'add drops pending addresses past their kind\'s cutoff');
      await store.subscribers.delete(ann.id);
      assert.equal(await store.subscribers.byToken(ann.token), null);
      await store.statusPages.delete(page.id);
      assert.equal(await store.subscribers.byId(hook.id), null, 'a deleted page takes its subscribers');
    });

    withStore('agent signups, OAuth grants and tokens', async (store) => {
      const acc = { ...account(), claimed: false };
      await store.accounts.insert(acc);
      await store.oauth.insertSignup({ accountId: acc.id, agentName: 'agent', claimExpiresAt: T + 1000, claimedAt: null, createdAt: T }, hash('claim'));
      assert.equal((await store.oauth.signupByClaimHash(hash('claim')))!.accountId, acc.id);
      assert.equal((await store.oauth.signupOf(acc.id))!.agentName, 'agent');
      assert.equal(await store.oauth.signupOf('acc_none'), null);
      assert.equal(await store.oauth.countSignupsSince(T), 1);
      assert.equal(await store.oauth.markClaimed(acc.id, T + 1), true);
      assert.equal(await store.oauth.markClaimed(acc.id, T + 2), false, 'claimed once');
      const grant = { id: id('grt'), accountId: acc.id, scopes: ['checks:read' as const], revokedAt: null, createdAt: T };
      await store.oauth.insertGrant(grant);
      const token = { id: id('tok'), grantId: grant.id, accountId: acc.id, kind: 'refresh' as const, scopes: grant.scopes, expiresAt: T + 1000, usedAt: null, createdAt: T };
      await store.oauth.insertToken(token, hash(token.id));
      assert.deepEqual(await store.oauth.tokenByHash(hash(token.id)), { ...token, grantRevokedAt: null });
      assert.equal(await store.oauth.markUsed(token.id, T + 1), true);
      assert.equal(await store.oauth.markUsed(token.id, T + 2), false, 'spent once');
      await store.oauth.revokeGrant(grant.id, T + 3);
      assert.equal((await store.oauth.tokenByHash(hash(token.id)))!.grantRevokedAt, T + 3);
      assert.equal(await store.oauth.pruneExpired(T + 2000), 1);
    });

    withStore('webhooks and the delivery queue: enqueue, claim, settle', async (store) => {
      const { acc, c } = await seeded(store);
      const hook = {
        id: id('whk'), accountId: acc.id, name: 'ops', url: 'https://hooks.example.com/x', urlKey: 'hooks.example.com/x', webhookType: 'generic' as const,
        events: ['website_down' as const], enabled: true, secret: null, createdAt: T, checkIds: [], folders: [], tags: ['env'], remindEveryMinutes: null,
      };
      await store.alerts.webhooks.insert(hook);
      assert.deepEqual(await store.alerts.webhooks.byId(hook.id), hook);
      assert.equal(await store.alerts.webhooks.urlTaken(acc.id, hook.urlKey), true);
      assert.equal(await store.alerts.webhooks.any(), true);
      const delivery = { id: id('dlv'), channel: 'webhook' as const, target: hook.id };
      await store.alerts.deliveries.enqueue([{ accountId: acc.id, checkId: c.id, event: 'website_down', contentJson: '{}', createdAt: T, retryUntil: T + 3_600_000, deliveries: [delivery] }], T);
      assert.equal(await store.operations.pendingDeliveries(), 1);
      const claimed = await store.alerts.deliveries.claim(T, T + 60_000, 10, new Map(), 4);
      assert.deepEqual(claimed.map((d) => [d.id, d.status, d.attempts]), [[delivery.id, 'sending', 1]]);
      await store.alerts.deliveries.settle([{ id: delivery.id, outcome: { kind: 'delivered', status: 200 } }], T + 1);
      assert.equal((await store.alerts.deliveries.byId(delivery.id))!.status, 'delivered');
      assert.equal(await store.operations.pendingDeliveries(), 0);
      await store.operations.touch(T);
    });

    withStore('one alert per check and transition, whichever central queues it; a lapsed delivery lease is taken by another', async (store) => {
      const { acc, c } = await seeded(store);
      const hook = {
        id: id('whk'), accountId: acc.id, name: 'ops', url: 'https://hooks.example.com/t', urlKey: 'hooks.example.com/t', webhookType: 'generic' as const,
        events: ['website_down' as const], enabled: true, secret: null, createdAt: T, checkIds: [], folders: [], tags: [], remindEveryMinutes: null,
      };
      await store.alerts.webhooks.insert(hook);
      const alert = (transition: string | null, at: number) => ({
        accountId: acc.id, checkId: c.id, event: 'website_down' as const, contentJson: `{"at":${at}}`, createdAt: at, retryUntil: at + 3_600_000,
        deliveries: [{ id: id('dlv'), channel: 'webhook' as const, target: hook.id }, { id: id('dlv'), channel: 'email' as const, target: 'ops@example.com' }],
        transition,
      });
      // Two centrals saw the check leave the state that began at T - 60 s: the first queued wins.
      const first = alert(`website_down@${T - 60_000}`, T);
      const second = alert(`website_down@${T - 60_000}`, T + 5);
      await store.alerts.deliveries.enqueue([first], T);
      await store.alerts.deliveries.enqueue([second], T + 5);
      const queued = await store.alerts.deliveries.forCheck(c.id);
      assert.deepEqual(queued.map((d) => d.id).sort(), first.deliveries.map((d) => d.id).sort(), 'the second alert of one transition is dropped with its deliveries');
      // Another transition, and alerts that name none (reminders), are queued every time.
      await store.alerts.deliveries.enqueue([alert(`website_down@${T + 60_000}`, T + 70_000), alert(null, T + 80_000), alert(null, T + 80_000)], T + 80_000);
      assert.equal((await store.alerts.deliveries.forCheck(c.id)).length, 8);

      // A central leased the first delivery and died: once the lease lapses, another takes it (one more attempt).
      const claimed = await store.alerts.deliveries.claim(T, T + 30_000, 1, new Map(), 4);
      assert.equal(claimed.length, 1);
      const retaken = await store.alerts.deliveries.claim(T + 30_001, T + 60_000, 10, new Map(), 4);
      const again = retaken.find((d) => d.id === claimed[0]!.id);
      assert.deepEqual(again && [again.status, again.attempts], ['sending', 2]);
    });

    withStore('the alert outbox: events committed with their state change; an alerts write queues only the alerts whose event it claims', async (store) => {
      const { acc, c } = await seeded(store);
      const hook = {
        id: id('whk'), accountId: acc.id, name: 'ops', url: 'https://hooks.example.com/o', urlKey: 'hooks.example.com/o', webhookType: 'generic' as const,
        events: ['website_down' as const, 'website_up' as const], enabled: true, secret: null, createdAt: T, checkIds: [], folders: [], tags: [], remindEveryMinutes: null,
      };
      await store.alerts.webhooks.insert(hook);
      const event = (type: 'website_down' | 'website_up', at: number) => ({
        type, at, previousStatus: type === 'website_down' ? 'up' as const : 'down' as const, status: type === 'website_down' ? 'down' as const : 'up' as const,
        error: type === 'website_down' ? 'HTTP 500' : null, statusCode: 500, responseTime: 100, ssl: null, since: at - 60_000,
        regions: { primary: 'local', peer: null, regionsTotal: 1, regionsDown: 1, confirmedDown: true },
      });
      const changed = (at: number, type: 'website_down' | 'website_up', eventId: string): WriteRecord => ({
        ...result(c, at, type === 'website_up'), statusChange: type === 'website_down' ? 'down' : 'up',
        outbox: [{ id: eventId, checkId: c.id, accountId: acc.id, event: event(type, at), createdAt: at }],
      } as WriteRecord);
      const alert = (outboxId: string | null, at: number) => ({
        accountId: acc.id, checkId: c.id, event: 'website_down' as const, contentJson: `{"at":${at}}`, createdAt: at, retryUntil: at + 3_600_000,
        deliveries: [{ id: id('dlv'), channel: 'webhook' as const, target: hook.id }], transition: null, outboxId,
      });
      const routed = (...ids: string[]) => ids.map((x) => ({ id: x, checkId: c.id }));
      const none = () => assert.fail('no record fails');

      // The event is kept in the state change's transaction, and read back as it was.
      await store.applyWrites([changed(T + 1_000, 'website_down', 'evt_one')], none);
      assert.deepEqual((await store.stateChanges.between(c.seq, T, T + 1_000)).map((s) => s.status), ['down']);
      const due = await store.alerts.outbox.due(T + 1_000, 10);
      assert.deepEqual(due, [{ id: 'evt_one', checkId: c.id, accountId: acc.id, event: event('website_down', T + 1_000), createdAt: T + 1_000 }]);
      assert.deepEqual(await store.alerts.outbox.due(T + 999, 10), [], 'only events written at or before the time asked');

      // The first write to claim it queues its alert and deletes the row; a second claim (another central, a sweep) queues nothing.
      await store.applyWrites([{ kind: 'alerts', alerts: [alert('evt_one', T + 1_001)], at: T + 1_001, routed: routed('evt_one') }], none);
      await store.applyWrites([{ kind: 'alerts', alerts: [alert('evt_one', T + 1_002), alert(null, T + 1_002)], at: T + 1_002, routed: routed('evt_one') }], none);
      assert.equal((await store.alerts.deliveries.forCheck(c.id)).length, 2, 'the first claim\'s alert, and the one of no event');
      assert.deepEqual(await store.alerts.outbox.due(T + 10_000, 10), []);

      // The event and its claim in one batch (order kept); an event routed with no alert leaves the outbox too.
      await store.applyWrites([
        changed(T + 2_000, 'website_up', 'evt_two'), changed(T + 3_000, 'website_down', 'evt_three'),
        { kind: 'alerts', alerts: [alert('evt_two', T + 3_001), alert('evt_two', T + 3_001)], at: T + 3_001, routed: routed('evt_two', 'evt_three') },
      ], none);
      assert.equal((await store.alerts.deliveries.forCheck(c.id)).length, 3, 'one alert per claimed event, however often it was routed');
      assert.deepEqual(await store.alerts.outbox.due(T + 10_000, 10), []);

      // A state change whose commit failed left no event: its routed alert queues nothing.
      factory.failNextCommit(store);
      await assert.rejects(async () => store.applyWrites([changed(T + 4_000, 'website_up', 'evt_four')], none));
      assert.deepEqual(await store.alerts.outbox.due(T + 10_000, 10), []);
      await store.applyWrites([{ kind: 'alerts', alerts: [alert('evt_four', T + 4_001)], at: T + 4_001, routed: routed('evt_four') }], none);
      assert.equal((await store.alerts.deliveries.forCheck(c.id)).length, 3);

      // Left unrouted, events are due oldest first.
      await store.applyWrites([changed(T + 5_000, 'website_up', 'evt_six'), changed(T + 6_000, 'website_down', 'evt_five')], none);
      assert.deepEqual((await store.alerts.outbox.due(T + 6_000, 10)).map((e) => e.id), ['evt_six', 'evt_five']);
      assert.deepEqual((await store.alerts.outbox.due(T + 6_000, 1)).map((e) => e.id), ['evt_six']);
    });

    withStore('retention deletes raw history older than asked, oldest first, and raises the horizon', async (store) => {
      const { c } = await seeded(store);
      await store.applyWrites([result(c, T, true), result(c, T + 60_000, true), result(c, T + 120_000, true)], () => assert.fail('no record fails'));
      assert.equal(await store.retention.pruneRaw(c.seq, T + 100_000, 10), 2);
      assert.deepEqual((await store.history.forCheck(c.seq, 10)).map((r) => r.at), [T + 120_000]);
      assert.equal((await store.rollups.horizons(c.seq)).rawFrom, T + 100_000);
    });

    withStore('a service transaction commits whole, or rolls back whole', async (store) => {
      const { acc } = await seeded(store);
      const other = check(acc.id, 'https://other.example.com/');
      const seq = await store.transaction(async () => store.checks.insert(other, other.url, null));
      assert.equal(typeof seq, 'number', 'the unit answers what its fn answered');
      assert.equal(await store.checks.countForAccount(acc.id), 2);
      const third = check(acc.id, 'https://third.example.com/');
      await assert.rejects(
        store.transaction(async () => {
          await store.checks.insert(third, third.url, null);
          assert.notEqual(await store.checks.byId(third.id), null, 'inside the unit its writes show');
          throw new Error('roll back');
        }),
        /roll back/,
      );
      assert.equal(await store.checks.byId(third.id), null, 'nothing of a rolled-back unit stays');
      assert.equal(await store.checks.countForAccount(acc.id), 2);
    });

    withStore("a request transaction: the handler's writes and its idempotency record commit together, or neither", async (store) => {
      const { acc } = await seeded(store);
      const request = (c: Omit<Check, 'seq'>, key: string) =>
        store.transaction(async () => {
          await store.checks.insert(c, c.url, null);
          await store.idempotency.put({
            accountId: acc.id, key, method: 'POST', path: '/v1/public/checks', bodyHash: 'h', status: 201, response: JSON.stringify({ id: c.id }), createdAt: T,
          });
        });
      const made = check(acc.id, 'https://made.example.com/');
      await request(made, 'k-made');
      assert.notEqual(await store.checks.byId(made.id), null);
      assert.equal((await store.idempotency.get(acc.id, 'k-made'))!.response, JSON.stringify({ id: made.id }));

      const lost = check(acc.id, 'https://lost.example.com/');
      const ran: string[] = [];
      factory.failNextCommit(store);
      await assert.rejects(
        store.transaction(async () => {
          store.afterCommit(() => ran.push('effect'));
          await request(lost, 'k-lost');
        }),
      );
      assert.equal(await store.checks.byId(lost.id), null, 'a failed commit keeps no row of the handler');
      assert.equal(await store.idempotency.get(acc.id, 'k-lost'), null, 'nor its idempotency record');
      assert.deepEqual(ran, [], 'and runs none of its effects');
      await request(lost, 'k-lost');
      assert.notEqual(await store.checks.byId(lost.id), null, 'the store takes the next unit');
    });

    withStore('a nested unit runs in a savepoint: one that throws undoes only its own writes; effects run after the outermost commit', async (store) => {
      const { acc } = await seeded(store);
      const kept = check(acc.id, 'https://kept.example.com/');
      const undone = check(acc.id, 'https://undone.example.com/');
      const inner = check(acc.id, 'https://inner.example.com/');
      const ran: string[] = [];
      await store.transaction(async () => {
        await store.checks.insert(kept, kept.url, null);
        store.afterCommit(() => ran.push('outer'));
        await assert.rejects(
          store.transaction(async () => {
            await store.checks.insert(undone, undone.url, null);
            store.afterCommit(() => ran.push('undone'));
            throw new Error('inner');
          }),
          /inner/,
        );
        assert.equal(await store.checks.byId(undone.id), null, 'the savepoint is undone at once');
        assert.notEqual(await store.checks.byId(kept.id), null, 'and only it');
        await store.transaction(async () => {
          await store.checks.insert(inner, inner.url, null);
          store.afterCommit(() => ran.push('inner'));
        });
        assert.deepEqual(ran, [], 'nothing runs before the outermost commit');
      });
      assert.deepEqual(ran, ['outer', 'inner'], 'the rolled-back nested unit has no effects');
      assert.notEqual(await store.checks.byId(kept.id), null);
      assert.notEqual(await store.checks.byId(inner.id), null, 'a nested unit that succeeds commits with the outer one');
      assert.equal(await store.checks.byId(undone.id), null);

      // An outer unit that throws takes its nested units' writes and effects with it.
      const gone = check(acc.id, 'https://gone.example.com/');
      ran.length = 0;
      await assert.rejects(
        store.transaction(async () => {
          await store.transaction(async () => {
            await store.checks.insert(gone, gone.url, null);
            store.afterCommit(() => ran.push('never'));
          });
          throw new Error('outer');
        }),
        /outer/,
      );
      assert.equal(await store.checks.byId(gone.id), null);
      assert.equal(ran.length, 0, 'nor its effects');
      store.afterCommit(() => ran.push('at once'));
      assert.deepEqual(ran, ['at once'], 'outside a unit an effect runs at once');
    });

    withStore('an effect that throws is reported; the unit stays committed and the other effects run', async (store) => {
      const { acc } = await seeded(store);
      const c = check(acc.id, 'https://effects.example.com/');
      const ran: string[] = [];
      await store.transaction(async () => {
        await store.checks.insert(c, c.url, null);
        store.afterCommit(() => {
          throw new Error('effect failed');
        });
        store.afterCommit(() => ran.push('second'));
      });
      assert.deepEqual(ran, ['second']);
      assert.deepEqual(reported.splice(0).map((e) => (e as Error).message), ['effect failed']);
      assert.notEqual(await store.checks.byId(c.id), null);
    }, { effectFailed: (err) => reported.push(err) });

    withStore('two units never interleave: the second begins once the first has finished; a read outside sees nothing uncommitted', async (store) => {
      const { acc } = await seeded(store);
      const steps: string[] = [];
      const first = check(acc.id, 'https://first.example.com/');
      const second = check(acc.id, 'https://second.example.com/');
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const a = store.transaction(async () => {
        steps.push('a begins');
        await store.checks.insert(first, first.url, null);
        await held;
        steps.push('a ends');
        throw new Error('a rolls back');
      });
      const b = store.transaction(async () => {
        steps.push('b begins');
        assert.equal(await store.checks.byId(first.id), null, 'the first unit rolled back before the second began');
        await store.checks.insert(second, second.url, null);
        steps.push('b ends');
      });
      const outside = Promise.resolve(store.checks.byId(first.id));
      await new Promise((resolve) => setImmediate(resolve));
      release();
      await assert.rejects(a, /a rolls back/);
      await b;
      assert.deepEqual(steps, ['a begins', 'a ends', 'b begins', 'b ends']);
      assert.equal(await outside, null, 'a read outside any unit never sees what a unit has not committed');
      assert.notEqual(await store.checks.byId(second.id), null);
    });

    withStore('a batch of the writer never joins an open unit: one that rolls back takes none of it', async (store) => {
      const { acc, c } = await seeded(store);
      const draft = check(acc.id, 'https://unit.example.com/');
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const unit = store.transaction(async () => {
        await store.checks.insert(draft, draft.url, null);
        await held;
        throw new Error('unit rolls back');
      });
      const batch = Promise.resolve(store.applyWrites([result(c, T + 1_000, true)], () => assert.fail('no record fails')));
      await new Promise((resolve) => setImmediate(resolve));
      release();
      await assert.rejects(unit, /unit rolls back/);
      await batch;
      assert.equal(await store.checks.byId(draft.id), null);
      assert.deepEqual((await store.history.forCheck(c.seq, 10)).map((r) => r.at), [T + 1_000], 'the batch committed on its own');
    });

    withStore('a batch whose commit fails keeps none of its records; the next one commits', async (store) => {
      const { c } = await seeded(store);
      factory.failNextCommit(store);
      await assert.rejects(async () => store.applyWrites([result(c, T + 1_000, true), result(c, T + 2_000, false)], () => assert.fail('no record fails on its own')));
      assert.deepEqual(await store.history.forCheck(c.seq, 10), []);
      await store.applyWrites([result(c, T + 3_000, true)], () => assert.fail('no record fails'));
      assert.deepEqual((await store.history.forCheck(c.seq, 10)).map((r) => r.at), [T + 3_000], 'the next batch commits');
    });

    withStore('the served addresses and the Kuma import memory', async (store) => {
      const { acc, c } = await seeded(store);
      assert.equal(await store.served.get(), null);
      const served = { publicUrl: 'https://vigil.example.com', heartbeatUrl: 'https://hb.example.com', dashboardUrl: 'https://vigil.example.com/app' };
      await store.served.record(served);
      assert.deepEqual(await store.served.get(), served);
      const key = { accountId: acc.id, sourceId: 'kuma-1', kind: 'monitor' as const, kumaId: 7 };
      assert.equal(await store.kumaImports.vigilId(key), null);
      await store.kumaImports.remember(key, c.id, T);
      assert.equal(await store.kumaImports.vigilId(key), c.id);
      await store.checks.setHeartbeatToken(c.id, 'ping-token', hash('ping-token'), T + 1);
      await store.kumaImports.rememberPushToken(hash('push'), c.id);
      assert.equal(await store.kumaImports.pingTokenFor(hash('push')), 'ping-token');
      await store.checks.setHeartbeatToken(c.id, 'new-token', hash('new-token'), T + 2);
      assert.equal(await store.kumaImports.pingTokenFor(hash('push')), null, 'a regenerated ping URL retires its Kuma twin');
    });

    withStore('nodes: list, live figures, revocation, disconnection', async (store) => {
      const node = { id: id('nod'), name: 'edge', region: 'us-1', createdAt: T, revokedAt: null };
      const other = { id: id('nod'), name: 'edge 2', region: 'us-1', createdAt: T, revokedAt: null };
      await store.nodes.insert(node, hash(node.id));
      await store.nodes.insert(other, hash(other.id));
      const live = { connected: true, lastSeenAt: T, version: '1.0', assigned: 3, probesPerSecond: 1.5, outboxDepth: 0, clockOffsetMs: 2, rejectedResults: 0, droppedResults: 0 };
      await store.nodes.saveLive(node.id, live);
      assert.deepEqual(await store.nodes.byId(node.id), { ...node, ...live });
      assert.deepEqual((await store.nodes.list()).map((n) => n.id).sort(), [node.id, other.id].sort());
      await store.nodes.revoke(other.id, T + 1);
      assert.deepEqual(await store.nodes.revokedAmong([node.id, other.id]), [other.id]);
      assert.deepEqual(await store.nodes.connectedSince(T), [{ id: node.id, region: 'us-1', lastSeenAt: T }]);
      assert.deepEqual(await store.nodes.connectedSince(T + 1), [], 'not heard from since');
      // Another central the node moved to heard from it later: the one it left does not mark it disconnected.
      await store.nodes.saveLive(node.id, { ...live, lastSeenAt: T + 5_000 });
      await store.nodes.saveLive(node.id, { ...live, connected: false, lastSeenAt: T + 2_000 });
      assert.deepEqual(await store.nodes.connectedSince(T + 5_000), [{ id: node.id, region: 'us-1', lastSeenAt: T + 5_000 }]);
      await store.nodes.saveLive(other.id, { ...live, lastSeenAt: T + 5_000 });
      assert.deepEqual((await store.nodes.connectedSince(T)).map((n) => n.id), [node.id], 'a revoked node counts nowhere');
      await store.nodes.markDisconnected(T + 5_000);
      assert.equal((await store.nodes.byId(node.id))!.connected, true, 'heard from at the start: left to the central it is connected to');
      await store.nodes.markDisconnected(T + 5_001);
      assert.equal((await store.nodes.byId(node.id))!.connected, false);
    });

    withStore('monitoring file keys: list and replace per account and kind', async (store) => {
      const a = account();
      const b = account();
      await store.accounts.insert(a);
      await store.accounts.insert(b);
      assert.deepEqual(await store.configKeys.list(a.id, 'check'), []);
      await store.configKeys.replace(a.id, 'check', [{ key: 'api', objectId: 'chk_1' }, { key: 'web', objectId: 'chk_2' }]);
      await store.configKeys.replace(a.id, 'webhook', [{ key: 'ops', objectId: 'whk_1' }]);
      await store.configKeys.replace(a.id, 'maintenance_window', [{ key: 'nightly', objectId: 'mtw_1' }]);
      await store.configKeys.replace(b.id, 'check', [{ key: 'api', objectId: 'chk_9' }]);
      const sorted = (keys: { key: string; objectId: string }[]) => [...keys].sort((x, y) => x.key.localeCompare(y.key));
      assert.deepEqual(sorted(await store.configKeys.list(a.id, 'check')), [{ key: 'api', objectId: 'chk_1' }, { key: 'web', objectId: 'chk_2' }]);
      assert.deepEqual(await store.configKeys.list(a.id, 'webhook'), [{ key: 'ops', objectId: 'whk_1' }]);
      await store.configKeys.replace(a.id, 'check', [{ key: 'api', objectId: 'chk_3' }, { key: 'api-renamed', objectId: 'chk_1' }]);
      assert.deepEqual(sorted(await store.configKeys.list(a.id, 'check')), [{ key: 'api', objectId: 'chk_3' }, { key: 'api-renamed', objectId: 'chk_1' }], 'replace drops the keys it does not name and moves the others');
      await store.configKeys.replace(a.id, 'check', [{ key: 'api-renamed', objectId: 'chk_1' }]);
      assert.deepEqual(await store.configKeys.list(b.id, 'check'), [{ key: 'api', objectId: 'chk_9' }], 'another account keeps its own');
      assert.deepEqual(await store.configKeys.list(a.id, 'webhook'), [{ key: 'ops', objectId: 'whk_1' }], 'another kind keeps its own');
      assert.deepEqual(await store.configKeys.list(a.id, 'maintenance_window'), [{ key: 'nightly', objectId: 'mtw_1' }], 'maintenance windows are a kind of their own');
      await store.configKeys.replace(a.id, 'webhook', []);
      assert.deepEqual(await store.configKeys.list(a.id, 'webhook'), [], 'an empty replace removes them all');
      await store.accounts.delete(a.id);
      assert.deepEqual(await store.configKeys.list(a.id, 'check'), [], 'they go with the account');
    });

    withStore('the group commit: a record that fails on its own is reported and the rest commits', async (store) => {
      const { c } = await seeded(store);
      // Its result row is written before its event, whose meta no store can keep (JSON has no BigInt).
      const broken: WriteRecord = { ...result(c, T + 2_000, true), event: { checkSeq: c.seq, at: T + 2_000, status: 'note', region: null, meta: { n: 1n } } } as WriteRecord;
      const batch = [result(c, T + 1_000, true), broken, result(c, T + 3_000, false)];
      const failed: WriteRecord[] = [];
      await store.applyWrites(batch, (record) => void failed.push(record));
      assert.deepEqual(failed, [broken], 'the broken record fails alone, and none of its rows stays');
      assert.deepEqual((await store.history.forCheck(c.seq, 10)).map((r) => r.at), [T + 3_000, T + 1_000]);
      const totals = await store.rollups.totals(c.seq, 'minute', [[T, T + 60_000]]);
      assert.equal(totals.total, 2, 'the rollups hold the committed results, and only them');
      assert.equal(totals.failure, 1);
    });
    withStore('the group commit: rollups of pings and failures (counts only) and of timed results read back as their samples make them', async (store) => {
      const { c } = await seeded(store);
      const timing = { dns: 3, connect: 5, tls: 7, ttfb: 20, total: 40 };
      const ping = (at: number, ok: boolean): WriteRecord => ({
        ...(result(c, at, ok) as ObservationWrite),
        result: { checkSeq: c.seq, at, kind: 'ping', status: ok ? 'up' : 'down', statusCode: null, responseTime: null, timing: null, error: null, region: null, snippet: null, meta: { signal: 'ping' } },
        sample: { ok, responseTime: null, timing: null },
      });
      const timed = (at: number): WriteRecord => ({ ...(result(c, at, true) as ObservationWrite), sample: { ok: true, responseTime: 40, timing } });
      // Now (the one statement) and long ago (the transaction of a late batch): a minute of counts only, and one mixed.
      for (const base of [Date.now() - (Date.now() % 60_000), T]) {
        const batch = [ping(base + 1_000, true), ping(base + 2_000, false), ping(base + 3_000, true), ping(base + 61_000, true), timed(base + 62_000), ping(base + 63_000, false)];
        await store.applyWrites(batch, () => assert.fail('no record fails'));
        for (const [from, records] of [[base, batch.slice(0, 3)], [base + 60_000, batch.slice(3)]] as const) {
          const expected = new Rollup();
          for (const r of records) if (r.kind === 'observation') expected.add(r.sample!);
          const read = await store.rollups.rollup(c.seq, 'minute', [[from, from + 60_000]]);
          assert.deepEqual(rowOf(read), rowOf(expected), `the minute at ${from - base} ms`);
        }
      }
    });

    withStore('passkeys: insert, list per member, find by credential id, rename, record a use, delete', async (store) => {
      const user = await member(store);
      const other = await member(store);
      const first: PasskeyRow = {
        id: id('pk'), userId: user, credentialId: 'cred-AAAA', publicKey: Buffer.from([1, 2, 3]), counter: 0,
        transports: ['internal', 'hybrid'], name: 'laptop', backedUp: true, createdAt: T, lastUsedAt: null,
      };
      const second: PasskeyRow = { ...first, id: id('pk'), credentialId: 'cred-BBBB', transports: [], name: 'key', backedUp: false, createdAt: T + 1 };
      await store.passkeys.insert(first);
      await store.passkeys.insert(second);
      await assert.rejects(async () => store.passkeys.insert({ ...first, id: id('pk'), userId: other }), 'a credential id belongs to one passkey');
      assert.deepEqual(await store.passkeys.listForUser(user), [first, second]);
      assert.deepEqual(await store.passkeys.listForUser(other), []);
      assert.deepEqual(await store.passkeys.byCredentialId('cred-BBBB'), second);
      assert.equal(await store.passkeys.byCredentialId('cred-CCCC'), null);

      assert.equal(await store.passkeys.rename(first.id, other, 'stolen'), false, 'only its own member renames it');
      assert.equal(await store.passkeys.rename(first.id, user, 'work laptop'), true);
      await store.passkeys.recordUse(first.id, 7, T + 5_000);
      assert.deepEqual(await store.passkeys.byCredentialId(first.credentialId), { ...first, name: 'work laptop', counter: 7, lastUsedAt: T + 5_000 });

      assert.equal(await store.passkeys.delete(first.id, other), false, 'only its own member removes it');
      assert.equal(await store.passkeys.delete(first.id, user), true);
      assert.equal(await store.passkeys.delete(first.id, user), false);
      assert.deepEqual((await store.passkeys.listForUser(user)).map((p) => p.id), [second.id]);
      await store.users.delete(user);
      assert.equal(await store.passkeys.byCredentialId(second.credentialId), null, 'a removed member\'s passkeys go with them');
    });

    withStore('single sign-on identities: one per (issuer, subject), one per member per issuer; found by subject, used, removed', async (store) => {
      const user = await member(store);
      const other = await member(store);
      const idp = 'https://idp.example.com';
      const first: IdentityRow = { id: id('idn'), userId: user, issuer: idp, subject: 'sub-1', email: 'a@example.com', createdAt: T, lastUsedAt: null };
      const second: IdentityRow = { ...first, id: id('idn'), issuer: 'https://other-idp.example.com', createdAt: T + 1 };
      assert.equal(await store.identities.insert(first), true);
      assert.equal(await store.identities.insert(second), true, 'the same subject at another issuer is another identity');
      assert.equal(await store.identities.insert({ ...first, id: id('idn'), userId: other }), false, 'an (issuer, subject) binds one member');
      assert.equal(await store.identities.insert({ ...first, id: id('idn'), subject: 'sub-2' }), false, 'a member has one identity per issuer');
      assert.deepEqual(await store.identities.listForUser(user), [first, second]);
      assert.deepEqual(await store.identities.listForUser(other), [], 'a refused insert wrote nothing');
      assert.deepEqual(await store.identities.bySubject(idp, 'sub-1'), first);
      assert.equal(await store.identities.bySubject(idp, 'sub-2'), null);
      assert.equal(await store.identities.bySubject('https://idp.example.com/', 'sub-1'), null, 'issuers are compared exactly');

      await store.identities.recordUse(first.id, 'new@example.com', T + 5_000);
      assert.deepEqual(await store.identities.bySubject(idp, 'sub-1'), { ...first, email: 'new@example.com', lastUsedAt: T + 5_000 });

      assert.equal(await store.identities.delete(first.id, other), false, 'only its own member removes it');
      assert.equal(await store.identities.delete(first.id, user), true);
      assert.equal(await store.identities.delete(first.id, user), false);
      assert.equal(await store.identities.insert({ ...first, id: id('idn'), userId: other }), true, 'a removed binding frees its subject');
      await store.users.delete(user);
      assert.deepEqual(await store.identities.listForUser(user), [], "a removed member's identities go with them");
      assert.equal(await store.identities.bySubject(second.issuer, second.subject), null);
    });

    withStore('sign-in challenges: taken once, by their purpose, before they expire; pruned after', async (store) => {
      const row: AuthChallengeRow = { hash: hash('challenge-1'), purpose: 'passkey.sign_in', userId: null, data: '{"c":1}', createdAt: T, expiresAt: T + 60_000 };
      await store.passkeys.insertChallenge(row);
      await store.passkeys.insertChallenge({ ...row, hash: hash('challenge-2'), purpose: 'oidc', userId: await member(store) });
      await store.passkeys.insertChallenge({ ...row, hash: hash('challenge-3'), expiresAt: T + 10 });
      assert.equal(await store.passkeys.takeChallenge(row.hash, 'oidc', T), null, 'another purpose does not take it');
      assert.deepEqual(await store.passkeys.takeChallenge(row.hash, 'passkey.sign_in', T + 1), row);
      assert.equal(await store.passkeys.takeChallenge(row.hash, 'passkey.sign_in', T + 2), null, 'single use');
      assert.equal(await store.passkeys.takeChallenge(hash('challenge-3'), 'passkey.sign_in', T + 10), null, 'expired');
      assert.equal(await store.passkeys.pruneChallenges(T + 60_000), 2);
      assert.equal(await store.passkeys.takeChallenge(hash('challenge-2'), 'oidc', T), null, 'pruned');
    });

    withStore('cluster: join with epochs, renew, claim, release, leave; a stale epoch changes nothing', async (store) => {
      const lease = 15_000;
      const a = { name: 'central-a', epoch: await store.cluster.join('central-a', '1.0.0', T, lease) };
      const b = { name: 'central-b', epoch: await store.cluster.join('central-b', '1.0.0', T, lease) };
      assert.equal(a.epoch, 1);
      assert.equal((await store.cluster.claimable(T)).length, 1024, 'every slot starts free');
      assert.deepEqual(await store.cluster.claim(a, [0, 1, 2], T, lease), [0, 1, 2]);
      assert.deepEqual(await store.cluster.claim(b, [2, 3], T, lease), [3], 'a slot held by a live lease is not taken');
      assert.deepEqual(await store.cluster.renew(a, T + 4_000, lease, 7), [0, 1, 2]);
      assert.deepEqual((await store.cluster.live(T + 4_000)).map((i) => [i.name, i.checks, i.renewals]), [['central-a', 7, 1], ['central-b', 0, 0]]);
      // b's lease (from T) has run out at T + lease; a's (renewed at T + 4 s) runs on.
      assert.deepEqual((await store.cluster.live(T + lease)).map((i) => i.name), ['central-a']);
      assert.equal(await store.cluster.holds(b, T + lease), false);
      assert.equal(await store.cluster.holds(a, T + lease), true);
      assert.ok((await store.cluster.claimable(T + lease)).includes(3), "b's slot is claimable once its lease ended");
      assert.deepEqual(await store.cluster.claim(a, [3], T + lease, lease), [3]);
      assert.deepEqual(await store.cluster.renew(b, T + lease, lease, 0), [], 'b lost its slot to a');
      // The same name joining again supersedes the running process: its epoch is stale.
      const a2 = { name: 'central-a', epoch: await store.cluster.join('central-a', '1.0.1', T + lease, lease) };
      assert.equal(a2.epoch, 2);
      assert.equal(await store.cluster.renew(a, T + lease + 1, lease, 0), null);
      assert.equal(await store.cluster.holds(a, T + lease + 1), false);
      assert.deepEqual(await store.cluster.claim(a, [5], T + lease + 1, lease), [], 'a stale epoch claims nothing');
      await store.cluster.release(a, [0]);
      assert.ok(!(await store.cluster.claimable(T + lease + 1)).includes(0), 'a stale epoch releases nothing');
      assert.deepEqual(await store.cluster.claim(a2, [0], T + lease + 1, lease), [], 'still held by the old epoch until its lease ends');
      assert.deepEqual(await store.cluster.claim(a2, [0, 1], T + 2 * lease + 4_000, lease), [0, 1]);
      await store.cluster.release(a2, [1]);
      assert.ok((await store.cluster.claimable(T + 2 * lease + 4_000)).includes(1));
      await store.cluster.leave(a2, T + 2 * lease + 5_000);
      assert.deepEqual(await store.cluster.live(T + 2 * lease + 5_000), [], 'neither runs: a left, b stopped renewing');
      assert.equal((await store.cluster.claimable(T + 2 * lease + 5_000)).includes(0), true, 'leaving releases every slot');
      const all = await store.cluster.all();
      assert.deepEqual(all.map((i) => [i.name, i.epoch, i.version]), [['central-a', 2, '1.0.1'], ['central-b', 1, '1.0.0']]);
      assert.equal(all[0]!.lastSeenAt, T + 2 * lease + 5_000);
    });

    withStore('cluster: a batch fenced by a holder whose lease ended, or whose epoch is stale, writes nothing', async (store) => {
      const { c } = await seeded(store);
      const lease = 15_000;
      const holder = { name: 'central-a', epoch: await store.cluster.join('central-a', '1.0.0', T, lease) };
      const failures: unknown[] = [];
      await store.applyWrites([result(c, T + 1_000, true)], (_r, err) => failures.push(err), { holder, now: T + 1_000 });
      assert.equal((await store.history.forCheck(c.seq, 10)).length, 1, 'the holder of a running lease writes');
      await assert.rejects(
        async () => store.applyWrites([result(c, T + lease, true)], (_r, err) => failures.push(err), { holder, now: T + lease }),
        StaleOwner,
      );
      await store.cluster.join('central-a', '1.0.1', T + 2_000, lease);
      await assert.rejects(
        async () => store.applyWrites([result(c, T + 3_000, true)], (_r, err) => failures.push(err), { holder, now: T + 3_000 }),
        StaleOwner,
        'a superseded epoch',
      );
      assert.equal((await store.history.forCheck(c.seq, 10)).length, 1, 'nothing of a refused batch was written');
      assert.deepEqual(failures, []);
    });

    withStore('cluster: a fenced batch of current results (the group commit at its fastest) writes while the lease holds, nothing after', async (store) => {
      const { c } = await seeded(store);
      const lease = 15_000;
      const now = Date.now();
      const holder = { name: 'central-a', epoch: await store.cluster.join('central-a', '1.0.0', now, lease) };
      const failures: unknown[] = [];
      await store.applyWrites([result(c, now, true), result(c, now + 1, false)], (_r, err) => failures.push(err), { holder, now });
      assert.equal((await store.history.forCheck(c.seq, 10)).length, 2, 'the holder of a running lease writes');
      await assert.rejects(
        async () => store.applyWrites([result(c, now + 2, true)], (_r, err) => failures.push(err), { holder, now: now + lease }),
        StaleOwner,
      );
      await store.cluster.join('central-a', '1.0.1', now + 1_000, lease);
      await assert.rejects(
        async () => store.applyWrites([result(c, now + 3, true)], (_r, err) => failures.push(err), { holder, now: now + 2_000 }),
        StaleOwner,
        'a superseded epoch',
      );
      assert.equal((await store.history.forCheck(c.seq, 10)).length, 2, 'nothing of a refused batch was written');
      const totals = await store.rollups.totals(c.seq, 'minute', [[now - (now % 60_000), now - (now % 60_000) + 120_000]]);
      assert.equal(totals.total, 2, 'nor added to the rollups');
      assert.deepEqual(failures, []);
    });

    withStore('ping inbox: a ping kept for the owner of its slot, taken by slot, gone with the write that records it', async (store) => {
      const { c } = await seeded(store);
      const ping = { checkId: c.id, slot: 7, at: T + 1_000, signal: 'ping' as const, error: null, details: { duration: 12 }, region: 'eu', receivedBy: 'central-b' };
      await store.applyWrites([{ kind: 'ping-inbox', item: ping }, { kind: 'ping-inbox', item: { ...ping, slot: 9, at: T + 2_000, signal: 'fail', error: 'boom' } }], () => assert.fail());
      assert.deepEqual(await store.pingInbox.take([8], 10), []);
      const [taken] = await store.pingInbox.take([7, 8], 10);
      assert.deepEqual({ ...taken!, seq: 0 }, { ...ping, seq: 0 });
      assert.equal((await store.pingInbox.take([7, 9], 10)).length, 2);
      const record = result(c, T + 1_000, true);
      await store.applyWrites([{ ...record, inboxSeq: taken!.seq } as WriteRecord], () => assert.fail());
      assert.deepEqual((await store.pingInbox.take([7, 9], 10)).map((p) => p.signal === 'result' ? null : p.error), ['boom'], 'recorded once: it left the inbox with its write');
    });

    withStore('inbox: a prober node’s result handed to its owner with the node’s cursor, exactly once', async (store) => {
      const { c } = await seeded(store);
      const node = { id: id('nod'), name: 'edge', region: 'eu-1', createdAt: T, revokedAt: null };
      await store.nodes.insert(node, hash(node.id));
      const probe = { ok: false, statusCode: 503, responseTime: 40, timing: null, error: 'HTTP 503', snippet: 'busy', ssl: null, location: null, startedAt: T + 1_000 };
      const item = { checkId: c.id, slot: 3, at: probe.startedAt, signal: 'result' as const, result: probe, region: 'eu-1', receivedBy: 'central-a' };
      const handed = (seq: number): WriteRecord => ({ kind: 'ping-inbox', item, nodeCursor: { kind: 'node-cursor', nodeId: node.id, cursor: { epoch: 'e1', seq } } });
      // The handing over and the cursor commit together, or neither does.
      factory.failNextCommit(store);
      await assert.rejects(async () => store.applyWrites([handed(4)], () => assert.fail()));
      assert.deepEqual(await store.pingInbox.take([3], 10), [], 'a failed commit hands nothing over');
      assert.deepEqual(await store.nodes.cursor(node.id), { epoch: null, seq: 0 }, 'and moves no cursor');
      await store.applyWrites([handed(4), { kind: 'node-cursor', nodeId: node.id, cursor: { epoch: 'e1', seq: 5 } }], () => assert.fail());
      assert.deepEqual(await store.nodes.cursor(node.id), { epoch: 'e1', seq: 5 }, 'cursor writes apply in batch order');
      const [taken, ...more] = await store.pingInbox.take([3], 10);
      assert.deepEqual(more, []);
      assert.deepEqual({ ...taken!, seq: 0 }, { ...item, seq: 0 }, 'the result comes back as it went in');
      // The owner's write records it and removes it; an entry whose check is no longer probed leaves with an empty write.
      await store.applyWrites([handed(6)], () => assert.fail());
      const [, second] = await store.pingInbox.take([3], 10);
      await store.applyWrites([{ ...result(c, T + 1_000, false), inboxSeq: taken!.seq } as WriteRecord], () => assert.fail());
      await store.applyWrites([{
        kind: 'observation', checkId: c.id, checkSeq: 0, at: T, result: null, event: null, sample: null, sampleAt: T, runtime: null,
        statusChange: null, verifyStatus: null, endMaintenance: null, domain: null, domainMemory: null, inboxSeq: second!.seq,
      }], () => assert.fail());
      assert.deepEqual(await store.pingInbox.take([3], 10), [], 'each left with its write');
      assert.equal((await store.history.forCheck(c.seq, 10)).length, 1, 'recorded once');
    });
  });
}
