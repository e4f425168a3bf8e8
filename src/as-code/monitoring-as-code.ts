import type { Config } from '../config.js';
import type { ChecksService } from '../core/checks-service.js';
import type { Principal } from '../core/principal.js';
import type { UpdateCheckBody } from '../core/schemas/checks.js';
import type { EmailAlertsService } from '../alerts/email-settings-service.js';
import type { UpdateWebhookInput, WebhookService } from '../alerts/webhook-service.js';
import type { StatusPagesService } from '../status-pages/status-pages-service.js';
import type { Store } from '../store/store.js';
import type { ConfigKey, ConfigKind } from '../store/config-keys.js';
import { ApiError, errors } from '../domain/errors.js';
import { exportFile, fileText, type FileVariable } from './export-file.js';
import { MonitoringFileSource } from './file-source.js';
import { indexKeys, keyRows } from './object-keys.js';
import { placed, planFile, type Plan, type PlanResult, type Snapshot, type Step } from './plan.js';

export interface AsCodeDeps {
  store: Pick<Store, 'transaction' | 'configKeys'>;
  checks: ChecksService;
  webhooks: WebhookService;
  email: EmailAlertsService;
  statusPages: StatusPagesService;
  config: Config;
}

export interface ApplyOptions {
  prune: boolean;
  /** The environment `${NAME}` references read. */
  env: Readonly<Record<string, string | undefined>>;
}

export interface ApplyResult {
  plan: Plan;
  /** True when the unit of work committed changes. */
  applied: boolean;
  /** The objects the file created, by key. */
  created: Array<{ section: 'checks' | 'webhooks' | 'statusPages'; key: string; id: string }>;
}

export interface ExportResult {
  text: string;
  variables: FileVariable[];
}

/** Thrown inside the unit of a plan so that everything it did is rolled back. */
class PlanOnly extends Error {}

const KINDS: readonly ConfigKind[] = ['check', 'webhook', 'status_page'];

/**
 * Monitoring as code (issue 30): an account's checks, webhooks, email settings and status pages
 * as one file, exported and applied through the same services the API uses, so every rule,
 * plan limit and effect is theirs. An apply is one unit of work: all of it commits, or nothing.
 */
export class MonitoringAsCode {
  constructor(private readonly deps: AsCodeDeps) {}

  /** Where the file's JSON Schema is served (the `$schema` of exported files). */
  schemaUrl(): string {
    return `${this.deps.config.publicUrl}/v1/config-schema.json`;
  }

  /** The account's monitoring as a file. Keys derived for objects that had none are stored, so they stay when a name changes. */
  async export(principal: Principal, format: 'yaml' | 'json'): Promise<ExportResult> {
    const snapshot = await this.snapshot(principal);
    const indexes = {
      checks: indexKeys(snapshot.checks, snapshot.keys.check, (c) => c.name, 'check'),
      webhooks: indexKeys(snapshot.webhooks, snapshot.keys.webhook, (w) => w.name, 'webhook'),
      pages: indexKeys(snapshot.pages, snapshot.keys.status_page, (p) => p.slug, 'page'),
    };
    const { file, variables } = exportFile(snapshot, indexes);
    const accountId = principal.account.id;
    await this.deps.store.transaction(async () => {
      await this.deps.store.configKeys.replace(accountId, 'check', keyRows(indexes.checks));
      await this.deps.store.configKeys.replace(accountId, 'webhook', keyRows(indexes.webhooks));
      await this.deps.store.configKeys.replace(accountId, 'status_page', keyRows(indexes.pages));
    });
    return { text: fileText(file, format, this.schemaUrl()), variables };
  }

  /** What applying the file would change: the apply itself, run and rolled back, so its errors are the apply's. */
  async plan(principal: Principal, text: string, options: ApplyOptions): Promise<ApplyResult> {
    return this.run(principal, text, options, false);
  }

  /** Applies the file in one unit of work; an error (naming the place in the file) writes nothing. */
  async apply(principal: Principal, text: string, options: ApplyOptions): Promise<ApplyResult> {
    return this.run(principal, text, options, true);
  }

  private async run(principal: Principal, text: string, options: ApplyOptions, commit: boolean): Promise<ApplyResult> {
    const source = MonitoringFileSource.parse(text, options.env);
    const snapshot = await this.snapshot(principal);
    const planned = planFile(source, snapshot, { prune: options.prune, config: this.deps.config, account: principal.account });
    const deletion = planned.steps.find((s) => s.section === 'checks' && s.action === 'delete');
    if (deletion && !principal.scopes.includes('checks:delete')) {
      throw source.error('deleting checks (prune) needs the checks:delete scope', ['checks'], 403);
    }
    // Address lookups are I/O: done before the unit of work, as the API's routes do.
    for (const target of planned.addresses) {
      try {
        if (target.check) await this.deps.checks.checkTarget(principal, target.check.id, { type: target.check.type, url: target.check.url });
        if (target.webhookUrl !== undefined) await this.deps.webhooks.checkAddress(target.webhookUrl, principal.account.id);
      } catch (err) {
        throw placed(source, err, target.path);
      }
    }
    let created: ApplyResult['created'] = [];
    try {
      // One unit: every step joins it, effects (wheel, caches, routing) run once it commits.
      created = await this.deps.store.transaction(async () => {
        const made = await this.execute(principal, source, planned);
        if (!commit) throw new PlanOnly();
        return made;
      });
    } catch (err) {
      if (!(err instanceof PlanOnly)) throw err;
    }
    return { plan: planned.plan, applied: commit && planned.plan.changes.length > 0, created };
  }

  private async snapshot(principal: Principal): Promise<Snapshot> {
    const accountId = principal.account.id;
    const check = await this.deps.store.configKeys.list(accountId, 'check');
    const webhook = await this.deps.store.configKeys.list(accountId, 'webhook');
    const status_page = await this.deps.store.configKeys.list(accountId, 'status_page');
    return {
      checks: await this.deps.checks.all({ ...principal, access: null }),
      webhooks: await this.deps.webhooks.list(accountId),
      email: await this.deps.email.get(accountId),
      pages: await this.deps.statusPages.list(principal),
      keys: { check, webhook, status_page },
    };
  }

  /**
   * The steps, in an order that frees names before they are taken: deletions first (pages and
   * webhooks before the checks they list), then checks (updates before creates, so a URL moved
   * away can be taken), then what names checks: webhooks, email, pages. Then the keys.
   */
  private async execute(principal: Principal, source: MonitoringFileSource, planned: PlanResult): Promise<ApplyResult['created']> {
    const { checks, webhooks, email, statusPages, store } = this.deps;
    const account = principal.account;
    const keys: Record<ConfigKind, ConfigKey[]> = { check: [...planned.keptKeys.check], webhook: [...planned.keptKeys.webhook], status_page: [...planned.keptKeys.status_page] };
    const created: ApplyResult['created'] = [];
    const checkIds = (list: readonly string[]) => list.map((key) => {
      const found = keys.check.find((k) => k.key === key);
      if (!found) throw errors.badRequest(`checks names no check: ${key}`);
      return found.objectId;
    });
    const rank = (s: Step) =>
      s.action === 'delete' ? ['statusPages', 'webhooks', 'checks'].indexOf(s.section)
        : s.section === 'checks' ? (s.action === 'update' ? 3 : 4)
          : 5 + ['webhooks', 'email', 'statusPages'].indexOf(s.section);
    const ordered = planned.steps.map((s, i) => ({ s, i })).sort((a, b) => rank(a.s) - rank(b.s) || a.i - b.i).map(({ s }) => s);

    for (const step of ordered) {
      try {
        switch (step.section) {
          case 'checks':
            if (step.action === 'delete') await checks.remove(principal, step.id);
            else if (step.action === 'update') {
              if (Object.keys(step.patch).length > 0) await checks.update(principal, step.id, step.patch as UpdateCheckBody);
              if (step.paused !== null) await checks.toggle(principal, step.id, step.paused, step.paused ? 'Paused by a monitoring file' : undefined);
            } else {
              const { paused, renamedFrom: _renamedFrom, ...input } = step.entry;
              const { id } = await checks.create(principal, input);
              if (paused) await checks.toggle(principal, id, true, 'Paused by a monitoring file');
              keys.check.push({ key: step.key, objectId: id });
              created.push({ section: 'checks', key: step.key, id });
            }
            break;
          case 'webhooks':
            if (step.action === 'delete') await webhooks.delete(account, step.id, principal);
            else if (step.action === 'update') {
              const { checks: routed, ...rest } = step.patch;
              const input: UpdateWebhookInput = { ...rest, ...(routed ? { checkIds: checkIds(routed) } : {}) };
              await webhooks.updateChecked(account, step.id, input, null, principal);
            } else {
              const { checks: routed, secret, enabled, ...rest } = step.state;
              const hook = await webhooks.createChecked(account, { ...rest, ...(secret === null ? {} : { secret }), checkIds: checkIds(routed) }, null, principal);
              if (!enabled) await webhooks.updateChecked(account, hook.id, { enabled: false }, null, principal);
              keys.webhook.push({ key: step.key, objectId: hook.id });
              created.push({ section: 'webhooks', key: step.key, id: hook.id });
            }
            break;
          case 'email': {
            const { checks: routed, ...rest } = step.patch;
            await email.update(account.id, { ...rest, ...(routed ? { checkIds: checkIds(routed) } : {}) }, null, principal);
            break;
          }
          case 'statusPages':
            if (step.action === 'delete') await statusPages.remove(principal, step.id);
            else if (step.action === 'update') {
              const { checks: listed, ...rest } = step.patch;
              await statusPages.update(principal, step.id, { ...rest, ...(listed ? { checkIds: checkIds(listed) } : {}) });
            } else {
              const { checks: listed, ...rest } = step.state;
              const page = await statusPages.create(principal, { ...rest, checkIds: checkIds(listed) });
              keys.status_page.push({ key: step.key, objectId: page.id });
              created.push({ section: 'statusPages', key: step.key, id: page.id });
            }
            break;
        }
      } catch (err) {
        if (err instanceof ApiError) throw placed(source, err, [step.section, ...(step.section === 'email' ? [] : [step.key])]);
        throw err;
      }
    }
    for (const kind of KINDS) await store.configKeys.replace(account.id, kind, keys[kind]);
    return created;
  }
}
