import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_SETTINGS } from '../../src/core/check-settings.js';
import type { Account, Check } from '../../src/domain/records.js';
import { openPgStore, type PgStore } from '../../src/store/postgres/index.js';
import { PgDb } from '../../src/store/postgres/db.js';
import { ensurePartitions } from '../../src/store/postgres/partitions.js';
import { PG_MIGRATIONS } from '../../src/store/postgres/schema.js';
import type { WriteRecord } from '../../src/store/writes.js';
import { startPostgres, type PgCluster } from '../helpers/postgres.js';
import { JobRunner } from '../../src/util/job-runner.js';
import { createLogger } from '../../src/log.js';
import { systemClock } from '../../src/domain/clock.js';

// What the PostgreSQL store does beyond the shared contract: migrations under an advisory
// lock, changes seen across processes, rollups built by hour and day, time partitions.
let cluster: PgCluster;
before(async () => {
  cluster = await startPostgres();
});
after(async () => {
  await cluster.stop();
});

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
let n = 0;
const id = (prefix: string) => `${prefix}_pg${++n}`;

async function seeded(store: PgStore, createdAt = Date.now()): Promise<{ acc: Account; c: Check }> {
  const acc: Account = { id: id('acc'), email: `${id('u')}@Example.com`, tier: 'pro', maxChecksOverride: null, claimed: true, createdAt };
  await store.accounts.insert(acc);
  const draft: Omit<Check, 'seq'> = {
    ...DEFAULT_SETTINGS, name: 'x', url: `https://${id('s')}.example.com/`, type: 'website',
    id: id('chk'), accountId: acc.id, disabled: false, disabledReason: null, maintenance: false, maintenanceUntil: null, windowMaintenance: false, heartbeatToken: null,
    status: 'pending', consecutiveFailures: 0, degraded: false, lastChecked: null, lastResponseTime: null, lastStatusCode: null,
    lastError: null, lastStatusChange: null, probesTotal: 0, probesUp: 0, ssl: null, domain: null, regions: null,
    errorAlerted: false, sslAlerts: null, createdAt, updatedAt: createdAt,
  };
  const seq = await store.checks.insert(draft, draft.url, null);
  return { acc, c: { ...draft, seq } };
}

function result(c: Check, at: number, up: boolean, responseTime = 100): WriteRecord {
  return {
    kind: 'observation', checkId: c.id, checkSeq: c.seq, at,
    result: { checkSeq: c.seq, at, kind: 'probe', status: up ? 'up' : 'down', statusCode: up ? 200 : 500, responseTime, timing: null, error: up ? null : 'HTTP 500', region: 'local', snippet: null, meta: null },
    event: null, sample: { ok: up, responseTime, timing: null }, sampleAt: at,
    runtime: null, statusChange: null, verifyStatus: null, endMaintenance: null, domain: null, domainMemory: null,
  };
}

const noFailure = () => assert.fail('no record fails');

test('centrals starting at once on an empty database: one migrates, the others wait and find it done', async () => {
  const url = await cluster.createDatabase();
  const stores = await Promise.all(Array.from({ length: 4 }, () => openPgStore(url, { pollMs: 0 })));
  try {
    const versions = await cluster.sql(url.split('/').pop()!, 'SELECT version FROM vigil_schema ORDER BY version');
    assert.deepEqual(versions.map((r) => r.version), PG_MIGRATIONS.map((m) => m.version), 'each migration applied once');
    // Emails are found whatever their case, as SQLite's COLLATE NOCASE does.
    const { acc } = await seeded(stores[0]!);
    assert.equal((await stores[1]!.accounts.byEmail(acc.email.toLowerCase()))?.id, acc.id);
  } finally {
    await Promise.all(stores.map((s) => s.close()));
  }
});

test('the checks poll reads whole rows only of checks new to it: those stamped together (a bulk import) are not read again each poll', async () => {
  const url = await cluster.createDatabase();
  const server = await openPgStore(url, { pollMs: 0, watchChecks: true });
  const cli = await openPgStore(url, { pollMs: 0 });
  const wholeRows: number[] = [];
  const query = server.db.query.bind(server.db);
  server.db.query = (async (text: string, params?: readonly unknown[], name?: string) => {
    if (text.startsWith('SELECT * FROM checks WHERE id = ANY')) wholeRows.push((params![0] as string[]).length);
    return query(text, params, name);
  }) as typeof server.db.query;
  try {
    const bulk: Check[] = [];
    for (let i = 0; i < 5; i++) bulk.push((await seeded(cli)).c);
    await server.refresh();
    assert.deepEqual((await server.checks.writtenElsewhere()).map((x) => x.id).sort(), bulk.map((c) => c.id).sort());
    assert.deepEqual(wholeRows, [5]);
    await server.refresh();
    await server.refresh();
    assert.deepEqual(wholeRows, [5], 'still within the overlap, and unchanged: not read again');
    assert.deepEqual(await server.checks.writtenElsewhere(), []);
    const changed = bulk[2]!;
    await cli.checks.updateSettings(changed.id, { ...changed, name: 'renamed elsewhere' }, changed.url, Date.now() + 1);
    await server.refresh();
    assert.deepEqual(wholeRows, [5, 1], 'only the changed one');
    assert.deepEqual((await server.checks.writtenElsewhere()).map((x) => [x.id, x.name]), [[changed.id, 'renamed elsewhere']]);
  } finally {
    await server.close();
    await cli.close();
  }
});

test('a key revoked by another process moves the credentials version; checks it wrote are reported', async () => {
  const url = await cluster.createDatabase();
  const server = await openPgStore(url, { pollMs: 0, watchChecks: true });
  const cli = await openPgStore(url, { pollMs: 0 });
  try {
    const { acc, c: first } = await seeded(cli);
    await server.refresh();
    assert.deepEqual((await server.checks.writtenElsewhere()).map((x) => x.id), [first.id], 'a check the CLI created');
    const before = server.credentialsVersion();
    const key = { id: id('key'), accountId: acc.id, name: 'k', scopes: ['checks:read' as const], access: null, expiresAt: null, disabled: false, revokedAt: null, createdAt: 1 };
    await cli.keys.insert(key, Buffer.from(key.id));
    await cli.keys.revoke(key.id, 2);
    assert.equal(server.credentialsVersion(), before, 'read by refresh, not on every call');
    await server.refresh();
    assert.notEqual(server.credentialsVersion(), before);
    assert.equal((await server.keys.byHash(Buffer.from(key.id)))?.revokedAt, 2);

    const { c } = await seeded(cli);
    await server.refresh();
    assert.deepEqual((await server.checks.writtenElsewhere()).map((x) => x.id), [c.id]);
    assert.deepEqual(await server.checks.writtenElsewhere(), [], 'reported once');
    await server.checks.updateSettings(c.id, { ...c, name: 'renamed here' }, c.url, Date.now());
    await server.refresh();
    assert.deepEqual(await server.checks.writtenElsewhere(), [], 'its own writes are not news');
  } finally {
    await server.close();
    await cli.close();
  }
});

test('hour and day rows are built once passed, reads agree at every level, and a late result reaches them all', async () => {
  const store = await openPgStore(await cluster.createDatabase(), { pollMs: 0 });
  try {
    const now = Date.now();
    const day = Math.floor(now / DAY) * DAY - 2 * DAY;
    const { c } = await seeded(store, day);
    const batch = [result(c, day + 60_000, true, 100), result(c, day + 61_000, false), result(c, day + HOUR + 5, true, 300)];
    await store.applyWrites(batch, noFailure);
    await store.applyWrites([result(c, day + 90_000, true, 200)], noFailure);
    const whole: [number, number][] = [[day, day + DAY]];
    const minute = await store.rollups.totals(c.seq, 'minute', whole);
    assert.deepEqual([minute.total, minute.success, minute.failure, minute.rtMin, minute.rtMax], [4, 3, 1, 100, 300]);
    await store.rollups.flushOpen(now);
    const marks = await store.rollups.openBuckets();
    assert.equal(marks.hourFrom, Math.floor(now / HOUR) * HOUR);
    assert.equal(marks.dayFrom, Math.floor(now / DAY) * DAY);
    for (const level of ['hour', 'day'] as const) assert.deepEqual(await store.rollups.totals(c.seq, level, whole), minute, `${level} rows hold what minutes held`);
    assert.equal((await store.rollups.rows(c.seq, 'hour', whole)).length, 2, 'one built row per hour');
    assert.deepEqual((await store.rollups.bucketTotals(c.seq, 'hour', day, day + DAY)).map(([at, t]) => [at - day, t.total]), [[0, 3], [HOUR, 1]]);
    const p50 = (await store.rollups.rollup(c.seq, 'day', whole)).rt.percentile(50)!;
    assert.ok(Math.abs(p50 - 200) < 4, `the histograms were merged (p50 ${p50})`);

    await store.applyWrites([result(c, day + 2 * HOUR, false)], noFailure);
    for (const level of ['minute', 'hour', 'day'] as const) {
      assert.equal((await store.rollups.totals(c.seq, level, whole)).total, 5, `the late result is in the ${level} level`);
    }
  } finally {
    await store.close();
  }
});

test('partitions are made ahead, rows outside them move in later, and retention drops whole expired days', async () => {
  const url = await cluster.createDatabase();
  const store = await openPgStore(url, { pollMs: 0 });
  const database = url.split('/').pop()!;
  try {
    const today = Math.floor(Date.now() / DAY) * DAY;
    const partitions = async () =>
      (await cluster.sql(database, "SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname = 'history' ORDER BY 1")).map((r) => r.name as string);
    const day = (t: number) => new Date(t).toISOString().slice(0, 10).replace(/-/g, '');
    assert.ok((await partitions()).includes(`history_p${day(today + 3 * DAY)}`), 'days ahead exist');

    const old = today - 40 * DAY;
    const { c } = await seeded(store, old);
    await store.applyWrites([result(c, old + 1000, true), result(c, old + DAY + 1000, true), result(c, today + 1000, true)], noFailure);
    const inDefault = await cluster.sql(database, 'SELECT count(*)::int AS n FROM history_default');
    assert.equal(inDefault[0]!.n, 2, 'rows older than every partition wait in the default partition');
    await ensurePartitions(store.db, old);
    assert.equal((await cluster.sql(database, 'SELECT count(*)::int AS n FROM history_default'))[0]!.n, 0, 'and move into the partitions made for them');

    const dropped = await store.maintainPartitions(Date.now(), old + DAY, old + DAY);
    assert.equal(dropped, 4, 'the history and minute partitions of the day before and of the old day');
    assert.ok(!(await partitions()).includes(`history_p${day(old)}`));
    assert.deepEqual((await store.history.forCheck(c.seq, 10)).map((r) => r.at), [today + 1000, old + DAY + 1000]);
    assert.deepEqual(await store.rollups.horizons(c.seq), { rawFrom: old + DAY, minutesFrom: old + DAY });
  } finally {
    await store.close();
  }
});

test('a commit that fails rolls the unit back whole: a transaction rejects, and so does a batch, writing nothing', async () => {
  const store = await openPgStore(await cluster.createDatabase(), { pollMs: 0 });
  try {
    const { acc, c } = await seeded(store);
    const ran: string[] = [];
    store.db.failNextCommit();
    await assert.rejects(
      store.transaction(async () => {
        await store.accounts.setClaimed(acc.id);
        await store.history.insertEvent({ checkSeq: c.seq, at: 1, status: 'note', region: null, meta: {} });
        store.afterCommit(() => ran.push('effect'));
      }),
      /COMMIT failed/,
    );
    assert.deepEqual(ran, [], 'no effect of a unit that did not commit');
    assert.deepEqual(await store.history.forCheck(c.seq, 10), []);
    store.db.failNextCommit();
    await assert.rejects(store.applyWrites([result(c, Date.now(), true)], noFailure), /COMMIT failed/);
    assert.deepEqual(await store.history.forCheck(c.seq, 10), [], 'the batch left nothing');
    await store.applyWrites([result(c, Date.now(), true)], noFailure);
    assert.equal((await store.history.forCheck(c.seq, 10)).length, 1, 'the next one commits');
  } finally {
    await store.close();
  }
});

test('units that overlap: one ending leaves the other bound to its client, for its reads and its nested units', async () => {
  // The async context is disabled once no unit is open (db.ts): it must stay on while any is.
  const db = new PgDb(await cluster.createDatabase(), { max: 3 });
  try {
    await db.run('CREATE TABLE t (v INTEGER)');
    let endA!: () => void;
    const aMayEnd = new Promise<void>((resolve) => (endA = resolve));
    let aEnded!: () => void;
    const afterA = new Promise<void>((resolve) => (aEnded = resolve));
    const a = db.transaction(async () => {
      await db.run('INSERT INTO t VALUES ($1)', [1]);
      await aMayEnd;
    }).then(aEnded);
    const b = db.transaction(async () => {
      await db.run('INSERT INTO t VALUES ($1)', [2]);
      endA();
      await afterA;
      assert.equal(db.inUnit(), true, 'still in its unit once the other has ended');
      assert.deepEqual((await db.query('SELECT v FROM t ORDER BY v')).map((r) => r.v), [1, 2], 'reads on its own client see its write');
      await assert.rejects(db.transaction(async () => {
        await db.run('INSERT INTO t VALUES ($1)', [3]);
        throw new Error('nested rolls back');
      }), /nested rolls back/);
      await db.transaction(() => db.run('INSERT INTO t VALUES ($1)', [4]));
    });
    await Promise.all([a, b]);
    assert.equal(db.inUnit(), false);
    assert.deepEqual((await db.query('SELECT v FROM t ORDER BY v')).map((r) => r.v), [1, 2, 4], 'only the nested unit that threw was undone');
    const again = await db.transaction(async () => db.inUnit());
    assert.equal(again, true, 'a unit opened after all had ended is bound again');
  } finally {
    await db.close();
  }
});

test('a unit whose process stops inside it is ended by PostgreSQL: the slots it locked are taken over, and it cannot commit', { timeout: 60_000 }, async () => {
  const store = await openPgStore(await cluster.createDatabase(), { pollMs: 0 });
  try {
    const t = Date.now();
    const a = { name: 'central-a', epoch: await store.cluster.join('central-a', '1.0.0', t, 1_000) };
    const b = { name: 'central-b', epoch: await store.cluster.join('central-b', '1.0.0', t, 60_000) };
    assert.deepEqual(await store.cluster.claim(a, [0], t, 1_000), [0]);
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    let renewed: number[] | null = null;
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    // Central a renews inside a unit and then stops (SIGSTOP) before its COMMIT: slot 0's row stays locked.
    const stopped = store.transaction(async () => {
      renewed = await store.cluster.renew(a, t, 1_000, 1);
      holding();
      await woken;
    });
    await held;
    assert.deepEqual(renewed, [0]);
    // Once a's lease has run out, b's claim waits on that lock until PostgreSQL ends a's idle transaction.
    assert.deepEqual(await store.cluster.claim(b, [0], t + 2_000, 60_000), [0]);
    wake();
    await assert.rejects(stopped, /connection/);
    assert.deepEqual(await store.cluster.renew(a, t + 3_000, 1_000, 0), [], 'a keeps its instance row but no slot');
  } finally {
    await store.close();
  }
});

test('its periodic work is jobs for the app\'s JobRunner (none with pollMs 0): run there, the refresh sees another process\'s check', async () => {
  const url = await cluster.createDatabase();
  const server = await openPgStore(url, { pollMs: 20, watchChecks: true });
  const cli = await openPgStore(url, { pollMs: 0 });
  const runner = new JobRunner({ clock: systemClock, log: createLogger('silent') });
  try {
    assert.deepEqual(server.jobs().map((j) => j.name), ['store-refresh', 'store-partitions']);
    assert.deepEqual(cli.jobs(), [], 'a short-lived process reads nothing by itself');
    for (const job of server.jobs()) runner.add(job);
    runner.start();
    const { c } = await seeded(cli);
    let seen: string[] = [];
    for (let i = 0; i < 200 && seen.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      seen = (await server.checks.writtenElsewhere()).map((x) => x.id);
    }
    assert.deepEqual(seen, [c.id]);
    const refresh = runner.readings().find((r) => r.name === 'store-refresh')!;
    assert.ok(refresh.runs > 0);
    assert.equal(refresh.failures, 0);
  } finally {
    runner.stop();
    await server.close();
    await cli.close();
  }
});
