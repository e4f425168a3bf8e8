import { after, before } from 'node:test';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import type { ManualClock } from '../../src/domain/clock.js';
import type { AppOptions } from '../../src/app.js';
import { assertStatus } from '../e2e/util.js';
import { startReceiver, type Received, type Receiver } from './fixtures/alerts-receiver.js';
import { assertCaTrusted } from './fixtures/alerts-tls.js';
import { startServer, type TestServer } from './server.js';

/** What the alert end-to-end tests share: a wheel round, webhooks and checks made through the API, a logging server. */

/** One round of the wheel at the clock's time, then everything queued sent. */
export async function wheelRound(server: TestServer, clock: ManualClock, advanceMs: number): Promise<void> {
  clock.advance(advanceMs);
  server.app.engine.tick();
  await server.app.engine.idle();
  await server.app.alerts.idle();
}

export const receivedAt = (receiver: Receiver, prefix: string): Received[] => receiver.received.filter((r) => r.path.startsWith(prefix));

export async function createWebhook(server: TestServer, key: string, body: Record<string, unknown>): Promise<string> {
  const res = await server.request('POST', '/v1/public/alerts/webhooks', { key, body: { name: 'hook', ...body } });
  assertStatus(res, 201);
  return res.body.data.id as string;
}

/** A check probed every 3 s that goes down at its first failure. */
export async function createFastCheck(server: TestServer, key: string, url: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await server.request('POST', '/v1/public/checks', { key, body: { url, checkFrequency: 0.05, downConfirmationAttempts: 1, ...extra } });
  assertStatus(res, 201);
  return res.body.data.id as string;
}

/** A server without probes whose log lines are kept (tests look for leaked secrets in them). */
export async function startLoggingServer(options: Omit<AppOptions, 'clock' | 'logger'> = {}): Promise<{ server: TestServer; logLines: string[] }> {
  const logLines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logLines.push(line) });
  const server = await startServer({}, undefined, { autoTick: false, ...options, logger });
  return { server, logLines };
}

export interface ReceiverWorld {
  server: TestServer;
  receiver: Receiver;
  logLines: string[];
}

/** Registers before/after hooks: a local HTTPS receiver and a logging server for the file's tests. */
export function receiverWorld(): ReceiverWorld {
  const world = { logLines: [] } as unknown as ReceiverWorld;
  before(async () => {
    assertCaTrusted();
    world.receiver = await startReceiver();
    Object.assign(world, await startLoggingServer());
  });
  after(async () => {
    await world.server.stop();
    await world.receiver.close();
  });
  return world;
}

/** A local HTTP target whose paths answer 200 until marked unhealthy (then 500): what real probes of a check see. */
export interface SwitchableTarget {
  origin: string;
  /** Paths answering 500. */
  broken: Set<string>;
  close(): Promise<void>;
}

export async function startSwitchableTarget(): Promise<SwitchableTarget> {
  const broken = new Set<string>();
  const server = createServer((req, res) => {
    const ok = !broken.has(req.url ?? '');
    res.writeHead(ok ? 200 : 500).end(ok ? 'ok' : 'broken');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    broken,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A server with real probes at 3 s on the pro plan, a local HTTPS alert receiver and a switchable HTTP target. */
export interface ProbedWorld {
  srv: TestServer;
  receiver: Receiver;
  target: SwitchableTarget;
  close(): Promise<void>;
}

export async function startProbedWorld(clock: ManualClock): Promise<ProbedWorld> {
  assertCaTrusted();
  const receiver = await startReceiver();
  const target = await startSwitchableTarget();
  const srv = await startServer({ plans: { pro: { minCheckIntervalMinutes: 0.05 } } }, clock, { autoTick: false });
  return {
    srv,
    receiver,
    target,
    async close() {
      await srv.stop();
      await receiver.close();
      await target.close();
    },
  };
}
