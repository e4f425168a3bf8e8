import { Worker } from 'node:worker_threads';
import { MisconfiguredWebhook } from '../formats/vendor-request.js';
import { WebhookUnreachable, type ReceiverAnswer } from './webhook-client.js';
import type { HookTarget, WebhookPoster } from './webhook-poster.js';
import type { WebhookClientOptions } from './webhook-client.js';
import type { SendRequest, WorkerReply, WorkerRequest } from './webhook-worker.js';
import { bundledFile } from '../../util/bundled-file.js';
import { RequestChannel } from '../../util/request-channel.js';

/**
 * The main thread's side of the delivery worker (webhook-worker.ts): stored alerts go over
 * unparsed, a turn's worth per message, and the receivers' statuses come back the same way.
 * A worker that dies fails what it held (the sender retries) and starts again on the next send.
 */
export class WebhookThread implements WebhookPoster {
  private worker: Worker | null = null;
  private readonly channel = new RequestChannel<ReceiverAnswer>();
  /** Sends of this turn, posted together in one message. */
  private outbox: SendRequest[] = [];

  /** `closeGraceMs`: how long close() waits for the worker to exit before terminating it. */
  constructor(
    private readonly options: WebhookClientOptions,
    private readonly closeGraceMs = 2_000,
  ) {}

  /** Whether the worker thread is up. */
  get running(): boolean {
    return this.worker !== null;
  }

  /** Starts the worker ahead of the first alert, so a first burst does not wait for it to load. */
  warm(): void {
    this.start();
  }

  send(hook: HookTarget, contentJson: string, deliveryId: string, signal?: AbortSignal): Promise<ReceiverAnswer> {
    if (signal?.aborted) return Promise.reject(new WebhookUnreachable('aborted'));
    const worker = this.start();
    let id = 0;
    const onAbort = () => {
      const queued = this.outbox.findIndex((s) => s.id === id);
      if (queued === -1) worker.postMessage({ kind: 'abort', id } satisfies WorkerRequest);
      else {
        this.outbox.splice(queued, 1);
        this.settle({ id, error: 'aborted', misconfigured: false });
      }
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const target: HookTarget = { url: hook.url, webhookType: hook.webhookType, secret: hook.secret, refusePrivate: hook.refusePrivate ?? null };
    return this.channel
      .request(undefined, (requestId) => {
        id = requestId;
        if (this.outbox.length === 0) setImmediate(() => this.flush());
        this.outbox.push({ id, hook: target, contentJson, deliveryId });
      })
      .finally(() => signal?.removeEventListener('abort', onAbort));
  }

  private flush(): void {
    const batch = this.outbox;
    this.outbox = [];
    if (batch.length === 0) return;
    if (this.worker) this.worker.postMessage({ kind: 'send', batch } satisfies WorkerRequest);
    else for (const s of batch) this.settle({ id: s.id, error: 'the delivery worker stopped', misconfigured: false });
  }

  private settle(m: WorkerReply): void {
    if ('answer' in m) this.channel.resolve(m.id, m.answer);
    else this.channel.reject(m.id, m.misconfigured ? new MisconfiguredWebhook(m.error) : new WebhookUnreachable(m.error));
  }

  /**
   * Aborts what the worker holds (the sender has already put those rows back to pending, so a
   * restart retries them) and waits for it to exit. The worker is unref'd so that an idle one
   * never holds the process open; it is ref'd again here, or the event loop could drain while
   * the stop still waits for its exit and the process would end mid-stop. A worker still there
   * after the grace is terminated.
   */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (!worker) return;
    worker.ref();
    const exited = new Promise<'exited'>((r) => worker.once('exit', () => r('exited')));
    worker.postMessage({ kind: 'close' } satisfies WorkerRequest);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), this.closeGraceMs)));
    if ((await Promise.race([exited, late])) === 'late') await worker.terminate();
    clearTimeout(timer);
    this.channel.rejectAll(new WebhookUnreachable('the delivery worker stopped'));
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(bundledFile('webhook-worker', new URL('./webhook-worker.js', import.meta.url)), { workerData: this.options });
    worker.unref();
    worker.on('message', (replies: WorkerReply[]) => {
      for (const m of replies) this.settle(m);
    });
    const lost = () => {
      if (this.worker === worker) this.worker = null;
      this.channel.rejectAll(new WebhookUnreachable('the delivery worker stopped'));
    };
    worker.on('error', lost);
    worker.on('exit', lost);
    this.worker = worker;
    return worker;
  }
}
