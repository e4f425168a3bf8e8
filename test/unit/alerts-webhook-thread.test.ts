import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebhookThread } from '../../src/alerts/delivery/webhook-thread.js';
import { WebhookUnreachable } from '../../src/alerts/delivery/webhook-client.js';
import type { AlertContent } from '../../src/alerts/alert-content.js';

const options = { timeoutMs: 60_000, blockPrivateAddresses: false, subscriberBlockPrivateAddresses: true, connectionsPerOrigin: 4 };
const content = JSON.stringify({
  event: 'website_down', test: true, at: 0,
  check: { id: 'chk_00000000000000000000', name: 'c', url: 'http://127.0.0.1/', type: 'website', status: 'down' },
  previousStatus: 'up',
  details: { statusCode: 500, responseTime: null, error: null, region: null, regions: null },
  ssl: null, domain: null,
} satisfies AlertContent);

/** A receiver that takes requests and never answers them; `arrived` resolves at the first one. */
async function silentReceiver() {
  const held: ServerResponse[] = [];
  let arrive!: () => void;
  const arrived = new Promise<void>((r) => (arrive = r));
  const server = createServer((_req: IncomingMessage, res) => {
    held.push(res);
    arrive();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const close = () => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  };
  return { url, arrived, close };
}

describe('the delivery worker thread stops', () => {
  // The worker is unref'd; with nothing else alive, a close that waited on its exit without
  // holding the loop open let the process end mid-stop (the runner cancels such a test).
  test('close() of a warm worker resolves with nothing else keeping the process alive', async () => {
    const thread = new WebhookThread(options);
    thread.warm();
    await thread.close();
  });

  /** Sends to a receiver that never answers, closes once it holds the request, returns the send's outcome. */
  async function closeWithOneInFlight(closeGraceMs?: number): Promise<unknown> {
    const receiver = await silentReceiver();
    try {
      const thread = new WebhookThread(options, closeGraceMs);
      const sent = thread.send({ url: receiver.url, webhookType: 'generic', secret: null }, content, 'd1');
      const outcome = sent.then(() => null, (err: unknown) => err);
      await receiver.arrived;
      await thread.close();
      return await outcome;
    } finally {
      await receiver.close();
    }
  }

  test('a delivery in flight at close is rejected as unreachable (it stays pending and is retried), and close resolves', async () => {
    assert.ok((await closeWithOneInFlight()) instanceof WebhookUnreachable);
  });

  test('a worker that has not exited within the grace is terminated; the delivery it held is rejected', async () => {
    assert.ok((await closeWithOneInFlight(0)) instanceof WebhookUnreachable);
  });
});
