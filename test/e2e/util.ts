import assert from 'node:assert/strict';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import type { TestResponse, TestServer } from '../helpers/server.js';

/** Shared helpers of the end-to-end suite (not a test file itself). */

/**
 * These suites test the API contract, not monitoring: the probe wheel is not ticked, so no probe
 * runs and a check's status moves only when a test sets it.
 */
export const NO_PROBES = { autoTick: false } as const;

export const KEY_PATTERN = /^vigil_live_[0-9a-f]{64}$/;
export const ISO_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

let seq = 0;
/** A unique e-mail address per call, so accounts never collide inside one data directory. */
export function uniqueEmail(prefix = 'user'): string {
  return `${prefix}-${process.pid}-${++seq}@example.com`;
}

export interface Actor {
  accountId: string;
  keyId: string;
  key: string;
}

/** A new account with one key, through the same service the CLI uses. */
export async function newAccount(
  server: TestServer,
  opts: { tier?: 'free' | 'indie' | 'nano' | 'pro'; scopes?: string[]; checkIds?: string[]; folders?: string[]; expiresAt?: string } = {},
): Promise<Actor> {
  const accounts = server.app.services.accounts.accounts;
  const account = await accounts.createAccount(uniqueEmail(opts.tier ?? 'free'), opts.tier ?? 'free');
  const key = await accounts.createKey({
    account: account.id,
    scopes: opts.scopes ?? ['checks:read', 'checks:write', 'checks:delete'],
    checkIds: opts.checkIds,
    folders: opts.folders,
    expiresAt: opts.expiresAt,
  });
  return { accountId: account.id, keyId: key.id, key: key.key };
}

/** Another key on an existing account. */
export async function newKey(
  server: TestServer,
  accountId: string,
  opts: { scopes?: string[]; checkIds?: string[]; folders?: string[]; expiresAt?: string } = {},
): Promise<{ id: string; key: string }> {
  const k = await server.app.services.accounts.accounts.createKey({ account: accountId, ...opts });
  return { id: k.id, key: k.key };
}

/** Asserts the status and the standard error body `{error: {code: <status>, message}}`. */
export function assertError(res: TestResponse, status: number, messageIncludes?: string | RegExp): void {
  assert.equal(res.status, status, `expected ${status}, got ${res.status}: ${short(res.text)}`);
  assert.ok(res.body && typeof res.body === 'object', `error body is JSON: ${res.text}`);
  assert.deepEqual(Object.keys(res.body), ['error'], `error body has only "error": ${res.text}`);
  assert.equal(res.body.error.code, status, `error.code equals the HTTP status: ${res.text}`);
  assert.equal(typeof res.body.error.message, 'string');
  assert.ok(res.body.error.message.length > 0, 'error.message is not empty');
  if (messageIncludes !== undefined) {
    if (typeof messageIncludes === 'string') assert.ok(res.body.error.message.includes(messageIncludes), res.body.error.message);
    else assert.match(res.body.error.message, messageIncludes);
  }
}

/** A 401 in the standard shape, with a Bearer challenge. */
export function assert401(res: TestResponse): void {
  assertError(res, 401);
  const challenge = res.headers.get('www-authenticate');
  assert.ok(challenge && challenge.length > 0, '401 carries WWW-Authenticate');
  assert.match(challenge!, /^Bearer\b/i);
}

/** Asserts a 2xx status with a readable failure message. */
export function assertStatus(res: TestResponse, status: number): void {
  assert.equal(res.status, status, `expected ${status}, got ${res.status}: ${short(res.text)}`);
}

/** A response text cut for assertion messages. */
export function short(text: string, max = 400): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}

/** Creates a check and returns its id (the helper supplies a fresh Idempotency-Key). */
export async function createCheck(server: TestServer, body: Record<string, unknown>, key?: string): Promise<string> {
  const res = await server.request('POST', '/v1/public/checks', { body, key });
  assertStatus(res, 201);
  assert.equal(typeof res.body.data.id, 'string');
  return res.body.data.id as string;
}

/** A request without any of the helper's conveniences (no automatic Idempotency-Key). */
export async function rawRequest(
  server: TestServer,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<TestResponse> {
  const res = await fetch(server.url + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/**
 * Sets a check's probe status the way the engine records it (the engine itself is not part of
 * these tests), through the store so its record cache stays coherent.
 */
export async function setMonitorStatus(server: TestServer, id: string, status: 'pending' | 'up' | 'down'): Promise<void> {
  const checks = server.app.store.checks;
  const check = await checks.byId(id);
  assert.ok(check, `check ${id} exists`);
  // The engine's write path when the store has one (it keeps the record cache coherent);
  // otherwise the column itself.
  const repo = checks as unknown as { saveRuntime?: (id: string, runtime: Record<string, unknown>) => void };
  if (typeof repo.saveRuntime === 'function') repo.saveRuntime(id, { ...check, status, sync: null, statusChanged: check.status !== status });
  else server.app.store.db.prepare('UPDATE checks SET status = ? WHERE id = ?').run(status, id);
  assert.equal((await checks.byId(id))!.status, status);
}

/**
 * Runs SQL against the server's database from a second connection, as another process (the CLI)
 * would: caches validated by the database's data_version see the change.
 */
export async function externalWrite(server: TestServer, sql: string, ...params: unknown[]): Promise<void> {
  const store = openSqliteStore(server.dataDir, { guest: true });
  try {
    const info = store.db.prepare(sql).run(...params);
    assert.ok(info.changes > 0, `no row changed by ${sql}`);
  } finally {
    await store.close();
  }
}
