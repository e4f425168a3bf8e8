import type { Config } from '../config.js';
import type { ChecksService } from '../core/checks-service.js';
import type { Principal } from '../core/principal.js';
import type { EmailAlertsService } from '../alerts/email-settings-service.js';
import type { WebhookService } from '../alerts/webhook-service.js';
import type { StatusPagesService } from '../status-pages/status-pages-service.js';
import { checkUrl } from '../domain/check-url.js';
import type { Clock } from '../domain/clock.js';
import { ApiError, errors } from '../domain/errors.js';
import { limitsFor } from '../domain/plans.js';
import type { Store } from '../store/store.js';
import type { KumaImportKey, KumaImportRepo, KumaKind } from '../store/kuma-imports.js';
import type { KumaMonitorRow, KumaSnapshot } from '../store/kuma-source.js';
import { mapMonitor, type MappedMonitor } from './kuma-monitors.js';
import { mapNotification } from './kuma-notifications.js';
import { replayHistory } from './kuma-history.js';
import { pageNotImported } from './kuma-pages.js';
import { hashSecret } from '../domain/secrets.js';
import { kumaEmailRoute } from './kuma-email.js';
import type { Recorder } from '../monitor/recorder.js';
import type { MaintenanceWindowsService } from '../core/maintenance-windows-service.js';
import { mapMaintenance, type MaintenanceMapping } from './kuma-maintenance.js';

export interface MonitorReport {
  kumaId: number;
  name: string;
  kumaType: string;
  /** created | already_imported | folder (a Kuma group) | skipped */
  result: 'created' | 'already_imported' | 'folder' | 'skipped';
  checkId?: string;
  type?: string;
  folder?: string | null;
  paused?: boolean;
  reason?: string;
  /** Kuma push token, the Vigil ping URL, and Kuma's push URL on this Vigil (the same token: only the host changes). */
  pushToken?: string | null;
  pingUrl?: string;
  pushUrl?: string;
  /** Kuma heartbeats recorded as this check's history (`--with-history`). */
  historyRows?: number;
  notImported: string[];
}

export interface NotificationReport {
  kumaId: number;
  name: string;
  kumaType: string;
  result: 'webhook' | 'email' | 'already_imported' | 'skipped';
  webhookId?: string;
  webhookType?: string;
  recipients?: string[];
  /** The Vigil checks routed to this target (the Kuma monitors that used the notification). */
  checkIds?: string[];
  reason?: string;
  notImported: string[];
}

export interface PageReport {
  kumaId: number;
  slug: string;
  result: 'created' | 'already_imported' | 'skipped';
  statusPageId?: string;
  checkIds?: string[];
  reason?: string;
  notImported: string[];
}

export interface MaintenanceReport {
  kumaId: number;
  title: string;
  result: 'created' | 'already_imported' | 'skipped';
  maintenanceWindowId?: string;
  /** The Vigil checks in the window (the Kuma monitors it named that are checks). */
  checkIds?: string[];
  /** Recurring: the Vigil cron schedule, its time zone and minutes each time. */
  schedule?: string;
  timezone?: string;
  durationMinutes?: number;
  startsAt?: string;
  endsAt?: string;
  reason?: string;
  notImported: string[];
}

export interface ImportReport {
  dryRun: boolean;
  kuma: { version: string; sourceId: string };
  accountId: string;
  summary: Record<string, number>;
  monitors: MonitorReport[];
  notifications: NotificationReport[];
  maintenance: MaintenanceReport[];
  statusPages: PageReport[];
  notImported: string[];
  /** How things were carried over that a reader of an earlier import's report would expect otherwise. */
  notes: string[];
}

export interface ImportOptions {
  dryRun: boolean;
  paused: boolean;
  /** Replay the Kuma heartbeats of newly created checks through the recorder (needs `recorder`). */
  withHistory: boolean;
}

export interface KumaImportDeps {
  store: Pick<Store, 'transaction'>;
  checks: ChecksService;
  webhooks: WebhookService;
  email: EmailAlertsService;
  statusPages: StatusPagesService;
  windows: MaintenanceWindowsService;
  imports: KumaImportRepo;
  /** The live results' recorder, for `--with-history`. */
  recorder: Recorder | null;
  config: Config;
  clock: Clock;
}

/** Thrown inside the transaction of a dry run so that everything it did is rolled back. */
class DryRun extends Error {}

/**
 * `vigil import kuma` (issue 18): maps a Kuma snapshot and creates it through the services in
 * one transaction. A dry run does the same work and rolls it back, so its plan is exactly what a
 * real run would do. Objects already imported from the same Kuma installation are left alone.
 */
export class KumaImporter {
  private readonly attempt: <T>(fn: () => Promise<T>) => Promise<Attempt<T>>;

  constructor(private readonly deps: KumaImportDeps) {
    this.attempt = attemptIn(deps.store);
  }

  async run(principal: Principal, kuma: KumaSnapshot, options: ImportOptions): Promise<ImportReport> {
    const { webhooks } = this.deps;
    const limits = limitsFor(this.deps.config, principal.account);
    const folders = folderNames(kuma.monitors);
    const mapped = new Map<number, ReturnType<typeof mapMonitor>>();
    for (const m of kuma.monitors) {
      if (m.type !== 'group') mapped.set(m.id, mapMonitor(m, { folder: folders.get(m.id) ?? null, tags: kuma.monitorTags.get(m.id) ?? [], limits }));
    }
    const notifications = kuma.notifications.map((n) => ({ n, mapping: mapNotification(n) }));
    // Address lookups are I/O: done before the transaction (a private webhook host is a skip reason).
    const addressProblems = new Map<number, string>();
    for (const { n, mapping } of notifications) {
      if (mapping.kind !== 'webhook') continue;
      await webhooks.checkAddress(mapping.url, principal.account.id).catch((err: unknown) => {
        if (!(err instanceof ApiError)) throw err;
        addressProblems.set(n.id, err.message);
      });
    }
    let report: ImportReport | null = null;
    const windows: PlannedWindow[] = [];
    try {
      await this.deps.store.transaction(async () => {
        report = await this.apply(principal, kuma, options, { folders, mapped, notifications, addressProblems, windows });
        if (options.dryRun) throw new DryRun();
      });
    } catch (err) {
      if (!(err instanceof DryRun)) throw err;
    }
    if (options.dryRun) return withoutIds(report!);
    await this.createWindows(principal, kuma.sourceId, windows);
    report!.summary.maintenanceWindowsCreated = report!.maintenance.filter((m) => m.result === 'created').length;
    if (options.withHistory) await this.replay(principal, kuma, report!);
    return report!;
  }

  /**
   * After the commit, through the windows service (whose writes are asynchronous-ready): each
   * planned window is created, or its row says why not.
   */
  private async createWindows(principal: Principal, sourceId: string, planned: PlannedWindow[]): Promise<void> {
    for (const { row, mapping, checkIds } of planned) {
      if (!mapping.ok) continue;
      try {
        const created = await this.deps.windows.create(principal, { ...mapping.input, checkIds });
        row.maintenanceWindowId = created.id;
        await this.deps.store.transaction(async () => (await this.deps.imports.remember(
          { accountId: principal.account.id, sourceId, kind: 'maintenance', kumaId: row.kumaId }, created.id, this.deps.clock.now(),
        )));
      } catch (err) {
        if (!(err instanceof ApiError) || err.status >= 500) throw err;
        Object.assign(row, { result: 'skipped', reason: err.message });
        delete row.checkIds;
      }
    }
  }

  /** After the commit: history goes through the recorder's batched writer, as live results do. */
  private async replay(principal: Principal, kuma: KumaSnapshot, report: ImportReport): Promise<void> {
    const recorder = this.deps.recorder;
    if (recorder === null) throw new Error('--with-history needs the recorder');
    let rows = 0;
    for (const row of report.monitors) {
      if (row.result !== 'created' || row.checkId === undefined) continue;
      const check = await this.deps.checks.get(principal, row.checkId!);
      row.historyRows = replayHistory(recorder, check, kuma.heartbeats.get(row.kumaId) ?? []);
      rows += row.historyRows;
    }
    await recorder.idle();
    report.summary.historyRows = rows;
    report.notImported = [];
  }

  private async apply(principal: Principal, kuma: KumaSnapshot, options: ImportOptions, plan: {
    folders: Map<number, string>;
    mapped: Map<number, ReturnType<typeof mapMonitor>>;
    notifications: { n: KumaSnapshot['notifications'][number]; mapping: ReturnType<typeof mapNotification> }[];
    addressProblems: Map<number, string>;
    windows: PlannedWindow[];
  }): Promise<ImportReport> {
    const { checks, imports, clock, config } = this.deps;
    const account = principal.account;
    const key = (kind: KumaKind, kumaId: number): KumaImportKey => ({ accountId: account.id, sourceId: kuma.sourceId, kind, kumaId });
    const remembered = (kind: KumaKind, kumaId: number) => imports.vigilId(key(kind, kumaId));
    const remember = (kind: KumaKind, kumaId: number, id: string) => imports.remember(key(kind, kumaId), id, clock.now());

    // Plan limit before any write: the import stops and says how many fit.
    let toCreate = 0;
    for (const [id, m] of plan.mapped) if (m.ok && (await remembered('monitor', id)) === null) toCreate++;
    const max = limitsFor(config, account).maxChecks;
    const fit = Math.max(0, max - (await checks.all({ ...principal, access: null })).length);
    if (toCreate > fit) {
      throw errors.conflict(`The Kuma file has ${toCreate} monitors to import but the account's plan allows ${fit} more checks (${max} in all): nothing was imported`);
    }

    const checkOf = new Map<number, string>();
    const monitorReport = async (m: KumaMonitorRow): Promise<MonitorReport> => {
      const base = { kumaId: m.id, name: m.name, kumaType: m.type, notImported: [] as string[] };
      if (m.type === 'group') return { ...base, result: 'folder' as const, folder: plan.folders.get(m.id) ?? m.name, reason: 'a Kuma group: its monitors are in this folder' };
      const mapping = plan.mapped.get(m.id)!;
      if (!mapping.ok) return { ...base, result: 'skipped' as const, reason: mapping.reason };
      const existing = await remembered('monitor', m.id);
      if (existing !== null) {
        checkOf.set(m.id, existing);
        return { ...base, result: 'already_imported' as const, checkId: existing, ...(await this.pushOf(principal, existing, mapping.check)) };
      }
      return this.createCheck(principal, m, mapping.check, options, base, checkOf, remember);
    };
    // One at a time, in the file's order: the notifications below route to the checks made here.
    const monitors: MonitorReport[] = [];
    for (const m of kuma.monitors) monitors.push(await monitorReport(m));

    const notificationReport = async ({ n, mapping }: (typeof plan.notifications)[number]) => {
      const kumaType = typeof n.config.type === 'string' ? n.config.type : '';
      const base = { kumaId: n.id, name: n.name, kumaType, notImported: [] as string[] };
      const routed = [...kuma.monitorNotifications].filter(([, ids]) => ids.includes(n.id)).map(([monitorId]) => checkOf.get(monitorId)).filter((id): id is string => id !== undefined);
      if (mapping.kind === 'skipped') return { ...base, result: 'skipped' as const, reason: mapping.reason };
      base.notImported.push(...mapping.notes);
      const existing = await remembered('notification', n.id);
      if (existing !== null) return { ...base, result: 'already_imported' as const, ...(existing.startsWith('whk_') ? { webhookId: existing } : {}) };
      if (routed.length === 0) return { ...base, result: 'skipped' as const, reason: 'no imported monitor uses it (Vigil would send it every check\'s alerts)' };
      const problem = plan.addressProblems.get(n.id);
      if (problem) return { ...base, result: 'skipped' as const, reason: problem };
      if (mapping.kind === 'email') {
        const applied = await this.addRecipients(principal, mapping.recipients, routed);
        if (typeof applied === 'string') return { ...base, result: 'skipped' as const, reason: applied };
        await remember('notification', n.id, `email:${account.id}`);
        if (applied.note) base.notImported.push(applied.note);
        return { ...base, result: 'email' as const, recipients: applied.recipients, checkIds: applied.checkIds };
      }
      const created = await this.attempt(() => this.deps.webhooks.createChecked(account, { url: mapping.url, name: n.name, webhookType: mapping.webhookType, checkIds: routed }, null, principal));
      if (!created.ok) return { ...base, result: 'skipped' as const, reason: created.reason };
      await remember('notification', n.id, created.value.id);
      return { ...base, result: 'webhook' as const, webhookId: created.value.id, webhookType: created.value.webhookType, checkIds: routed };
    };
    const notificationReports: Array<Awaited<ReturnType<typeof notificationReport>>> = [];
    for (const n of plan.notifications) notificationReports.push(await notificationReport(n));

    const pageReport = async (p: (typeof kuma.statusPages)[number]): Promise<PageReport> => {
      const base = { kumaId: p.id, slug: p.slug, notImported: pageNotImported(p) };
      const existing = await remembered('status_page', p.id);
      if (existing !== null) return { ...base, result: 'already_imported', statusPageId: existing };
      const checkIds = p.monitorIds.map((id) => checkOf.get(id)).filter((id): id is string => id !== undefined);
      const missing = p.monitorIds.filter((id) => !checkOf.has(id));
      if (missing.length > 0) base.notImported.push(`monitors ${missing.join(', ')} are not Vigil checks (see monitors)`);
      if (p.groups.length > 1) base.notImported.push(`groups ${p.groups.join(', ')}: Vigil lists the checks in one list, in the same order`);
      const created = await this.attempt(() => this.deps.statusPages.create(principal, { slug: p.slug, title: p.title, ...(p.description ? { description: p.description } : {}), checkIds }));
      if (!created.ok) return { ...base, result: 'skipped', reason: created.reason };
      await remember('status_page', p.id, created.value.id);
      return { ...base, result: 'created', statusPageId: created.value.id, checkIds };
    };
    const statusPages: PageReport[] = [];
    for (const p of kuma.statusPages) statusPages.push(await pageReport(p));

    const maintenanceReport = async (w: (typeof kuma.maintenance)[number]): Promise<MaintenanceReport> => {
      const base = { kumaId: w.id, title: w.title, notImported: [] as string[] };
      const existing = await remembered('maintenance', w.id);
      if (existing !== null) return { ...base, result: 'already_imported', maintenanceWindowId: existing };
      const mapping = mapMaintenance(w);
      if (!mapping.ok) return { ...base, result: 'skipped', reason: mapping.reason };
      base.notImported.push(...mapping.notes);
      const checkIds = w.monitorIds.map((id) => checkOf.get(id)).filter((id): id is string => id !== undefined);
      const missing = w.monitorIds.filter((id) => !checkOf.has(id));
      if (missing.length > 0) base.notImported.push(`monitors ${missing.join(', ')} are not Vigil checks (see monitors)`);
      if (checkIds.length === 0) return { ...base, result: 'skipped', reason: 'none of its monitors is a Vigil check' };
      const row: MaintenanceReport = { ...base, result: 'created', checkIds, ...timingOf(mapping) };
      plan.windows.push({ row, mapping, checkIds });
      return row;
    };
    const maintenance: MaintenanceReport[] = [];
    for (const w of kuma.maintenance) maintenance.push(await maintenanceReport(w));

    const count = (list: { result: string }[], result: string) => list.filter((x) => x.result === result).length;
    return {
      dryRun: options.dryRun,
      kuma: { version: kuma.version, sourceId: kuma.sourceId },
      accountId: account.id,
      summary: {
        checksCreated: count(monitors, 'created'),
        checksAlreadyImported: count(monitors, 'already_imported'),
        monitorsSkipped: count(monitors, 'skipped'),
        folders: count(monitors, 'folder'),
        webhooksCreated: count(notificationReports, 'webhook'),
        emailNotifications: count(notificationReports, 'email'),
        notificationsSkipped: count(notificationReports, 'skipped'),
        statusPagesCreated: count(statusPages, 'created'),
        checksThatFitThePlan: fit,
      },
      monitors,
      notifications: notificationReports,
      maintenance,
      statusPages,
      notImported: options.withHistory ? [] : ['history: the Kuma heartbeats (run again with --with-history on a fresh account to import them)'],
      notes: kuma.monitorTags.size > 0
        ? ['Kuma tags are carried as check tags (name:value) and names are kept as they are; checks an earlier import created with the tags in their names are not renamed']
        : [],
    };
  }

  private async createCheck(
    principal: Principal, m: KumaMonitorRow, mapped: MappedMonitor, options: ImportOptions,
    base: { kumaId: number; name: string; kumaType: string; notImported: string[] },
    checkOf: Map<number, string>, remember: (kind: KumaKind, kumaId: number, id: string) => Promise<void>,
  ): Promise<MonitorReport> {
    const { checks } = this.deps;
    const paused = options.paused || mapped.paused;
    const created = await this.attempt(async () => {
      const { id } = await checks.create(principal, mapped.input);
      if (paused) await checks.toggle(principal, id, true, mapped.paused ? 'Paused in Uptime Kuma' : 'Imported paused for review');
      return checks.get(principal, id);
    });
    base.notImported.push(...mapped.notes);
    if (!created.ok) return { ...base, result: 'skipped', reason: created.reason };
    const check = created.value;
    checkOf.set(m.id, check.id);
    await remember('monitor', m.id, check.id);
    return { ...base, result: 'created', checkId: check.id, type: check.type, folder: check.folder, paused, ...(await this.pushOf(principal, check.id, mapped)) };
  }

  /**
   * A push monitor's Kuma token is kept, so its `/api/push/<token>` works on this Vigil too (a
   * cron job only changes its host); the report shows it beside the check's own ping URL.
   */
  private async pushOf(principal: Principal, checkId: string, mapped: MappedMonitor): Promise<Pick<MonitorReport, 'pushToken' | 'pingUrl' | 'pushUrl'>> {
    if (mapped.input.type !== 'heartbeat') return {};
    const check = await this.deps.checks.get(principal, checkId);
    const pingUrl = checkUrl(check, this.deps.config);
    if (!mapped.pushToken) return { pushToken: null, pingUrl };
    await this.deps.imports.rememberPushToken(hashSecret(mapped.pushToken), check.id);
    return { pushToken: mapped.pushToken, pingUrl, pushUrl: `${this.deps.config.heartbeatUrl}/api/push/${mapped.pushToken}` };
  }

  /** The SMTP notification's addresses as kumaEmailRoute decides: the setting and routing applied, or why not. */
  private async addRecipients(principal: Principal, recipients: string[], checkIds: string[]): Promise<{ recipients: string[]; checkIds: string[]; note?: string } | string> {
    const { email } = this.deps;
    const current = await email.get(principal.account.id);
    const plan = kumaEmailRoute(current, recipients, checkIds);
    if (plan.kind === 'refused') return plan.reason;
    if (plan.kind === 'covered') return { recipients: current!.recipients, checkIds: [], note: 'these addresses already get every check\'s email alerts (checkIds []): left so' };
    const updated = await this.attempt(() => email.update(principal.account.id, plan.patch, null, principal));
    return updated.ok ? { recipients: updated.value.recipients, checkIds: updated.value.checkIds } : updated.reason;
  }
}

interface PlannedWindow {
  row: MaintenanceReport;
  mapping: MaintenanceMapping;
  checkIds: string[];
}

function timingOf(mapping: MaintenanceMapping): Pick<MaintenanceReport, 'schedule' | 'timezone' | 'durationMinutes' | 'startsAt' | 'endsAt'> {
  if (!mapping.ok) return {};
  const i = mapping.input;
  return {
    ...(i.schedule ? { schedule: i.schedule, timezone: i.timezone ?? 'UTC', durationMinutes: i.durationMinutes ?? undefined } : {}),
    ...(i.startsAt ? { startsAt: i.startsAt } : {}),
    ...(i.endsAt ? { endsAt: i.endsAt } : {}),
  };
}

type Attempt<T> = { ok: true; value: T } | { ok: false; reason: string };

/** Runs one creation in a savepoint (a nested transaction): a refusal (400, 409) becomes the item's skip reason. */
function attemptIn(store: Pick<Store, 'transaction'>) {
  return async <T>(fn: () => Promise<T>): Promise<Attempt<T>> => {
    try {
      return { ok: true, value: await store.transaction(fn) };
    } catch (err) {
      if (err instanceof ApiError && err.status < 500) return { ok: false, reason: err.message };
      throw err;
    }
  };
}

const ID_FIELDS = new Set(['checkId', 'webhookId', 'statusPageId', 'pingUrl', 'checkIds', 'maintenanceWindowId']);

/** A dry run's ids were rolled back with everything else: the plan shows none. */
function withoutIds(report: ImportReport): ImportReport {
  const strip = <T extends object>(item: T): T => Object.fromEntries(Object.entries(item).filter(([k]) => !ID_FIELDS.has(k))) as T;
  return {
    ...report, monitors: report.monitors.map(strip), notifications: report.notifications.map(strip), statusPages: report.statusPages.map(strip),
    maintenance: report.maintenance.map(strip),
  };
}

/** Folder of each monitor: its chain of Kuma groups, outermost first ("Prod / Web"). */
export function folderNames(monitors: KumaMonitorRow[]): Map<number, string> {
  const byId = new Map(monitors.map((m) => [m.id, m]));
  const out = new Map<number, string>();
  for (const m of monitors) {
    const chain: string[] = [];
    const seen = new Set<number>();
    let parent = m.type === 'group' ? m : m.parent === null ? undefined : byId.get(m.parent);
    while (parent && !seen.has(parent.id)) {
      seen.add(parent.id);
      if (parent.type === 'group') chain.unshift(parent.name);
      parent = parent.parent === null ? undefined : byId.get(parent.parent);
    }
    if (chain.length > 0) out.set(m.id, chain.join(' / ').slice(0, 100));
  }
  return out;
}
