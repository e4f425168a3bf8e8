import type { Synchronous } from '../synchronous.js';
import type { Check, Regions } from '../../domain/records.js';
import type { SslAlertMemory, SslInfo } from '../../domain/probe-types.js';
import type { Db } from '../db.js';
import type { CheckRepo } from '../store.js';
import { Lru } from '../../util/lru.js';
import { fromBool, parseJson, toJson } from '../rows/values.js';
import { rowToCheck, SETTINGS_COLUMNS, settingsValues, type CheckRowDb } from '../rows/checks.js';
import { checkLists, pageOfOrdered } from './check-lists.js';
import { checksWrittenElsewhere } from './checks-elsewhere.js';

/**
 * Reading a wide row costs about 150 ns per column here, so records are cached (write-through,
 * bounded) and list queries read only ids. Every write to a check goes through this repository,
 * which drops or replaces the cached record: records are immutable, a change is a new object.
 * The bound is records an instance reads through its API; an account of up to half of it
 * stays in the cache's young generation, where a hit is one map lookup.
 */
const CACHE_SIZE = 32_768;

export function sqliteChecks(db: Db): Synchronous<CheckRepo> & { clearCache(): void } {
  const records = new Lru<string, Check>(CACHE_SIZE);
  const lists = checkLists(db);
  const elsewhere = checksWrittenElsewhere(db);
  let version = 0;
  const insert = db.prepare(
    `INSERT INTO checks (id, account_id, url_key, heartbeat_token, heartbeat_token_hash, disabled, disabled_reason,
       maintenance, maintenance_until, status, created_at, updated_at, ${SETTINGS_COLUMNS.join(', ')})
     VALUES (${Array(12 + SETTINGS_COLUMNS.length).fill('?').join(', ')})`,
  );
  const byId = db.prepare('SELECT * FROM checks WHERE id = ?');
  const countForAccount = db.prepare('SELECT check_count FROM accounts WHERE id = ?').pluck();
  const urlTaken = db.prepare('SELECT 1 FROM checks WHERE account_id = ? AND url_key = ? AND id IS NOT ?').pluck();
  const updateSettings = db.prepare(
    `UPDATE checks SET ${SETTINGS_COLUMNS.map((c) => `${c} = ?`).join(', ')}, url_key = ?, updated_at = ? WHERE id = ?`,
  );
  // A pause shows as `unknown` on the status endpoint and a resume brings the status back: both change it.
  const setDisabled = db.prepare('UPDATE checks SET disabled = ?, disabled_reason = ?, updated_at = ?, last_status_change = ? WHERE id = ?');
  const setMaintenance = db.prepare('UPDATE checks SET maintenance = ?, maintenance_until = ?, updated_at = ? WHERE id = ?');
  const setWindow = db.prepare('UPDATE checks SET window_maintenance = ?, updated_at = ? WHERE id = ?');
  const inWindow = db.prepare<[], string>('SELECT id FROM checks WHERE window_maintenance = 1').pluck();
  const del = db.prepare('DELETE FROM checks WHERE id = ?');
  const setToken = db.prepare('UPDATE checks SET heartbeat_token = ?, heartbeat_token_hash = ?, updated_at = ? WHERE id = ?');
  const allHeartbeats = db.prepare("SELECT * FROM checks WHERE type = 'heartbeat' ORDER BY seq");
  const allEnabled = db.prepare('SELECT * FROM checks WHERE disabled = 0 ORDER BY seq');
  const saveRuntime = db.prepare(
    `UPDATE checks SET status = ?, consecutive_failures = ?, degraded = ?, last_error = ?, last_status_change = ?,
       probes_total = ?, probes_up = ?, ssl = ?, regions = ?, error_alerted = ?, ssl_alerts = ? WHERE id = ?`,
  );
  const saveDomain = db.prepare('UPDATE checks SET domain = ? WHERE id = ?');
  const saveSync = db.prepare(
    'UPDATE checks SET last_checked = ?, last_response_time = ?, last_status_code = ?, last_synced_at = ? WHERE id = ?',
  );

  return {
    insert(c, urlKey, tokenHash) {
      const info = insert.run(
        c.id, c.accountId, urlKey, c.heartbeatToken, tokenHash, fromBool(c.disabled), c.disabledReason,
        fromBool(c.maintenance), c.maintenanceUntil, c.status, c.createdAt, c.updatedAt, ...settingsValues(c),
      );
      membersChanged(c.id, info);
      elsewhere.wrote(c.id, c.updatedAt);
      return Number(info.lastInsertRowid);
    },
    byId(id) {
      return load(id);
    },
    list(q, page) {
      return pageOfOrdered(lists.ordered(q), page).map(load).filter((c): c is Check => c !== null);
    },
    count: (q) => lists.ordered(q).ids.length,
    countForAccount: (accountId) => (countForAccount.get(accountId) as number | undefined) ?? 0,
    urlTaken: (accountId, urlKey, exceptId) => urlTaken.get(accountId, urlKey, exceptId) !== undefined,
    // A folder change moves a check in or out of restricted keys' lists.
    updateSettings: (id, s, urlKey, now) => membersChanged(id, updateSettings.run(...settingsValues(s), urlKey, now, id), now),
    setDisabled: (id, disabled, reason, now) => membersChanged(id, setDisabled.run(fromBool(disabled), reason, now, now, id), now),
    setMaintenance: (id, on, until, now) => changed(id, setMaintenance.run(fromBool(on), until, now, id), now),
    setWindowMaintenance: (id, on, now) => changed(id, setWindow.run(fromBool(on), now, id), now),
    inWindowMaintenance: () => inWindow.all(),
    delete: (id) => membersChanged(id, del.run(id)),
    setHeartbeatToken: (id, token, hash, now) => changed(id, setToken.run(token, hash, now, id), now),
    forEachEnabled(visit) {
      // Streamed: 100,000 rows and records alive at once would set the process's high-water mark.
      for (const row of allEnabled.iterate() as IterableIterator<CheckRowDb>) visit(rowToCheck(row));
    },
    allHeartbeats: () => (allHeartbeats.all() as CheckRowDb[]).map(rowToCheck),
    saveRuntime(id, r) {
      const ssl = toJson(r.ssl);
      const regions = toJson(r.regions);
      const sslAlerts = toJson(r.sslAlerts);
      saveRuntime.run(
        r.status, r.consecutiveFailures, fromBool(r.degraded), r.lastError, r.lastStatusChange,
        r.probesTotal, r.probesUp, ssl, regions, fromBool(r.errorAlerted), sslAlerts, id,
      );
      if (r.sync) saveSync.run(r.sync.lastChecked, r.sync.lastResponseTime, r.sync.lastStatusCode, r.sync.lastChecked, id);
      version++;
      const cached = records.get(id);
      if (r.statusChanged || !cached) lists.changed();
      if (!cached) return;
      // Written through: the next read needs no row. Objects are parsed back from their JSON,
      // so the cached record shares nothing the recorder may change later.
      records.set(id, {
        ...cached,
        status: r.status,
        consecutiveFailures: r.consecutiveFailures,
        degraded: r.degraded,
        lastError: r.lastError,
        lastStatusChange: r.lastStatusChange,
        probesTotal: r.probesTotal,
        probesUp: r.probesUp,
        ssl: parseJson<SslInfo>(ssl),
        regions: parseJson<Regions>(regions),
        errorAlerted: r.errorAlerted,
        sslAlerts: parseJson<SslAlertMemory>(sslAlerts),
        ...(r.sync ? { lastChecked: r.sync.lastChecked, lastResponseTime: r.sync.lastResponseTime, lastStatusCode: r.sync.lastStatusCode } : {}),
      });
    },
    saveDomain: (id, domain) => changed(id, saveDomain.run(toJson(domain), id)),
    version: () => version,
    writtenElsewhere() {
      const rows = elsewhere.poll();
      if (rows.length === 0) return [];
      lists.changed();
      version++;
      return rows.map((r) => {
        const check = rowToCheck(r);
        records.set(r.id, check);
        return check;
      });
    },
    clearCache: () => {
      records.clear();
      lists.changed();
      version++;
    },
  };

  function load(id: string): Check | null {
    const cached = records.get(id);
    if (cached) return cached;
    const r = byId.get(id) as CheckRowDb | undefined;
    if (!r) return null;
    const check = rowToCheck(r);
    records.set(id, check);
    return check;
  }

  /**
   * Drops the cached record; a rolled-back transaction clears the caches (index.ts). `updatedAt`:
   * the change stamped the row, which is then not another process's change.
   */
  function changed(id: string, _result: unknown, updatedAt?: number): void {
    records.delete(id);
    version++;
    if (updatedAt !== undefined) elsewhere.wrote(id, updatedAt);
  }

  /** The same, for a change that can move the check in or out of lists. */
  function membersChanged(id: string, result: unknown, updatedAt?: number): void {
    changed(id, result, updatedAt);
    lists.changed();
  }
}
