import { Worker } from 'node:worker_threads';
import { MisconfiguredWebhook } from './formats/vendor-request.js';
import { WebhookUnreachable, type WebhookClientOptions } from './webhook-client.js';
import type { HookTarget, WebhookPoster } from './webhook-poster.js';
import type { WorkerReply, WorkerRequest } from './webhook-worker.js';

interface Waiting {
  resolve: (status: number) => void;
  reject: (err: Error) => void;
}

/**
 * The main thread's side of the delivery worker (webhook-worker.ts): the stored alert goes over
 * as a message, unparsed, and the receiver's status comes back. A worker that dies fails what it held (the sender retries)
 * and is started again on the next request.
 */
export class WebhookThread implements WebhookPoster {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;

  constructor(private readonly options: WebhookClientOptions) {}

  /** Starts the worker ahead of the first alert, so a first burst does not wait for it to load. */
  warm(): void {
    this.start();
  }

  send(hook: HookTarget, contentJson: string, deliveryId: string, signal?: AbortSignal): Promise<number> {
    if (signal?.aborted) return Promise.reject(new WebhookUnreachable('aborted'));
    const worker = this.start();
    const id = this.nextId++;
    const onAbort = () => worker.postMessage({ kind: 'abort', id } satisfies WorkerRequest);
    signal?.addEventListener('abort', onAbort, { once: true });
    return new Promise<number>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      const target: HookTarget = { url: hook.url, webhookType: hook.webhookType, secret: hook.secret };
      worker.postMessage({ kind: 'send', id, hook: target, contentJson, deliveryId } satisfies WorkerRequest);
    }).finally(() => signal?.removeEventListener('abort', onAbort));
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (!worker) return;
    const exited = new Promise<void>((r) => worker.once('exit', () => r()));
    worker.postMessage({ kind: 'close' } satisfies WorkerRequest);
    await exited;
    this.failAll('the delivery worker stopped');
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL('./webhook-worker.js', import.meta.url), { workerData: this.options });
    worker.unref();
    worker.on('message', (m: WorkerReply) => {
      const w = this.waiting.get(m.id);
      if (!w) return;
      this.waiting.delete(m.id);
      if ('status' in m) w.resolve(m.status);
      else w.reject(m.misconfigured ? new MisconfiguredWebhook(m.error) : new WebhookUnreachable(m.error));
    });
    const lost = () => {
      if (this.worker === worker) this.worker = null;
      this.failAll('the delivery worker stopped');
    };
    worker.on('error', lost);
    worker.on('exit', lost);
    this.worker = worker;
    return worker;
  }

  private failAll(reason: string): void {
    for (const w of this.waiting.values()) w.reject(new WebhookUnreachable(reason));
    this.waiting.clear();
  }
}
