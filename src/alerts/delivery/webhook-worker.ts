import { parentPort, workerData } from 'node:worker_threads';
import type { AlertContent } from '../alert-content.js';
import { MisconfiguredWebhook } from '../formats/vendor-request.js';
import { WebhookClient, WebhookUnreachable, type ReceiverAnswer, type WebhookClientOptions } from './webhook-client.js';
import type { HookTarget } from './webhook-poster.js';
import { noticeRequest, webhookRequest } from './webhook-request.js';

/**
 * The delivery worker thread: rendering, signing and every webhook POST (TLS, HTTP parsing,
 * the connection pool) run here, so a burst of deliveries takes next to no time from the
 * main thread, where the wheel fires probes (DESIGN: I/O off the main thread).
 */
export interface SendRequest {
  id: number;
  hook: HookTarget;
  contentJson: string;
  deliveryId: string;
}

/** Sends travel in batches, one message per turn of the sending thread's event loop. */
export type WorkerRequest = { kind: 'send'; batch: SendRequest[] } | { kind: 'abort'; id: number } | { kind: 'close' };

export type WorkerReply = { id: number; answer: ReceiverAnswer } | { id: number; error: string; misconfigured: boolean };

const client = new WebhookClient(workerData as WebhookClientOptions);
const running = new Map<number, AbortController>();
const port = parentPort!;
let replies: WorkerReply[] = [];

function reply(r: WorkerReply): void {
  if (replies.length === 0) setImmediate(() => port.postMessage(replies.splice(0)));
  replies.push(r);
}

async function send(m: SendRequest, signal: AbortSignal): Promise<WorkerReply> {
  try {
    const req = m.hook.webhookType === 'subscriber'
      ? noticeRequest(m.hook, m.contentJson, m.deliveryId)
      : webhookRequest(m.hook, JSON.parse(m.contentJson) as AlertContent, m.deliveryId);
    return { id: m.id, answer: await client.post(req, signal, m.hook.refusePrivate ?? null) };
  } catch (err) {
    if (err instanceof MisconfiguredWebhook) return { id: m.id, error: err.message, misconfigured: true };
    return { id: m.id, error: err instanceof WebhookUnreachable ? err.message : 'request failed', misconfigured: false };
  }
}

port.on('message', (m: WorkerRequest) => {
  if (m.kind === 'abort') return void running.get(m.id)?.abort();
  if (m.kind === 'close') {
    for (const c of running.values()) c.abort();
    void client.close().finally(() => port.close());
    return;
  }
  for (const s of m.batch) {
    const controller = new AbortController();
    running.set(s.id, controller);
    void send(s, controller.signal).then((r) => {
      running.delete(s.id);
      reply(r);
    });
  }
});
