import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../src/domain/clock.js';
import { ApiError } from '../../src/domain/errors.js';
import { hashSecret } from '../../src/domain/secrets.js';
import { OAuthBearerResolver } from '../../src/oauth/bearer-resolver.js';
import type { OAuthRepo } from '../../src/store/oauth-repo.js';
import { TokenService } from '../../src/oauth/token-service.js';
import { SIGNUP_SCOPES } from '../../src/oauth/tokens.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/index.js';

/** TokenService and the bearer resolver over an in-memory store, on a fake clock. */

const DAY = 24 * 60 * 60 * 1000;
let store: SqliteStore;
let repo: OAuthRepo;
let clock: ManualClock;
let tokens: TokenService;
let accountId: string;

beforeEach(async () => {
  store = openSqliteStore(':memory:');
  repo = store.oauth;
  clock = new ManualClock(Date.UTC(2026, 0, 1));
  tokens = new TokenService(store, repo, clock);
  accountId = 'acc_unit';
  await store.accounts.insert({ id: accountId, email: 'agent@example.com', tier: 'free', maxChecksOverride: null, claimed: false, createdAt: clock.now() });
});
afterEach(() => store.close());

const issue = () => store.transaction(() => tokens.issueGrant(accountId, SIGNUP_SCOPES));

async function oauthCode(fn: () => unknown): Promise<string> {
  try {
    await fn();
  } catch (err) {
    assert.ok(err instanceof ApiError);
    assert.equal(err.shape, 'oauth');
    assert.equal(err.headers['Cache-Control'], 'no-store');
    return err.code;
  }
  assert.fail('expected an OAuth error');
}

describe('storage', () => {
  test('tokens are stored as SHA-256 only', async () => {
    const pair = await issue();
    const rows = store.db.prepare('SELECT token_hash FROM oauth_tokens').all() as Array<{ token_hash: Buffer }>;
    assert.equal(rows.length, 2);
    const hashes = rows.map((r) => r.token_hash.toString('hex')).sort();
    assert.deepEqual(hashes, [hashSecret(pair.access_token), hashSecret(pair.refresh_token)].map((h) => h.toString('hex')).sort());
    const dump = JSON.stringify(store.db.prepare('SELECT * FROM oauth_tokens').all());
    assert.ok(!dump.includes(pair.access_token.slice(9)) && !dump.includes(pair.refresh_token.slice(9)), 'no secret in plain text');
  });
});

describe('authenticate', () => {
  test('an access token resolves to its grant and scopes until it expires', async () => {
    const pair = await issue();
    const access = await tokens.authenticate(pair.access_token);
    assert.ok(access);
    assert.equal(access.accountId, accountId);
    assert.deepEqual(access.scopes, SIGNUP_SCOPES);
    assert.match(access.grantId, /^grt_/);
    clock.advance(30 * DAY - 1);
    assert.ok((await tokens.authenticate(pair.access_token)));
    clock.advance(1);
    assert.equal((await tokens.authenticate(pair.access_token)), null);
  });

  test('a refresh token does not authenticate', async () => {
    assert.equal((await tokens.authenticate((await issue()).refresh_token)), null);
  });
});

describe('refresh', () => {
  test('rotation spends the old refresh token; reuse revokes the grant', async () => {
    const first = await issue();
    const second = await tokens.refresh({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
    const third = await tokens.refresh({ grant_type: 'refresh_token', refresh_token: second.refresh_token });
    assert.ok((await tokens.authenticate(third.access_token)));
    assert.equal(await oauthCode(() => tokens.refresh({ grant_type: 'refresh_token', refresh_token: first.refresh_token })), 'invalid_grant');
    assert.equal((await tokens.authenticate(third.access_token)), null, 'the revocation was committed though the request failed');
    assert.equal((await tokens.authenticate(first.access_token)), null);
    assert.equal(await oauthCode(() => tokens.refresh({ grant_type: 'refresh_token', refresh_token: third.refresh_token })), 'invalid_grant');
  });

  test('a refresh token lasts 180 days from its own issue', async () => {
    const first = await issue();
    clock.advance(170 * DAY);
    const second = await tokens.refresh({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
    clock.advance(170 * DAY);
    const third = await tokens.refresh({ grant_type: 'refresh_token', refresh_token: second.refresh_token });
    clock.advance(180 * DAY);
    assert.equal(await oauthCode(() => tokens.refresh({ grant_type: 'refresh_token', refresh_token: third.refresh_token })), 'invalid_grant');
  });

  test('RFC 6749 request errors', async () => {
    assert.equal(await oauthCode(() => tokens.refresh({})), 'invalid_request');
    assert.equal(await oauthCode(() => tokens.refresh({ grant_type: '' })), 'invalid_request');
    assert.equal(await oauthCode(() => tokens.refresh({ grant_type: 'implicit' })), 'unsupported_grant_type');
    assert.equal(await oauthCode(() => tokens.refresh({ grant_type: 'refresh_token', refresh_token: '' })), 'invalid_request');
  });

  test('a deleted account takes its tokens with it', async () => {
    const pair = await issue();
    await store.accounts.delete(accountId);
    assert.equal((await tokens.authenticate(pair.access_token)), null);
    assert.equal(await oauthCode(() => tokens.refresh({ grant_type: 'refresh_token', refresh_token: pair.refresh_token })), 'invalid_grant');
  });

  test('pruning removes expired tokens and grants left empty', async () => {
    const pair = await issue();
    clock.advance(31 * DAY);
    assert.equal((await repo.pruneExpired(clock.now())), 1, 'the access token');
    clock.advance(180 * DAY);
    assert.equal((await repo.pruneExpired(clock.now())), 1, 'the refresh token');
    assert.equal(store.db.prepare('SELECT count(*) FROM oauth_grants').pluck().get(), 0);
    assert.equal(await oauthCode(() => tokens.refresh({ grant_type: 'refresh_token', refresh_token: pair.refresh_token })), 'invalid_grant');
  });
});

describe('bearer resolver', () => {
  test('a bearer principal: signup scopes, unrestricted, key null, the grant as its bucket', async () => {
    const pair = await issue();
    const principal = await new OAuthBearerResolver(store, tokens, clock).resolve(pair.access_token, clock.now());
    assert.ok(principal);
    assert.equal(principal.kind, 'bearer');
    assert.equal(principal.key, null);
    assert.equal(principal.access, null);
    assert.deepEqual(principal.scopes, SIGNUP_SCOPES);
    assert.equal(principal.account.id, accountId);
    assert.equal(principal.credentialId, (await tokens.authenticate(pair.access_token))!.grantId);
  });

  test('cached principals follow revocations, claims and expiry at once', async () => {
    const resolver = new OAuthBearerResolver(store, tokens, clock);
    const pair = await issue();
    assert.equal((await resolver.resolve(pair.access_token, clock.now()))!.account.claimed, false);
    await store.accounts.setClaimed(accountId);
    assert.equal((await resolver.resolve(pair.access_token, clock.now()))!.account.claimed, true, 'a claim is seen');

    const grantId = (await tokens.authenticate(pair.access_token))!.grantId;
    await repo.revokeGrant(grantId, clock.now());
    assert.equal((await resolver.resolve(pair.access_token, clock.now())), null, 'a revocation is seen');

    const other = await issue();
    assert.ok((await resolver.resolve(other.access_token, clock.now())));
    clock.advance(30 * DAY);
    assert.equal((await resolver.resolve(other.access_token, clock.now())), null, 'a cached token still expires');
  });

  test('a write by another connection (the CLI) is seen from the next turn of the event loop', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-oauth-unit-'));
    const a = openSqliteStore(dir);
    const b = openSqliteStore(dir);
    try {
      await a.accounts.insert({ id: 'acc_x', email: 'x@example.com', tier: 'free', maxChecksOverride: null, claimed: false, createdAt: clock.now() });
      const repoA = a.oauth;
      const tokensA = new TokenService(a, repoA, clock);
      const pair = await a.transaction(() => tokensA.issueGrant('acc_x', SIGNUP_SCOPES));
      const resolver = new OAuthBearerResolver(a, tokensA, clock);
      assert.ok((await resolver.resolve(pair.access_token, clock.now())));
      b.db.prepare('UPDATE oauth_grants SET revoked_at = ?').run(clock.now());
      // The version of other connections' writes is read once a turn: a request sent after the
      // CLI committed arrives in a later one.
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal((await resolver.resolve(pair.access_token, clock.now())), null);
    } finally {
      await a.close();
      await b.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
