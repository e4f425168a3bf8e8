import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openDatabase } from '../../src/store/db.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { sqliteDeliveryQueue } from '../../src/store/sqlite/alerts/delivery-queue.js';

/** Version 7 (issue 17) on a database that already has a delivery queue: nothing waiting is lost or reordered. */

/** Alert routing, reminders, delivery order and retry window. */
const ALERTS_ROUTING = 7;
const T0 = Date.UTC(2026, 5, 1, 12);
const HOUR = 3_600_000;

test('deliveries queued before the upgrade learn their check, a 24 h window and their place in line', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-migrate-alerts-'));
  try {
    const old = new Database(join(dir, 'vigil.db'));
    for (const m of MIGRATIONS.filter((m) => m.version < ALERTS_ROUTING)) old.exec(m.sql);
    old.pragma(`user_version = ${ALERTS_ROUTING - 1}`);
    old.prepare("INSERT INTO accounts (id, email, tier, created_at) VALUES ('acc_1', 'a@example.com', 'pro', ?)").run(T0);
    old.prepare("INSERT INTO webhooks (id, account_id, name, url, url_key, webhook_type, events, created_at) VALUES ('whk_1', 'acc_1', 'h', 'https://x.example', 'https://x.example/', 'generic', '[]', ?)").run(T0);
    const alert = old.prepare("INSERT INTO alert_events (account_id, check_id, event, content, created_at) VALUES ('acc_1', 'chk_1', ?, '{}', ?)");
    const delivery = old.prepare("INSERT INTO alert_deliveries (id, alert_seq, channel, target, status, attempts, next_at) VALUES (?, ?, 'webhook', 'whk_1', ?, ?, ?)");
    delivery.run('dlv_done', Number(alert.run('website_down', T0).lastInsertRowid), 'delivered', 1, T0);
    delivery.run('dlv_down', Number(alert.run('website_down', T0 + 1).lastInsertRowid), 'pending', 2, T0 + 5000);
    delivery.run('dlv_up', Number(alert.run('website_up', T0 + 2).lastInsertRowid), 'pending', 0, T0 + 2);
    old.close();

    const db = openDatabase(dir);
    assert.equal(db.pragma('user_version', { simple: true }), Math.max(...MIGRATIONS.map((m) => m.version)));
    const rows = db.prepare('SELECT id, check_id, retry_until, held FROM alert_deliveries ORDER BY seq').all();
    assert.deepEqual(rows, [
      { id: 'dlv_done', check_id: 'chk_1', retry_until: T0 + 24 * HOUR, held: 0 },
      { id: 'dlv_down', check_id: 'chk_1', retry_until: T0 + 5000 + 24 * HOUR, held: 0 },
      { id: 'dlv_up', check_id: 'chk_1', retry_until: T0 + 2 + 24 * HOUR, held: 1 },
    ]);
    const queue = sqliteDeliveryQueue(db);
    assert.deepEqual(queue.claim(T0 + 10_000, T0 + 20_000, 10, new Map(), 10).map((d) => d.id), ['dlv_down'], 'the website_up waits for its website_down');
    queue.settle([{ id: 'dlv_down', outcome: { kind: 'delivered', status: 200 } }], T0 + 10_000);
    assert.deepEqual(queue.claim(T0 + 10_000, T0 + 20_000, 10, new Map(), 10).map((d) => d.id), ['dlv_up']);
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
