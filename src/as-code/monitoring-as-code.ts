import type { Config } from '../config.js';
import type { ChecksService } from '../core/checks-service.js';
import type { Principal } from '../core/principal.js';
import type { UpdateCheckBody } from '../core/schemas/checks.js';
import type { EmailAlertsService } from '../alerts/email-settings-service.js';
import type { UpdateWebhookInput, WebhookService } from '../alerts/webhook-service.js';
import type { StatusPagesService } from '../status-pages/status-pages-service.js';
import type { MaintenanceWindowsService } from '../core/maintenance-windows-service.js';
import type { Store } from '../store/store.js';
import type { ConfigKey, ConfigKind } from '../store/config-keys.js';
import { isDeepStrictEqual } from 'node:util';
import { ApiError, errors } from '../domain/errors.js';
import { exportFile, fileText, type FileVariable } from './export-file.js';
import { MonitoringFileSource, type FilePath } from './file-source.js';
import { indexKeys, keyRows } from './object-keys.js';
import { placed, planFile, type Plan, type PlanResult, type Snapshot, type Step } from './plan.js';

export interface AsCodeDeps {
  store: Pick<Store, 'transaction' | 'configKeys'>;
  checks: ChecksService;
  webhooks: WebhookService;
  email: EmailAlertsService;
  statusPages: StatusPagesService;
  maintenanceWindows: MaintenanceWindowsService;
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
  created: Array<{ section: 'checks' | 'webhooks' | 'statusPages' | 'maintenanceWindows'; key: string; id: string }>;
}

export interface ExportResult {
  text: string;
  variables: FileVariable[];
}

/** Thrown inside the unit of a plan so that everything it did is rolled back. */
class PlanOnly extends Error {}

const KINDS: readonly ConfigKind[] = ['check', 'webhook', 'status_page', 'maintenance_window'];

/**
 * Monitoring as code (issue 30): an account's checks, webhooks, email settings, status pages and
 * maintenance windows as one file, exported and applied through the same services the API uses, so every rule,
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
      windows: indexKeys(snapshot.windows, snapshot.keys.maintenance_window, (w) => w.title, 'window'),
    };
    const { file, variables } = exportFile(snapshot, indexes);
    const accountId = principal.account.id;
    await this.deps.store.transaction(async () => {
      await this.deps.store.configKeys.replace(accountId, 'check', keyRows(indexes.checks));
      await this.deps.store.configKeys.replace(accountId, 'webhook', keyRows(indexes.webhooks));
      await this.deps.store.configKeys.replace(accountId, 'status_page', keyRows(indexes.pages));
      await this.deps.store.configKeys.replace(accountId, 'maintenance_window', keyRows(indexes.windows));
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
    const maintenance_window = await this.deps.store.configKeys.list(accountId, 'maintenance_window');
    return {
      checks: await this.deps.checks.all({ ...principal, access: null }),
      webhooks: await this.deps.webhooks.list(accountId),
      email: await this.deps.email.get(accountId),
      pages: await this.deps.statusPages.list(principal),
      windows: await this.deps.maintenanceWindows.list(principal),
      keys: { check, webhook, status_page, maintenance_window },
    };
  }

  /**
   * The steps, in an order that frees names before they are taken: deletions first (windows,
   * pages and webhooks before the checks they name), then checks (updates before creates, so a
   * URL moved away can be taken), then the checks' dependencies (every check of the file exists
   * by then), then what names checks: webhooks, email, pages, maintenance windows. Then the keys.
   */
  private async execute(principal: Principal, source: MonitoringFileSource, planned: PlanResult): Promise<ApplyResult['created']> {
    const run: Run = {
      principal,
      keys: Object.fromEntries(KINDS.map((kind) => [kind, [...planned.keptKeys[kind]]])) as Record<ConfigKind, ConfigKey[]>,
      created: [],
      dependencies: [],
    };
    const ordered = planned.steps.map((s, i) => ({ s, i })).sort((a, b) => rank(a.s) - rank(b.s) || a.i - b.i).map(({ s }) => s);
    const placing = async (path: FilePath, work: () => Promise<void>) => {
      try {
        await work();
      } catch (err) {
        if (err instanceof ApiError) throw placed(source, err, path);
        throw err;
      }
    };
    const checkSteps = ordered.filter((s) => rank(s) <= LAST_CHECK_RANK);
    for (const step of checkSteps) await placing(stepPath(step), () => this.runStep(run, step));
    for (const pending of run.dependencies) await placing(['checks', pending.key, 'dependsOn'], () => this.setDependencies(run, pending));
    for (const step of ordered.slice(checkSteps.length)) await placing(stepPath(step), () => this.runStep(run, step));
    for (const kind of KINDS) await this.deps.store.configKeys.replace(principal.account.id, kind, run.keys[kind]);
    return run.created;
  }

  private async runStep(run: Run, step: Step): Promise<void> {
    const { checks, webhooks, email, statusPages, maintenanceWindows } = this.deps;
    const { principal, keys, created } = run;
    const account = principal.account;
    const checkIds = (list: readonly string[]) => list.map((key) => {
      const id = checkIdOf(run, key);
      if (id === undefined) throw errors.badRequest(`checks names no check: ${key}`);
      return id;
    });
    switch (step.section) {
      case 'checks':
        if (step.action === 'delete') await checks.remove(principal, step.id);
        else if (step.action === 'update') {
          const patch: UpdateCheckBody = { ...step.patch };
          if (step.dependsOn !== null) {
            // Dependencies dropped now, the others once every check exists: no write closes a cycle on the way.
            const wanted = new Set(step.dependsOn.map((key) => checkIdOf(run, key)));
            const kept = step.dependedOn.filter((id) => wanted.has(id));
            if (kept.length < step.dependedOn.length) patch.dependsOn = kept;
            run.dependencies.push({ key: step.key, id: step.id, dependsOn: step.dependsOn, stored: patch.dependsOn ?? step.dependedOn });
          }
          if (Object.keys(patch).length > 0) await checks.update(principal, step.id, patch);
          if (step.paused !== null) await checks.toggle(principal, step.id, step.paused, step.paused ? 'Paused by a monitoring file' : undefined);
        } else {
          const { paused, renamedFrom: _renamedFrom, dependsOn: _keys, ...input } = step.entry;
          // A new check can close no cycle: it takes the dependencies that exist already, the others come later.
          const now = step.dependsOn.map((key) => checkIdOf(run, key));
          const ready = now.every((id) => id !== undefined);
          const { id } = await checks.create(principal, ready && now.length > 0 ? { ...input, dependsOn: now as string[] } : input);
          if (!ready) run.dependencies.push({ key: step.key, id, dependsOn: step.dependsOn, stored: [] });
          if (paused) await checks.toggle(principal, id, true, 'Paused by a monitoring file');
          keys.check.push({ key: step.key, objectId: id });
          created.push({ section: 'checks', key: step.key, id });
        }
        return;
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
        return;
      case 'email': {
        const { checks: routed, ...rest } = step.patch;
        await email.update(account.id, { ...rest, ...(routed ? { checkIds: checkIds(routed) } : {}) }, null, principal);
        return;
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
        return;
      case 'maintenanceWindows':
        if (step.action === 'delete') await maintenanceWindows.remove(principal, step.id);
        else if (step.action === 'update') {
          const { checks: named, ...rest } = step.patch;
          await maintenanceWindows.update(principal, step.id, { ...rest, ...(named ? { checkIds: checkIds(named) } : {}) });
        } else {
          const { checks: named, ...rest } = step.state;
          const window = await maintenanceWindows.create(principal, { ...rest, checkIds: checkIds(named) });
          keys.maintenance_window.push({ key: step.key, objectId: window.id });
          created.push({ section: 'maintenanceWindows', key: step.key, id: window.id });
        }
        return;
    }
  }

  /** A check's dependencies as the file says, every check named existing by now (skipped when they are already so). */
  private async setDependencies(run: Run, pending: PendingDependencies): Promise<void> {
    const ids = pending.dependsOn.map((key) => {
      const id = checkIdOf(run, key);
      if (id === undefined) throw errors.badRequest(`dependsOn names no check: ${key}`);
      return id;
    });
    if (isDeepStrictEqual([...ids].sort(), [...pending.stored].sort())) return;
    await this.deps.checks.update(run.principal, pending.id, { dependsOn: ids });
  }
}

/** A check whose dependencies are set once every check of the file exists. */
interface PendingDependencies {
  key: string;
  id: string;
  /** What the file says, by key. */
  dependsOn: string[];
  /** What is stored by then, by id. */
  stored: readonly string[];
}

/** One apply's unit of work as it goes: the keys of the objects, what it created, the dependencies left to set. */
interface Run {
  principal: Principal;
  keys: Record<ConfigKind, ConfigKey[]>;
  created: ApplyResult['created'];
  dependencies: PendingDependencies[];
}

function checkIdOf(run: Run, key: string): string | undefined {
  return run.keys.check.find((k) => k.key === key)?.objectId;
}

const DELETE_ORDER: readonly Step['section'][] = ['maintenanceWindows', 'statusPages', 'webhooks', 'checks'];
const LATER_ORDER: readonly Step['section'][] = ['webhooks', 'email', 'statusPages', 'maintenanceWindows'];
const LAST_CHECK_RANK = DELETE_ORDER.length + 1;

function rank(s: Step): number {
  if (s.action === 'delete') return DELETE_ORDER.indexOf(s.section);
  if (s.section === 'checks') return s.action === 'update' ? DELETE_ORDER.length : LAST_CHECK_RANK;
  return LAST_CHECK_RANK + 1 + LATER_ORDER.indexOf(s.section);
}

function stepPath(step: Step): FilePath {
  return step.section === 'email' ? ['email'] : [step.section, step.key];
}
