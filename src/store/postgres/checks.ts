import type { Check } from '../../domain/records.js';
import type { CheckQuery, CheckRepo } from '../store.js';
import { rowToCheck, SETTINGS_COLUMNS, settingsValues, type CheckRowDb } from '../rows/checks.js';
import type { PgDb, Row } from './db.js';
import { placeholders, type Async } from './types.js';

/** How far back `updated_at` is read again (another process stamps a change before it commits it). */
const OVERLAP_MS = 10_000;

/** Check methods that answer at once: a version counter and what polling found. */
export type PgCheckRepo = Async<Omit<CheckRepo, 'version' | 'writtenElsewhere'>> &
  Pick<CheckRepo, 'version' | 'writtenElsewhere'> & {
    /** Reads the checks another process created or changed since the last poll (see writtenElsewhere). */
    poll(): Promise<void>;
    /** A batch wrote check rows directly (applyWrites): the version moves. */
    touched(): void;
  };

const toCheck = (r: Row): Check => rowToCheck(r as unknown as CheckRowDb);

/** WHERE clause and parameters for an account's checks as one credential may see them. */
function where(q: CheckQuery): { sql: string; params: unknown[] } {
  const parts = ['account_id = $1'];
  const params: unknown[] = [q.accountId];
  if (q.status === 'paused') parts.push('disabled');
  else if (q.status) {
    params.push(q.status);
    parts.push(`NOT disabled AND status = $${params.length}`);
  }
  if (q.access) {
    const alternatives: string[] = [];
    if (q.access.checkIds.length) {
      params.push(q.access.checkIds);
      alternatives.push(`id = ANY($${params.length})`);
    }
    if (q.access.folders.length) {
      params.push(q.access.folders);
      alternatives.push(`folder = ANY($${params.length})`);
    }
    parts.push(alternatives.length ? `(${alternatives.join(' OR ')})` : 'false');
  }
  // Every tag must match: `key:value` itself, or `key` itself or with any value (domain/tags.ts).
  for (const tag of q.tags ?? []) {
    const wanted = tag.toLowerCase();
    params.push(wanted);
    const exact = `lower(t) = $${params.length}`;
    let test = exact;
    if (!wanted.includes(':')) {
      params.push(`${wanted}:`);
      test = `(${exact} OR starts_with(lower(t), $${params.length}))`;
    }
    parts.push(`EXISTS (SELECT 1 FROM json_array_elements_text(tags::json) AS e(t) WHERE ${test})`);
  }
  return { sql: parts.join(' AND '), params };
}

/**
 * Checks in PostgreSQL. No record cache: another central may change any row (the SQLite store
 * caches because it is the only writer but for the CLI). `version()` moves on every write made
 * here and on every change `poll()` finds made elsewhere.
 */
export function pgChecks(db: PgDb): PgCheckRepo {
  let version = 0;
  let seqMark: number | null = null;
  let updatedMark = 0;
  const known = new Map<string, number>();
  let found: Check[] = [];
  let polling: Promise<void> | null = null;
  let next: Promise<void> | null = null;
  const changed = (id?: string, updatedAt?: number) => {
    version++;
    if (id !== undefined && updatedAt !== undefined) known.set(id, updatedAt);
  };
  const insertSql = `WITH c AS (
      INSERT INTO checks (id, account_id, url_key, heartbeat_token, heartbeat_token_hash, disabled, disabled_reason,
        maintenance, maintenance_until, status, created_at, updated_at, ${SETTINGS_COLUMNS.join(', ')})
      VALUES (${placeholders(12 + SETTINGS_COLUMNS.length)}) RETURNING seq, account_id)
    UPDATE accounts a SET check_count = check_count + 1 FROM c WHERE a.id = c.account_id RETURNING c.seq`;
  const updateSql = `UPDATE checks SET ${SETTINGS_COLUMNS.map((c, i) => `${c} = $${i + 1}`).join(', ')},
    url_key = $${SETTINGS_COLUMNS.length + 1}, updated_at = $${SETTINGS_COLUMNS.length + 2} WHERE id = $${SETTINGS_COLUMNS.length + 3}`;
  return {
    async insert(c, urlKey, tokenHash) {
      const row = await db.one<{ seq: number }>(insertSql, [
        c.id, c.accountId, urlKey, c.heartbeatToken, tokenHash, c.disabled, c.disabledReason,
        c.maintenance, c.maintenanceUntil, c.status, c.createdAt, c.updatedAt, ...settingsValues(c),
      ]);
      if (!row) throw new Error(`account ${c.accountId} does not exist`);
      changed(c.id, c.updatedAt);
      return row.seq;
    },
    async byId(id) {
      const r = await db.one('SELECT * FROM checks WHERE id = $1', [id], 'vigil_check_by_id');
      return r ? toCheck(r) : null;
    },
    async list(q, page) {
      const w = where(q);
      const params = [...w.params];
      let sql = `SELECT * FROM checks WHERE ${w.sql}`;
      if (page.afterSeq !== null) {
        params.push(page.afterSeq);
        sql += ` AND seq > $${params.length}`;
      }
      sql += ' ORDER BY seq';
      if (page.limit >= 0) {
        params.push(page.limit);
        sql += ` LIMIT $${params.length}`;
      }
      if (page.afterSeq === null && page.offset > 0) {
        params.push(page.offset);
        sql += ` OFFSET $${params.length}`;
      }
      return (await db.query(sql, params)).map(toCheck);
    },
    async count(q) {
      const w = where(q);
      return (await db.one<{ n: number }>(`SELECT count(*) AS n FROM checks WHERE ${w.sql}`, w.params))!.n;
    },
    countForAccount: async (accountId) => (await db.one<{ check_count: number }>('SELECT check_count FROM accounts WHERE id = $1', [accountId]))?.check_count ?? 0,
    urlTaken: async (accountId, urlKey, exceptId) =>
      (await db.one('SELECT 1 FROM checks WHERE account_id = $1 AND url_key = $2 AND id IS DISTINCT FROM $3', [accountId, urlKey, exceptId])) !== null,
    async updateSettings(id, s, urlKey, now) {
      await db.run(updateSql, [...settingsValues(s), urlKey, now, id]);
      changed(id, now);
    },
    async setDisabled(id, disabled, reason, now) {
      await db.run('UPDATE checks SET disabled = $1, disabled_reason = $2, updated_at = $3, last_status_change = $3 WHERE id = $4', [disabled, reason, now, id]);
      changed(id, now);
    },
    async setMaintenance(id, on, until, now) {
      await db.run('UPDATE checks SET maintenance = $1, maintenance_until = $2, updated_at = $3 WHERE id = $4', [on, until, now, id]);
      changed(id, now);
    },
    async setWindowMaintenance(id, on, now) {
      await db.run('UPDATE checks SET window_maintenance = $1, updated_at = $2 WHERE id = $3', [on, now, id]);
      changed(id, now);
    },
    inWindowMaintenance: async () => (await db.query<{ id: string }>('SELECT id FROM checks WHERE window_maintenance')).map((r) => r.id),
    async delete(id) {
      // The check's rollups and horizons go with it (SQLite: a trigger); its history and state
      // changes are deleted by ChecksService through their repositories.
      await db.run(
        `WITH d AS (DELETE FROM checks WHERE id = $1 RETURNING seq, account_id),
           a AS (UPDATE accounts SET check_count = check_count - 1 FROM d WHERE accounts.id = d.account_id),
           m AS (DELETE FROM rollup_minute r USING d WHERE r.check_seq = d.seq),
           h AS (DELETE FROM rollup_hour r USING d WHERE r.check_seq = d.seq),
           y AS (DELETE FROM rollup_day r USING d WHERE r.check_seq = d.seq)
         DELETE FROM retention_horizons r USING d WHERE r.check_seq = d.seq`,
        [id],
      );
      changed();
    },
    async setHeartbeatToken(id, token, hash, now) {
      await db.run('UPDATE checks SET heartbeat_token = $1, heartbeat_token_hash = $2, updated_at = $3 WHERE id = $4', [token, hash, now, id]);
      changed(id, now);
    },
    async forEachEnabled(visit) {
      // In pages by seq: 100,000 rows and records alive at once would set the process's high-water mark.
      let after = 0;
      for (;;) {
        const rows = await db.query('SELECT * FROM checks WHERE NOT disabled AND seq > $1 ORDER BY seq LIMIT 2000', [after]);
        for (const r of rows) visit(toCheck(r));
        if (rows.length < 2000) return;
        after = rows.at(-1)!.seq as number;
      }
    },
    allHeartbeats: async () => (await db.query("SELECT * FROM checks WHERE type = 'heartbeat' ORDER BY seq")).map(toCheck),
    async saveRuntime(id, r) {
      await db.run(
        `UPDATE checks SET status = $1, consecutive_failures = $2, degraded = $3, last_error = $4, last_status_change = $5,
           probes_total = $6, probes_up = $7, ssl = $8, regions = $9, error_alerted = $10, ssl_alerts = $11,
           last_checked = CASE WHEN $12 THEN $13 ELSE last_checked END,
           last_response_time = CASE WHEN $12 THEN $14 ELSE last_response_time END,
           last_status_code = CASE WHEN $12 THEN $15 ELSE last_status_code END,
           last_synced_at = CASE WHEN $12 THEN $13 ELSE last_synced_at END
         WHERE id = $16`,
        runtimeParams(id, r),
        'vigil_save_runtime',
      );
      version++;
    },
    async saveDomain(id, domain) {
      await db.run('UPDATE checks SET domain = $1 WHERE id = $2', [domain === null ? null : JSON.stringify(domain), id]);
      version++;
    },
    version: () => version,
    touched: () => void version++,
    writtenElsewhere() {
      const out = found;
      found = [];
      if (out.length > 0) version++;
      return out;
    },
    poll: () => poll(),
  };

  /** One read at a time; a call while one runs gets the next one, which sees what committed before the call. */
  function poll(): Promise<void> {
    if (!polling) {
      polling = pollOnce().finally(() => (polling = null));
      return polling;
    }
    next ??= polling.catch(() => undefined).then(() => {
      next = null;
      return poll();
    });
    return next;
  }

  async function pollOnce(): Promise<void> {
    const first = seqMark === null;
    if (seqMark === null) {
      const marks = await db.one<{ seq: number; updated: number }>('SELECT coalesce(max(seq), 0) AS seq, coalesce(max(updated_at), 0) AS updated FROM checks');
      seqMark = marks!.seq;
      updatedMark = marks!.updated;
    }
    // What changed is read in two steps: the overlap reads every check stamped in its last
    // OVERLAP_MS again on every poll (all of them after a bulk import, until another change),
    // so only (id, stamp) first, and whole rows only of what is new here.
    const stamps = await db.query<{ seq: number; id: string; updated_at: number }>(
      'SELECT seq, id, updated_at FROM checks WHERE seq > $1 UNION ALL SELECT seq, id, updated_at FROM checks WHERE updated_at >= $2 AND seq <= $1',
      [seqMark, updatedMark - OVERLAP_MS],
    );
    const fresh: string[] = [];
    for (const r of stamps) {
      seqMark = Math.max(seqMark!, r.seq);
      updatedMark = Math.max(updatedMark, r.updated_at);
      if (known.get(r.id) !== r.updated_at) fresh.push(r.id);
    }
    const rows = fresh.length === 0 ? [] : await db.query('SELECT * FROM checks WHERE id = ANY($1::text[])', [fresh]);
    for (const r of rows) {
      const check = toCheck(r);
      updatedMark = Math.max(updatedMark, check.updatedAt);
      if (known.get(check.id) === check.updatedAt) continue;
      known.set(check.id, check.updatedAt);
      // The first poll only learns what is there already.
      if (!first) found.push(check);
    }
    for (const [id, at] of known) if (at < updatedMark - OVERLAP_MS) known.delete(id);
  }
}

/** saveRuntime's parameters ($12 says whether the timing fields are written). */
export function runtimeParams(id: string, r: Parameters<CheckRepo['saveRuntime']>[1]): unknown[] {
  const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));
  return [
    r.status, r.consecutiveFailures, r.degraded, r.lastError, r.lastStatusChange, r.probesTotal, r.probesUp,
    json(r.ssl), json(r.regions), r.errorAlerted, json(r.sslAlerts),
    r.sync !== null, r.sync?.lastChecked ?? null, r.sync?.lastResponseTime ?? null, r.sync?.lastStatusCode ?? null, id,
  ];
}
