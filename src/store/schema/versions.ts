import type { Version } from './describe.js';

/**
 * The schema's versions, one sequence for both dialects (SQLite's `user_version`, PostgreSQL's
 * `vigil_schema`), each with what the tables' `since` cannot say: data it moves, rows it seeds,
 * SQLite's triggers. Append a version for every change; never edit a shipped one.
 */
export const VERSIONS: Version[] = [
  {
    version: 1,
    name: 'accounts, keys, checks, history, idempotency',
    steps: [{
      // SQLite counts an account's checks itself; PostgreSQL's check writes keep check_count.
      sqlite: `
        CREATE TRIGGER checks_count_insert AFTER INSERT ON checks BEGIN
          UPDATE accounts SET check_count = check_count + 1 WHERE id = NEW.account_id;
        END;
        CREATE TRIGGER checks_count_delete AFTER DELETE ON checks BEGIN
          UPDATE accounts SET check_count = check_count - 1 WHERE id = OLD.account_id;
        END;`,
    }],
  },
  {
    version: 2,
    name: 'rollups per minute, hour and day, retention horizons',
    steps: [{
      // Deleting a check (which deletes its history and state changes) deletes its rollups too;
      // PostgreSQL's check deletion does it in the same transaction.
      sqlite: `
        CREATE TRIGGER checks_delete_rollups AFTER DELETE ON checks BEGIN
          DELETE FROM rollup_minute WHERE check_seq = old.seq;
          DELETE FROM rollup_hour WHERE check_seq = old.seq;
          DELETE FROM rollup_day WHERE check_seq = old.seq;
          DELETE FROM retention_horizons WHERE check_seq = old.seq;
        END;`,
    }],
  },
  { version: 3, name: 'email settings, webhooks, alert events and deliveries, domain watch' },
  { version: 4, name: 'agent signups, OAuth grants and tokens' },
  { version: 5, name: 'status pages and the readiness row' },
  { version: 6, name: 'dashboard sessions and login links' },
  {
    version: 7,
    name: 'alert routing, reminders, delivery order and retry window',
    steps: [{
      // Deliveries queued before learn their check, a 24 h retry window and their place in line.
      // PostgreSQL stores began after this version: none has such rows.
      sqlite: `
        UPDATE alert_deliveries SET
          check_id = (SELECT check_id FROM alert_events a WHERE a.seq = alert_deliveries.alert_seq),
          retry_until = next_at + 86400000;
        UPDATE alert_deliveries SET held = 1 WHERE status IN ('pending', 'sending') AND EXISTS (
          SELECT 1 FROM alert_deliveries e WHERE e.target = alert_deliveries.target AND e.check_id = alert_deliveries.check_id
            AND e.status IN ('pending', 'sending') AND e.seq < alert_deliveries.seq);`,
    }],
  },
  { version: 8, name: 'prober nodes' },
  { version: 9, name: 'Uptime Kuma import memory' },
  { version: 10, name: 'Kuma push tokens; checks by updated_at' },
  { version: 11, name: 'status page incidents' },
  { version: 12, name: 'status page subscribers' },
  {
    version: 13,
    name: 'status page look',
    steps: [{ postgres: "INSERT INTO counters (name, value) VALUES ('credentials', 0);" }],
  },
  { version: 14, name: 'check tags; routing by tag' },
  { version: 15, name: 'maintenance windows' },
  {
    version: 16,
    name: 'cluster instances, check slots, ping inbox',
    steps: [{
      sqlite: `
        WITH RECURSIVE s(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM s WHERE n < 1023)
        INSERT INTO cluster_slots (slot) SELECT n FROM s;`,
      postgres: 'INSERT INTO cluster_slots (slot) SELECT generate_series(0, 1023);',
    }],
  },
  { version: 17, name: 'monitoring file keys' },
  {
    version: 18,
    name: 'members, sign-in secrets, sessions per member, audit log',
    steps: [{
      // Every account that existed gets its owner: a member with the account's email.
      sqlite: `
        INSERT INTO users (id, account_id, email, name, role, created_at, updated_at)
          SELECT 'usr_' || lower(hex(randomblob(10))), a.id, a.email, NULL, 'owner', a.created_at, a.created_at
          FROM accounts a WHERE a.claimed = 1;`,
      postgres: `
        INSERT INTO users (id, account_id, email, name, role, created_at, updated_at)
          SELECT 'usr_' || substr(md5(random()::text || a.id), 1, 20), a.id, a.email, NULL, 'owner', a.created_at, a.created_at
          FROM accounts a WHERE a.claimed;`,
    }],
  },
  { version: 19, name: 'passkeys and sign-in challenges' },
  { version: 20, name: 'check dependencies' },
  { version: 21, name: 'one alert per check and transition' },
  { version: 22, name: 'alert outbox' },
  { version: 23, name: 'status page webhook subscriptions switch' },
  { version: 24, name: 'single sign-on identities' },
  { version: 25, name: 'sign-in attempt tallies' },
  { version: 26, name: 'status page embedding origins' },
  // Nothing changes in either store: from here PostgreSQL's versions are these (postgres/schema.ts
  // renumbers its own 1 to 13 on the way).
  { version: 27, name: 'one schema description for both stores' },
];
