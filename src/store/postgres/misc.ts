import type { IdempotencyRepo } from '../store.js';
import type { NodeCursor, NodeRecord, NodeRepo, NodeRow } from '../node-repo.js';
import type { SessionStore } from '../session-store.js';
import type { ServedAddresses, ServedAddressesRepo } from '../served-addresses.js';
import type { KumaImportRepo } from '../kuma-imports.js';
import type { ConfigKeyRepo } from '../config-keys.js';
import type { OperationsRepo, StatusPage, StatusPageRepo } from '../status-pages.js';
import type { PgDb, Row } from './db.js';
import type { Async } from './types.js';
import { rowToNode, rowToNodeRecord, type NodeRowDb } from '../rows/nodes.js';

/** Idempotency records, prober nodes, sessions, served addresses, Kuma imports, status pages. */

export function pgIdempotency(db: PgDb): Async<IdempotencyRepo> {
  return {
    async get(accountId, key) {
      const r = await db.one('SELECT * FROM idempotency_keys WHERE account_id = $1 AND key = $2', [accountId, key]);
      if (!r) return null;
      return {
        accountId: r.account_id as string, key: r.key as string, method: r.method as string, path: r.path as string,
        bodyHash: r.body_hash as string, status: r.status as number, response: r.response as string, createdAt: r.created_at as number,
      };
    },
    put: async (r) =>
      void (await db.run(
        `INSERT INTO idempotency_keys (account_id, key, method, path, body_hash, status, response, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (account_id, key) DO UPDATE SET method = excluded.method, path = excluded.path, body_hash = excluded.body_hash,
           status = excluded.status, response = excluded.response, created_at = excluded.created_at`,
        [r.accountId, r.key, r.method, r.path, r.bodyHash, r.status, r.response, r.createdAt],
      )),
    deleteOlderThan: (cutoff) => db.run('DELETE FROM idempotency_keys WHERE created_at < $1', [cutoff]),
  };
}

const toNodeRecord = (r: Row): NodeRecord => rowToNodeRecord(r as unknown as NodeRowDb);
const toNodeRow = (r: Row): NodeRow => rowToNode(r as unknown as NodeRowDb);

export function pgNodes(db: PgDb): Async<NodeRepo> {
  return {
    insert: async (n, hash) =>
      void (await db.run('INSERT INTO nodes (id, name, region, token_hash, created_at) VALUES ($1, $2, $3, $4, $5)', [n.id, n.name, n.region, hash, n.createdAt])),
    byTokenHash: async (hash) => {
      const r = await db.one('SELECT * FROM nodes WHERE token_hash = $1', [hash]);
      return r ? toNodeRecord(r) : null;
    },
    byId: async (id) => {
      const r = await db.one('SELECT * FROM nodes WHERE id = $1', [id]);
      return r ? toNodeRow(r) : null;
    },
    list: async () => (await db.query('SELECT * FROM nodes ORDER BY created_at, id')).map(toNodeRow),
    revoke: async (id, at) => void (await db.run('UPDATE nodes SET revoked_at = $1, connected = false WHERE id = $2 AND revoked_at IS NULL', [at, id])),
    revokedAmong: async (ids) =>
      ids.length === 0 ? [] : (await db.query<{ id: string }>('SELECT id FROM nodes WHERE revoked_at IS NOT NULL AND id = ANY($1)', [ids])).map((r) => r.id),
    regions: async () => db.query<{ region: string; nodes: number }>('SELECT region, count(*) AS nodes FROM nodes WHERE revoked_at IS NULL GROUP BY region ORDER BY region'),
    saveLive: async (id, l) =>
      void (await db.run(
        `UPDATE nodes SET connected = $1, last_seen_at = $2, version = $3, assigned = $4, probes_per_second = $5, outbox_depth = $6,
           clock_offset_ms = $7, rejected_results = $8, dropped_results = $9 WHERE id = $10 AND (last_seen_at IS NULL OR last_seen_at <= $11)`,
        [l.connected, l.lastSeenAt, l.version, l.assigned, l.probesPerSecond, l.outboxDepth, l.clockOffsetMs, l.rejectedResults, l.droppedResults, id, l.lastSeenAt ?? 0],
      )),
    markDisconnected: async (seenBefore) =>
      void (await db.run('UPDATE nodes SET connected = false WHERE connected AND (last_seen_at IS NULL OR last_seen_at < $1)', [seenBefore])),
    connectedSince: async (seenSince) =>
      (await db.query('SELECT id, region, last_seen_at FROM nodes WHERE connected AND revoked_at IS NULL AND last_seen_at >= $1 ORDER BY id', [seenSince]))
        .map((r) => ({ id: r.id as string, region: r.region as string, lastSeenAt: Number(r.last_seen_at) })),
    cursor: async (id) => (await db.one<NodeCursor & Row>('SELECT epoch, last_seq AS seq FROM nodes WHERE id = $1', [id])) ?? { epoch: null, seq: 0 },
    setCursor: async (id, c) => void (await db.run('UPDATE nodes SET epoch = $1, last_seq = $2 WHERE id = $3', [c.epoch, c.seq, id])),
  };
}

const SESSION_COLUMNS = 'id, account_id, key_id, user_id, method, address, user_agent, created_at, expires_at';
const toSession = (r: Row) => ({
  id: r.id as string, accountId: r.account_id as string, keyId: r.key_id as string | null, userId: r.user_id as string | null,
  method: r.method as string | null, address: r.address as string | null, userAgent: r.user_agent as string | null,
  createdAt: r.created_at as number, expiresAt: r.expires_at as number,
});

export function pgSessions(db: PgDb): Async<SessionStore> {
  return {
    insert: async (s, hash) =>
      void (await db.run(
        'INSERT INTO sessions (id, token_hash, account_id, key_id, user_id, method, address, user_agent, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)',
        [s.id, hash, s.accountId, s.keyId, s.userId, s.method, s.address, s.userAgent, s.createdAt, s.expiresAt],
      )),
    async byTokenHash(hash) {
      const r = await db.one(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE token_hash = $1`, [hash], 'vigil_session_by_hash');
      return r ? toSession(r) : null;
    },
    async byId(id) {
      const r = await db.one(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = $1`, [id]);
      return r ? toSession(r) : null;
    },
    listForUser: async (userId, now) =>
      (await db.query(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE user_id = $1 AND expires_at > $2 ORDER BY created_at DESC, id`, [userId, now])).map(toSession),
    delete: async (id) => void (await db.run('DELETE FROM sessions WHERE id = $1', [id])),
    deleteForUser: (userId, keep) => db.run("DELETE FROM sessions WHERE user_id = $1 AND id <> coalesce($2, '')", [userId, keep]),
    pruneExpired: (now) => db.run('DELETE FROM sessions WHERE expires_at <= $1', [now]),
    insertLoginLink: async (hash, accountId, createdAt, expiresAt) =>
      void (await db.run('INSERT INTO login_links (token_hash, account_id, created_at, expires_at) VALUES ($1, $2, $3, $4)', [hash, accountId, createdAt, expiresAt])),
    redeemLoginLink: async (hash, now) =>
      (
        await db.one<{ account_id: string }>(
          'UPDATE login_links SET used_at = $1 WHERE token_hash = $2 AND used_at IS NULL AND expires_at > $1 RETURNING account_id',
          [now, hash],
        )
      )?.account_id ?? null,
  };
}

const SERVED_KEY = 'server.addresses';

export function pgServedAddresses(db: PgDb): Async<ServedAddressesRepo> {
  return {
    async get() {
      const r = await db.one<{ value: string }>('SELECT value FROM meta WHERE key = $1', [SERVED_KEY]);
      if (!r) return null;
      const a = JSON.parse(r.value) as Partial<ServedAddresses>;
      return [a.publicUrl, a.heartbeatUrl, a.dashboardUrl].every((u) => typeof u === 'string') ? (a as ServedAddresses) : null;
    },
    record: async ({ publicUrl, heartbeatUrl, dashboardUrl, listenUrl }) =>
      void (await db.run('INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [
        SERVED_KEY, JSON.stringify({ publicUrl, heartbeatUrl, dashboardUrl, listenUrl }),
      ])),
  };
}

export function pgKumaImports(db: PgDb): Async<KumaImportRepo> {
  return {
    vigilId: async (k) =>
      (await db.one<{ vigil_id: string }>('SELECT vigil_id FROM kuma_imports WHERE account_id = $1 AND source_id = $2 AND kind = $3 AND kuma_id = $4', [
        k.accountId, k.sourceId, k.kind, k.kumaId,
      ]))?.vigil_id ?? null,
    remember: async (k, vigilId, at) =>
      void (await db.run('INSERT INTO kuma_imports (account_id, source_id, kind, kuma_id, vigil_id, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
        k.accountId, k.sourceId, k.kind, k.kumaId, vigilId, at,
      ])),
    rememberPushToken: async (tokenHash, checkId) =>
      void (await db.run(
        `INSERT INTO kuma_push_tokens (token_hash, check_id, heartbeat_token_hash)
         SELECT $1, id, heartbeat_token_hash FROM checks WHERE id = $2 AND heartbeat_token_hash IS NOT NULL
         ON CONFLICT (token_hash) DO NOTHING`,
        [tokenHash, checkId],
      )),
    pingTokenFor: async (tokenHash) =>
      (await db.one<{ heartbeat_token: string }>(
        `SELECT c.heartbeat_token FROM kuma_push_tokens k JOIN checks c ON c.id = k.check_id AND c.heartbeat_token_hash = k.heartbeat_token_hash
         WHERE k.token_hash = $1`,
        [tokenHash],
      ))?.heartbeat_token ?? null,
  };
}

export function pgConfigKeys(db: PgDb): Async<ConfigKeyRepo> {
  return {
    list: async (accountId, kind) =>
      (await db.query<{ key: string; object_id: string }>('SELECT key, object_id FROM config_keys WHERE account_id = $1 AND kind = $2', [accountId, kind]))
        .map((r) => ({ key: r.key, objectId: r.object_id })),
    // One statement, so a replace is whole even outside a unit of work.
    replace: async (accountId, kind, keys) =>
      void (await db.run(
        `WITH gone AS (DELETE FROM config_keys WHERE account_id = $1 AND kind = $2 AND NOT (key = ANY($3::text[])))
         INSERT INTO config_keys (account_id, kind, key, object_id)
         SELECT $1, $2, k, o FROM unnest($3::text[], $4::text[]) AS t(k, o)
         ON CONFLICT (account_id, kind, key) DO UPDATE SET object_id = excluded.object_id`,
        [accountId, kind, keys.map((k) => k.key), keys.map((k) => k.objectId)],
      )),
  };
}

/** Status page columns a page's fields write ([column, field]), after id and account. */
const PAGE_COLUMNS: Array<[string, keyof StatusPage]> = [
  ['slug', 'slug'], ['title', 'title'], ['description', 'description'], ['custom_domain', 'customDomain'],
  ['auto_incidents', 'autoIncidents'], ['logo_url', 'logoUrl'], ['accent_color', 'accentColor'], ['footer_text', 'footerText'],
  ['favicon', 'favicon'], ['hide_powered_by', 'hidePoweredBy'], ['webhook_subscriptions', 'webhookSubscriptions'],
  ['embed_allowed_origins', 'embedAllowedOrigins'], ['tags', 'tags'], ['updated_at', 'updatedAt'],
];

export function pgStatusPages(db: PgDb): Async<StatusPageRepo> {
  const select = `SELECT p.*, coalesce((SELECT array_agg(c.check_id ORDER BY c.position) FROM status_page_checks c WHERE c.page_id = p.id), '{}') AS check_ids
    FROM status_pages p`;
  const toPage = (r: Row): StatusPage => ({
    id: r.id as string,
    accountId: r.account_id as string,
    slug: r.slug as string,
    title: r.title as string,
    description: r.description as string | null,
    customDomain: r.custom_domain as string | null,
    checkIds: r.check_ids as string[],
    autoIncidents: r.auto_incidents as boolean,
    logoUrl: r.logo_url as string | null,
    accentColor: r.accent_color as string | null,
    footerText: r.footer_text as string | null,
    favicon: r.favicon as string | null,
    hidePoweredBy: r.hide_powered_by as boolean,
    webhookSubscriptions: r.webhook_subscriptions as boolean,
    embedAllowedOrigins: JSON.parse(r.embed_allowed_origins as string) as string[],
    tags: JSON.parse(r.tags as string) as string[],
    createdAt: r.created_at as number,
    updatedAt: r.updated_at as number,
  });
  const one = async (sql: string, params: unknown[]) => {
    const r = await db.one(sql, params);
    return r ? toPage(r) : null;
  };
  const setChecks = async (page: StatusPage) => {
    await db.run('DELETE FROM status_page_checks WHERE page_id = $1', [page.id]);
    if (page.checkIds.length > 0) {
      await db.run(
        'INSERT INTO status_page_checks (page_id, check_id, position) SELECT $1, id, ord - 1 FROM unnest($2::text[]) WITH ORDINALITY AS t(id, ord)',
        [page.id, page.checkIds],
      );
    }
  };
  const values = (page: StatusPage) => PAGE_COLUMNS.map(([, field]) => (field === 'tags' || field === 'embedAllowedOrigins' ? JSON.stringify(page[field]) : page[field]));
  const insertSql = `INSERT INTO status_pages (id, account_id, created_at, ${PAGE_COLUMNS.map(([c]) => c).join(', ')})
    VALUES ($1, $2, $3, ${PAGE_COLUMNS.map((_, i) => `$${i + 4}`).join(', ')})`;
  const updateSql = `UPDATE status_pages SET ${PAGE_COLUMNS.map(([c], i) => `${c} = $${i + 2}`).join(', ')} WHERE id = $1`;
  return {
    insert: (page) =>
      db.transaction(async () => {
        await db.run(insertSql, [page.id, page.accountId, page.createdAt, ...values(page)]);
        await setChecks(page);
      }),
    update: (page) =>
      db.transaction(async () => {
        await db.run(updateSql, [page.id, ...values(page)]);
        await setChecks(page);
      }),
    delete: async (id) => void (await db.run('DELETE FROM status_pages WHERE id = $1', [id])),
    byId: (id) => one(`${select} WHERE p.id = $1`, [id]),
    bySlug: (slug) => one(`${select} WHERE p.slug = $1`, [slug]),
    byDomain: (host) => one(`${select} WHERE lower(p.custom_domain) = lower($1)`, [host]),
    listForAccount: async (accountId) => (await db.query(`${select} WHERE p.account_id = $1 ORDER BY p.created_at, p.id`, [accountId])).map(toPage),
    listsCheck: async (checkId) => (await db.one('SELECT 1 FROM status_page_checks WHERE check_id = $1 LIMIT 1', [checkId])) !== null,
    slugsListing: async (checkId) =>
      (await db.query<{ slug: string }>('SELECT p.slug FROM status_page_checks c JOIN status_pages p ON p.id = c.page_id WHERE c.check_id = $1', [checkId])).map(
        (r) => r.slug,
      ),
    autoIncidentPages: async (checkId) =>
      (await db.query(`${select} JOIN status_page_checks c ON c.page_id = p.id WHERE c.check_id = $1 AND p.auto_incidents`, [checkId])).map(toPage),
  };
}

export function pgOperations(db: PgDb): Async<OperationsRepo> {
  return {
    touch: async (now) =>
      void (await db.run('INSERT INTO readiness (id, checked_at) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET checked_at = excluded.checked_at', [now])),
    pendingDeliveries: async () => (await db.one<{ n: number }>("SELECT count(*) AS n FROM alert_deliveries WHERE status IN ('pending', 'sending')"))!.n,
  };
}
