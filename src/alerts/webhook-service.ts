import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Clock } from '../domain/clock.js';
import { errors } from '../domain/errors.js';
import type { Account, KeyAccess } from '../domain/records.js';
import { newId } from '../domain/secrets.js';
import { auditEntry, SYSTEM_ACTOR, type ChangeSource } from '../domain/people.js';
import type { Store } from '../store/store.js';
import { testContent } from './alert-content.js';
import { DEFAULT_EVENTS, normalizeEvents } from './alert-events.js';
import type { AlertRouting } from './alert-routing.js';
import type { DeliveryQueue, Webhook, WebhookRepo, WebhookType } from '../store/alert-store.js';
import { DASHBOARD_TEST_ONLY } from './formats/index.js';
import { MisconfiguredWebhook } from './formats/vendor-request.js';
import { WebhookUnreachable } from './delivery/webhook-client.js';
import type { WebhookPoster } from './delivery/webhook-poster.js';
import { detectWebhookType } from './webhook-type.js';
import { assertPublicHost, cutUrl, parseWebhookUrl, webhookUrlKey } from './webhook-url.js';
import type { TargetOptionsInput, TargetOptionsPolicy } from './target-options.js';
import { limitsFor } from '../domain/plans.js';
import { displayName } from '../domain/display-name.js';
import type { OutboundRules } from '../store/outbound-rules.js';

export interface CreateWebhookInput extends TargetOptionsInput {
  url: string;
  name: string;
  events?: string[];
  webhookType?: WebhookType;
  secret?: string;
}

/** A PATCH: only the fields sent change; `secret: null` removes the signing secret. */
export interface UpdateWebhookInput extends Partial<Omit<CreateWebhookInput, 'secret'>> {
  enabled?: boolean;
  secret?: string | null;
}

const WEBHOOK_ID = /^whk_[0-9a-f]{20}$/;

export interface WebhookServiceDeps {
  repo: WebhookRepo;
  queue: DeliveryQueue;
  routing: AlertRouting;
  options: TargetOptionsPolicy;
  client: WebhookPoster;
  store: Pick<Store, 'transaction' | 'afterCommit' | 'audit'>;
  /** The accounts' outbound rules: checked at create time, applied at every delivery (the test one included). */
  outbound: Pick<OutboundRules, 'forAccount'>;
  clock: Clock;
  config: Config;
  log: Logger;
}

/** Spec 4.9: webhooks are account-wide and receive alerts for every check, unless routed (issue 17). */
export class WebhookService {
  constructor(private readonly deps: WebhookServiceDeps) {}

  async list(accountId: string): Promise<Webhook[]> {
    return this.deps.repo.list(accountId);
  }

  async count(accountId: string): Promise<number> {
    return this.deps.repo.count(accountId);
  }

  async create(account: Account, input: CreateWebhookInput, access: KeyAccess | null = null, source: ChangeSource = SYSTEM): Promise<Webhook> {
    await this.checkAddress(input.url, account.id);
    return this.createChecked(account, input, access, source);
  }

  /**
   * Early feedback of the outbound policy: under the account's rule (probes.blockPrivateAddresses,
   * or an account created by agent signup unless signup.allowPrivateTargets), a URL whose host
   * is or resolves to a private address now is a 400. Deliveries check again when they connect.
   */
  async checkAddress(rawUrl: string, accountId: string): Promise<void> {
    const { config } = this.deps;
    const url = parseWebhookUrl(rawUrl, config.alerts.allowHttpWebhooks);
    await assertPublicHost(url, await this.deps.outbound.forAccount(accountId), config.probes.dnsServers);
  }

  /**
   * `create` once `checkAddress` has passed; joins a caller's unit of work (the Kuma import
   * creates everything in one).
   */
  async createChecked(account: Account, input: CreateWebhookInput, access: KeyAccess | null = null, source: ChangeSource = SYSTEM): Promise<Webhook> {
    const { repo, config, clock } = this.deps;
    const url = parseWebhookUrl(input.url, config.alerts.allowHttpWebhooks);
    const options = await this.deps.options.resolve(account.id, access, input, null);
    const name = displayName(input.name);
    const events = input.events === undefined ? [...DEFAULT_EVENTS] : normalizeEvents(input.events);
    const urlKey = webhookUrlKey(url);
    const hook: Webhook = {
      id: newId('whk'),
      accountId: account.id,
      name,
      url: url.href,
      urlKey,
      webhookType: input.webhookType ?? detectWebhookType(url),
      events,
      enabled: true,
      secret: input.secret ?? null,
      createdAt: clock.now(),
      ...options,
    };
    await this.deps.store.transaction(async () => {
      const max = limitsFor(config, account).maxWebhooks;
      if ((await repo.count(account.id)) >= max) throw errors.conflict(`The account has reached its plan limit of ${max} webhooks`);
      if (await repo.urlTaken(account.id, urlKey)) throw errors.conflict('A webhook with this URL already exists');
      await repo.insert(hook);
      await this.audited(source, account.id, 'webhook.create', hook, Object.keys(input));
      this.deps.store.afterCommit(() => this.deps.routing.invalidate(account.id));
    });
    this.deps.log.info({ webhookId: hook.id, accountId: account.id, url: cutUrl(hook.url), webhookType: hook.webhookType }, 'webhook created');
    return hook;
  }

  /**
   * Every field is checked as on create before anything is written, so a refused PATCH changes
   * nothing. Pending deliveries read the webhook when they are sent: they go to a new URL, and
   * are cancelled once it is disabled.
   */
  async update(account: Account, id: string, input: UpdateWebhookInput, access: KeyAccess | null = null, source: ChangeSource = SYSTEM): Promise<Webhook> {
    await this.get(account, id);
    if (input.url !== undefined) await this.checkAddress(input.url, account.id);
    // Read again after the address check: it may have waited on DNS.
    return this.updateChecked(account, id, input, access, source);
  }

  /** `update` once `checkAddress` has passed on a new url; joins a caller's unit of work. */
  async updateChecked(account: Account, id: string, input: UpdateWebhookInput, access: KeyAccess | null = null, source: ChangeSource = SYSTEM): Promise<Webhook> {
    const current = await this.get(account, id);
    const url = input.url !== undefined ? parseWebhookUrl(input.url, this.deps.config.alerts.allowHttpWebhooks) : null;
    const next: Webhook = {
      ...current,
      name: input.name !== undefined ? displayName(input.name) : current.name,
      ...(url ? { url: url.href, urlKey: webhookUrlKey(url) } : {}),
      webhookType: input.webhookType ?? (url && typeWasDetected(current) ? detectWebhookType(url) : current.webhookType),
      events: input.events !== undefined ? normalizeEvents(input.events) : current.events,
      enabled: input.enabled ?? current.enabled,
      secret: input.secret !== undefined ? input.secret : current.secret,
      ...(await this.deps.options.resolve(account.id, access, input, current)),
    };
    const { repo } = this.deps;
    const changed = Object.keys(input).filter((k) => input[k as keyof UpdateWebhookInput] !== undefined);
    await this.deps.store.transaction(async () => {
      if (next.urlKey !== current.urlKey && (await repo.urlTaken(account.id, next.urlKey))) throw errors.conflict('A webhook with this URL already exists');
      await repo.update(next);
      await this.audited(source, account.id, 'webhook.update', next, changed);
      this.deps.store.afterCommit(() => this.deps.routing.invalidate(account.id));
    });
    this.deps.log.info({ webhookId: id, accountId: account.id, url: cutUrl(next.url), webhookType: next.webhookType, changed }, 'webhook updated');
    return next;
  }

  /** 400 for a malformed id, 404 for none, 403 for another account's. */
  async get(account: Account, id: string): Promise<Webhook> {
    if (!WEBHOOK_ID.test(id)) throw errors.badRequest(`Invalid webhook id: ${JSON.stringify(id.slice(0, 60))}`);
    const hook = await this.deps.repo.byId(id);
    if (!hook) throw errors.notFound(`Webhook ${id} not found`);
    if (hook.accountId !== account.id) throw errors.forbidden('This webhook belongs to another account');
    return hook;
  }

  /** Pending deliveries to it are cancelled with it. */
  async delete(account: Account, id: string, source: ChangeSource = SYSTEM): Promise<{ id: string; deleted: true }> {
    const hook = await this.get(account, id);
    await this.deps.store.transaction(async () => {
      await this.deps.repo.delete(hook.id);
      await this.deps.queue.cancelTarget('webhook', hook.id, this.deps.clock.now());
      await this.audited(source, account.id, 'webhook.delete', hook, []);
      this.deps.store.afterCommit(() => this.deps.routing.invalidate(account.id));
    });
    this.deps.log.info({ webhookId: hook.id, accountId: account.id, url: cutUrl(hook.url) }, 'webhook deleted');
    return { id: hook.id, deleted: true };
  }

  /** The audit entry of a change, in its transaction (issue 28); field names only, never the URL's secrets. */
  private async audited(source: ChangeSource, accountId: string, action: string, hook: Webhook, fields: string[]): Promise<void> {
    const entry = auditEntry(source, accountId, action, { kind: 'webhook', id: hook.id, name: hook.name }, fields, this.deps.clock.now());
    await this.deps.store.audit.append(entry);
  }

  /**
   * Sends the test message now (not through the queue): 200 with the receiver's 2xx status,
   * 502 for any other answer, no answer, or a type only the dashboard can test.
   */
  async test(account: Account, id: string): Promise<{ message: string; status: number }> {
    if (!account.claimed) throw errors.accountUnclaimed();
    const hook = await this.get(account, id);
    const where = cutUrl(hook.url);
    if (DASHBOARD_TEST_ONLY.has(hook.webhookType)) {
      throw errors.badGateway(`Webhooks of type ${hook.webhookType} can be tested only in the dashboard`);
    }
    const sample = JSON.stringify(testContent(this.deps.clock.now(), this.deps.config));
    let status: number;
    try {
      const refusePrivate = await this.deps.outbound.forAccount(account.id);
      ({ status } = await this.deps.client.send({ ...hook, refusePrivate }, sample, newId('dlv')));
    } catch (err) {
      if (err instanceof MisconfiguredWebhook) throw errors.badGateway(`Webhook ${where} is misconfigured: ${err.message}`);
      if (!(err instanceof WebhookUnreachable)) throw err;
      this.deps.log.warn({ webhookId: hook.id, url: where, error: err.message }, 'webhook test failed');
      throw errors.badGateway(`Webhook ${where} could not be reached: ${err.message}`);
    }
    const delivered = status >= 200 && status < 300;
    this.deps.log.info({ webhookId: hook.id, url: where, status }, delivered ? 'webhook test delivered' : 'webhook test failed');
    if (!delivered) throw errors.badGateway(`Webhook ${where} answered ${status}`);
    return { message: `Test alert delivered to ${where}`, status };
  }
}

const SYSTEM: ChangeSource = { actor: SYSTEM_ACTOR };

/** A type detection would give for the stored URL was not chosen by hand, so a new URL is detected again. */
function typeWasDetected(hook: Webhook): boolean {
  return detectWebhookType(new URL(hook.url)) === hook.webhookType;
}
