import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VigilApp } from '../../src/app.js';
import { deepMerge, loadConfig, type ConfigInput } from '../../src/config.js';
import type { Clock } from '../../src/domain/clock.js';
import type { AppOptions } from '../../src/app.js';

export interface TestServer {
  app: VigilApp;
  url: string;
  adminKey: string;
  dataDir: string;
  /** fetch against the server with the admin key unless `key` says otherwise (null: no key). */
  request(method: string, path: string, opts?: RequestOptions): Promise<TestResponse>;
  /** Stops the server; the data directory is removed unless keepData. */
  stop(keepData?: boolean): Promise<void>;
}

export interface RequestOptions {
  key?: string | null;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  // The JSON body as the test reads it; tests assert on its shape.
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  text: string;
}

let counter = 0;

/** Starts a real Vigil on a free loopback port with a fresh data directory. */
export async function startServer(
  overrides: Record<string, unknown> = {},
  clock?: Clock,
  options: Omit<AppOptions, 'clock'> & { dataDir?: string } = {},
): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'vigil-test-'));
  const input = loadConfig({
    // Every test's client is 127.0.0.1: the per-address budget is out of the way unless a test sets it.
    overrides: deepMerge({ server: { host: '127.0.0.1', port: 0 }, dataDir, logLevel: 'silent', rateLimits: { perAddressPerMinute: 1_000_000 } }, overrides),
    warn: () => {},
  }) as ConfigInput;
  const app = new VigilApp(input, { ...options, clock });
  const admin = await app.bootstrapAdmin();
  const { url } = await app.start();
  const adminKey = admin?.key ?? '';
  return {
    app,
    url,
    adminKey,
    dataDir,
    request: (method, path, opts = {}) => send(url, adminKey, method, path, opts),
    async stop(keepData = false) {
      await app.stop();
      if (!keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function send(url: string, defaultKey: string, method: string, path: string, opts: RequestOptions = {}): Promise<TestResponse> {
  const headers: Record<string, string> = { ...opts.headers };
  const key = opts.key === undefined ? defaultKey : opts.key;
  if (key !== null) headers['x-api-key'] = key;
  let body: string | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  if (method === 'POST' && path.startsWith('/v1/public/checks') && !('idempotency-key' in lower(headers))) {
    headers['idempotency-key'] = `test-${process.pid}-${++counter}`;
  }
  const res = await fetch(url + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

const lower = (h: Record<string, string>) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
