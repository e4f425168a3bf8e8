import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import { errors } from '../domain/errors.js';
import { decodeCursor, pageOf, type PageMeta, type PageRequest } from './pagination.js';
import type { KeyAccess } from '../domain/records.js';
import type { Store } from '../store/store.js';
import { AuditLog, type AuditSource } from './audit-log.js';
import type { AlertContent } from '../alerts/alert-content.js';
import type { Delivery, DeliveryFilter, DeliveryQueue, WebhookRepo } from '../store/alert-store.js';
import type { DeliverySender } from '../alerts/delivery/sender.js';
import { cutUrl } from '../alerts/webhook-url.js';

/** What the delivery log shows of one delivery (issue 17): never a full webhook URL. */
export interface DeliveryEntry {
  id: string;
  event: Delivery['event'];
  reminder: boolean;
  checkId: string;
  channel: Delivery['channel'];
  webhookId: string | null;
  /** The webhook's URL cut to scheme and host, or the email recipient. */
  target: string;
  status: 'pending' | 'delivered' | 'failed' | 'cancelled';
  attempts: number;
  /** When the next attempt is due (pending only). */
  nextAttemptAt: number | null;
  lastStatus: number | null;
  lastError: string | null;
  retryUntil: number;
  createdAt: number;
  finishedAt: number | null;
}

export interface DeliveryLogQuery {
  status?: DeliveryFilter['status'];
  checkId?: string;
  webhookId?: string;
}

const DELIVERY_ID = /^dlv_[0-9a-f]{20}$/;
const WEBHOOK_ID = /^whk_[0-9a-f]{20}$/;
const isSeq = (v: unknown): v is number => Number.isInteger(v) && (v as number) > 0;

export interface DeliveryLogDeps {
  queue: DeliveryQueue;
  webhooks: Pick<WebhookRepo, 'list'>;
  store: Pick<Store, 'checks' | 'transaction' | 'audit'>;
  sender: Pick<DeliverySender, 'wake' | 'retryUntil'>;
  clock: Clock;
  log: Logger;
}

/** The delivery log and its manual retry: a restricted key sees and retries only its checks' deliveries. */
export class DeliveryLog {
  constructor(private readonly deps: DeliveryLogDeps) {}

  async list(accountId: string, access: KeyAccess | null, query: DeliveryLogQuery, page: PageRequest): Promise<{ data: DeliveryEntry[]; meta: PageMeta }> {
    if (query.webhookId !== undefined && !WEBHOOK_ID.test(query.webhookId)) {
      throw errors.badRequest(`Invalid webhookId: ${JSON.stringify(query.webhookId.slice(0, 60))}`);
    }
    const filter: DeliveryFilter = {
      accountId,
      checkIds: await this.reach(accountId, access),
      ...(query.status ? { status: query.status } : {}),
      ...(query.checkId !== undefined ? { checkId: query.checkId } : {}),
      ...(query.webhookId !== undefined ? { target: query.webhookId } : {}),
    };
    const cursor = page.cursor === undefined ? null : decodeCursor(page.cursor, isSeq);
    const rows = await this.deps.queue.list(filter, {
      limit: page.limit + 1,
      offset: cursor ? 0 : (page.page - 1) * page.limit,
      beforeSeq: cursor?.key ?? null,
    });
    const total = page.includeTotal ? await this.deps.queue.count(filter) : undefined;
    const result = pageOf(rows, { limit: page.limit, page: cursor?.page ?? page.page }, (d) => d.seq, total);
    const urls = await this.webhookUrls(accountId);
    return { data: result.data.map((d) => entry(d, urls)), meta: result.meta };
  }

  /** A failed delivery back in the queue, due now, with a fresh retry window; 409 for any other state. */
  async retry(accountId: string, access: KeyAccess | null, id: string, source: AuditSource): Promise<DeliveryEntry> {
    const d = await this.owned(accountId, access, id);
    if (d.status !== 'failed') throw errors.conflict(`Only a failed delivery can be retried; this one is ${publicStatus(d.status)}`);
    const now = this.deps.clock.now();
    await this.deps.store.transaction(async () => {
      if (!(await this.deps.queue.requeue(d.id, now, this.deps.sender.retryUntil(now)))) {
        throw errors.conflict('The delivery changed meanwhile; read it again');
      }
      await new AuditLog(this.deps.store, this.deps.clock).record(source, accountId, 'delivery.retry', { kind: 'delivery', id: d.id, name: d.checkId }, ['status']);
    });
    this.deps.sender.wake();
    this.deps.log.info({ deliveryId: d.id, checkId: d.checkId }, 'alert delivery requeued');
    return entry((await this.deps.queue.byId(d.id))!, await this.webhookUrls(accountId));
  }

  /** The retry's access checks without acting (an Idempotency-Key replay runs them first). */
  async requireAccess(accountId: string, access: KeyAccess | null, id: string): Promise<void> {
    await this.owned(accountId, access, id);
  }

  private async owned(accountId: string, access: KeyAccess | null, id: string): Promise<Delivery> {
    if (!DELIVERY_ID.test(id)) throw errors.badRequest(`Invalid delivery id: ${JSON.stringify(id.slice(0, 60))}`);
    const d = await this.deps.queue.byId(id);
    if (!d) throw errors.notFound(`Delivery ${id} not found`);
    if (d.accountId !== accountId) throw errors.forbidden('This delivery belongs to another account');
    const reach = await this.reach(accountId, access);
    if (reach !== null && !reach.includes(d.checkId)) throw errors.forbidden('This key is not allowed to access this check');
    return d;
  }

  /** The check ids a restricted key reaches; null when unrestricted. */
  private async reach(accountId: string, access: KeyAccess | null): Promise<string[] | null> {
    if (!access) return null;
    return (await this.deps.store.checks.list({ accountId, access }, { limit: Number.MAX_SAFE_INTEGER, offset: 0, afterSeq: null })).map((c) => c.id);
  }

  private async webhookUrls(accountId: string): Promise<Map<string, string>> {
    return new Map((await this.deps.webhooks.list(accountId)).map((w) => [w.id, cutUrl(w.url)]));
  }
}

function publicStatus(status: Delivery['status']): DeliveryEntry['status'] {
  return status === 'sending' ? 'pending' : status;
}

function entry(d: Delivery, urls: ReadonlyMap<string, string>): DeliveryEntry {
  const status = publicStatus(d.status);
  const content = JSON.parse(d.contentJson) as AlertContent;
  const webhook = d.channel === 'webhook';
  return {
    id: d.id,
    event: d.event,
    reminder: content.reminder !== undefined,
    checkId: d.checkId,
    channel: d.channel,
    webhookId: webhook ? d.target : null,
    target: webhook ? (urls.get(d.target) ?? '(deleted webhook)') : d.target,
    status,
    attempts: d.attempts,
    nextAttemptAt: status === 'pending' ? d.nextAt : null,
    lastStatus: d.lastStatus,
    lastError: d.lastError,
    retryUntil: d.retryUntil,
    createdAt: d.createdAt,
    finishedAt: d.finishedAt,
  };
}
