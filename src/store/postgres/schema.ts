/**
 * The PostgreSQL schema: the same logical schema as SQLite's migrations (src/store/migrations*.ts,
 * version 18: PG versions 2 to 5 follow SQLite's 14-15, 16, 17 and 18), with PostgreSQL types (BOOLEAN,
 * BYTEA, BIGINT epoch milliseconds, DOUBLE PRECISION) and the same table and column names, so `vigil store migrate` copies by name.
 * History and the rollups are partitioned by range of `at` (partitions.ts creates them ahead and
 * drops expired ones whole); what falls outside every partition lands in a DEFAULT partition.
 * Versions are recorded in `vigil_schema`; migrate.ts applies them under an advisory lock.
 */
export interface PgMigration {
  version: number;
  name: string;
  sql: string;
}

const ROLLUP_COLUMNS = `
  check_seq BIGINT NOT NULL,
  at BIGINT NOT NULL,
  total INTEGER NOT NULL,
  success INTEGER NOT NULL,
  failure INTEGER NOT NULL,
  rt_count INTEGER NOT NULL,
  rt_sum DOUBLE PRECISION NOT NULL,
  rt_min DOUBLE PRECISION,
  rt_max DOUBLE PRECISION,
  rt_hist BYTEA NOT NULL,
  dns_count INTEGER NOT NULL,
  dns_sum DOUBLE PRECISION NOT NULL,
  dns_hist BYTEA NOT NULL,
  connect_count INTEGER NOT NULL,
  connect_sum DOUBLE PRECISION NOT NULL,
  connect_hist BYTEA NOT NULL,
  tls_count INTEGER NOT NULL,
  tls_sum DOUBLE PRECISION NOT NULL,
  tls_hist BYTEA NOT NULL,
  ttfb_count INTEGER NOT NULL,
  ttfb_sum DOUBLE PRECISION NOT NULL,
  ttfb_hist BYTEA NOT NULL`;

/** A rollup table: a bucket may have several partial rows (each batch adds its own); reads sum them. */
const rollupTable = (name: string) => `
  CREATE TABLE ${name} (${ROLLUP_COLUMNS}) PARTITION BY RANGE (at);
  CREATE TABLE ${name}_default PARTITION OF ${name} DEFAULT;
  CREATE INDEX ${name}_check_at ON ${name} (check_seq, at);`;

export const PG_MIGRATIONS: PgMigration[] = [
  {
    version: 1,
    name: 'the whole schema of SQLite version 13, history and rollups partitioned by time',
    sql: `
      CREATE TABLE accounts (
        id TEXT PRIMARY KEY,
        email TEXT NOT NULL,
        tier TEXT NOT NULL,
        max_checks_override INTEGER,
        check_count INTEGER NOT NULL DEFAULT 0,
        claimed BOOLEAN NOT NULL DEFAULT true,
        created_at BIGINT NOT NULL
      );
      -- SQLite's COLLATE NOCASE: emails are unique and found whatever their case.
      CREATE UNIQUE INDEX accounts_email ON accounts (lower(email));
      CREATE INDEX accounts_unclaimed ON accounts (created_at) WHERE NOT claimed;

      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        name TEXT,
        key_hash BYTEA NOT NULL UNIQUE,
        scopes TEXT NOT NULL,
        access TEXT,
        expires_at BIGINT,
        disabled BOOLEAN NOT NULL DEFAULT false,
        revoked_at BIGINT,
        created_at BIGINT NOT NULL
      );
      CREATE INDEX api_keys_account ON api_keys (account_id);

      -- A sequence never hands a number out twice: cursors and logs keyed by seq stay right.
      CREATE TABLE checks (
        seq BIGSERIAL PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        url TEXT NOT NULL,
        url_key TEXT,
        type TEXT NOT NULL,
        folder TEXT,
        method TEXT NOT NULL,
        interval_minutes DOUBLE PRECISION NOT NULL,
        region_override TEXT,
        expected_status_codes TEXT NOT NULL,
        headers TEXT NOT NULL,
        body TEXT,
        response_validation TEXT,
        cache_control_no_cache BOOLEAN NOT NULL,
        immediate_recheck BOOLEAN NOT NULL,
        response_time_limit DOUBLE PRECISION,
        down_confirmation_attempts INTEGER NOT NULL,
        ping_packets INTEGER NOT NULL,
        timezone TEXT,
        schedule TEXT,
        grace_seconds DOUBLE PRECISION,
        disabled BOOLEAN NOT NULL DEFAULT false,
        disabled_reason TEXT,
        maintenance BOOLEAN NOT NULL DEFAULT false,
        maintenance_until BIGINT,
        heartbeat_token TEXT,
        heartbeat_token_hash BYTEA UNIQUE,
        status TEXT NOT NULL DEFAULT 'pending',
        consecutive_failures INTEGER NOT NULL DEFAULT 0,
        degraded BOOLEAN NOT NULL DEFAULT false,
        last_checked BIGINT,
        last_response_time DOUBLE PRECISION,
        last_status_code INTEGER,
        last_error TEXT,
        last_status_change BIGINT,
        probes_total BIGINT NOT NULL DEFAULT 0,
        probes_up BIGINT NOT NULL DEFAULT 0,
        ssl TEXT,
        domain TEXT,
        regions TEXT,
        error_alerted BOOLEAN NOT NULL DEFAULT false,
        ssl_alerts TEXT,
        last_synced_at BIGINT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      ) WITH (fillfactor = 70);
      -- Room on each page: a result's runtime update stays a heap-only tuple (no index writes).
      CREATE INDEX checks_account ON checks (account_id, seq);
      CREATE UNIQUE INDEX checks_account_url ON checks (account_id, url_key) WHERE url_key IS NOT NULL;
      CREATE INDEX checks_updated ON checks (updated_at);

      CREATE SEQUENCE history_id_seq AS BIGINT;
      CREATE TABLE history (
        id BIGINT NOT NULL DEFAULT nextval('history_id_seq'),
        check_seq BIGINT NOT NULL,
        at BIGINT NOT NULL,
        kind TEXT NOT NULL,
        status TEXT NOT NULL,
        status_code INTEGER,
        response_time DOUBLE PRECISION,
        dns DOUBLE PRECISION, connect DOUBLE PRECISION, tls DOUBLE PRECISION, ttfb DOUBLE PRECISION, total DOUBLE PRECISION,
        error TEXT,
        region TEXT,
        snippet TEXT,
        meta TEXT
      ) PARTITION BY RANGE (at);
      CREATE TABLE history_default PARTITION OF history DEFAULT;
      CREATE INDEX history_check_at ON history (check_seq, at, id);

      CREATE TABLE state_changes (
        id BIGSERIAL PRIMARY KEY,
        check_seq BIGINT NOT NULL,
        at BIGINT NOT NULL,
        status TEXT NOT NULL
      );
      CREATE INDEX state_changes_check_at ON state_changes (check_seq, at, id);

      CREATE TABLE idempotency_keys (
        account_id TEXT NOT NULL,
        key TEXT NOT NULL,
        method TEXT NOT NULL,
        path TEXT NOT NULL,
        body_hash TEXT NOT NULL,
        status INTEGER NOT NULL,
        response TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        PRIMARY KEY (account_id, key)
      );
      CREATE INDEX idempotency_created ON idempotency_keys (created_at);

      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

      -- Moves (in the writing transaction) whenever an account, key, OAuth grant or token changes:
      -- every process's credential caches compare it (Store.credentialsVersion).
      CREATE TABLE counters (name TEXT PRIMARY KEY, value BIGINT NOT NULL);
      INSERT INTO counters (name, value) VALUES ('credentials', 0);

      ${rollupTable('rollup_minute')}
      ${rollupTable('rollup_hour')}
      ${rollupTable('rollup_day')}
      CREATE TABLE retention_horizons (
        check_seq BIGINT PRIMARY KEY,
        raw_from BIGINT,
        minutes_from BIGINT
      );

      CREATE TABLE email_settings (
        account_id TEXT PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
        enabled BOOLEAN NOT NULL,
        recipients TEXT NOT NULL,
        events TEXT NOT NULL,
        email_format TEXT NOT NULL,
        updated_at BIGINT NOT NULL,
        check_ids TEXT NOT NULL DEFAULT '[]',
        folders TEXT NOT NULL DEFAULT '[]',
        remind_every_minutes INTEGER
      );

      CREATE TABLE webhooks (
        seq BIGSERIAL PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        url TEXT NOT NULL,
        url_key TEXT NOT NULL,
        webhook_type TEXT NOT NULL,
        events TEXT NOT NULL,
        enabled BOOLEAN NOT NULL DEFAULT true,
        secret TEXT,
        created_at BIGINT NOT NULL,
        check_ids TEXT NOT NULL DEFAULT '[]',
        folders TEXT NOT NULL DEFAULT '[]',
        remind_every_minutes INTEGER
      );
      CREATE UNIQUE INDEX webhooks_account_url ON webhooks (account_id, url_key);

      CREATE TABLE alert_events (
        seq BIGSERIAL PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        check_id TEXT NOT NULL,
        event TEXT NOT NULL,
        content TEXT NOT NULL,
        created_at BIGINT NOT NULL
      );
      CREATE INDEX alert_events_check ON alert_events (check_id, seq);
      CREATE INDEX alert_events_created ON alert_events (created_at);

      CREATE TABLE alert_deliveries (
        seq BIGSERIAL PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        alert_seq BIGINT NOT NULL REFERENCES alert_events(seq) ON DELETE CASCADE,
        channel TEXT NOT NULL,
        target TEXT NOT NULL,
        status TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_at BIGINT NOT NULL,
        last_status INTEGER,
        last_error TEXT,
        finished_at BIGINT,
        check_id TEXT NOT NULL DEFAULT '',
        retry_until BIGINT NOT NULL DEFAULT 0,
        held BOOLEAN NOT NULL DEFAULT false
      );
      CREATE INDEX alert_deliveries_alert ON alert_deliveries (alert_seq);
      CREATE INDEX alert_deliveries_due ON alert_deliveries (next_at) WHERE status IN ('pending', 'sending');
      CREATE INDEX alert_deliveries_line ON alert_deliveries (target, check_id, seq) WHERE status IN ('pending', 'sending');
      CREATE INDEX alert_deliveries_ready ON alert_deliveries (next_at) WHERE status IN ('pending', 'sending') AND NOT held;
      CREATE INDEX alert_deliveries_check ON alert_deliveries (check_id, seq);

      CREATE TABLE domain_watch (
        check_id TEXT PRIMARY KEY REFERENCES checks(id) ON DELETE CASCADE,
        expires_at BIGINT,
        alerted TEXT NOT NULL DEFAULT 'ok',
        checked_at BIGINT,
        last_error TEXT
      );

      CREATE TABLE agent_signups (
        account_id TEXT PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
        agent_name TEXT,
        claim_hash BYTEA NOT NULL UNIQUE,
        claim_expires_at BIGINT NOT NULL,
        claimed_at BIGINT,
        created_at BIGINT NOT NULL
      );
      CREATE INDEX agent_signups_created ON agent_signups (created_at);

      CREATE TABLE oauth_grants (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        scopes TEXT NOT NULL,
        revoked_at BIGINT,
        created_at BIGINT NOT NULL
      );
      CREATE INDEX oauth_grants_account ON oauth_grants (account_id);

      CREATE TABLE oauth_tokens (
        id TEXT PRIMARY KEY,
        grant_id TEXT NOT NULL REFERENCES oauth_grants(id) ON DELETE CASCADE,
        account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        kind TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
        token_hash BYTEA NOT NULL UNIQUE,
        scopes TEXT NOT NULL,
        expires_at BIGINT NOT NULL,
        used_at BIGINT,
        created_at BIGINT NOT NULL
      );
      CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id);
      CREATE INDEX oauth_tokens_expires ON oauth_tokens (expires_at);

      CREATE TABLE status_pages (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        slug TEXT NOT NULL UNIQUE,
        title TEXT NOT NULL,
        description TEXT,
        custom_domain TEXT,
        auto_incidents BOOLEAN NOT NULL DEFAULT false,
        logo_url TEXT,
        accent_color TEXT,
        footer_text TEXT,
        favicon TEXT,
        hide_powered_by BOOLEAN NOT NULL DEFAULT false,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      );
      CREATE UNIQUE INDEX status_pages_domain ON status_pages (lower(custom_domain));
      CREATE INDEX status_pages_account ON status_pages (account_id, created_at);

      CREATE TABLE status_page_checks (
        page_id TEXT NOT NULL REFERENCES status_pages(id) ON DELETE CASCADE,
        check_id TEXT NOT NULL REFERENCES checks(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        PRIMARY KEY (page_id, check_id)
      );
      CREATE INDEX status_page_checks_check ON status_page_checks (check_id);

      CREATE TABLE status_page_incidents (
        seq BIGSERIAL PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        page_id TEXT NOT NULL REFERENCES status_pages(id) ON DELETE CASCADE,
        title TEXT NOT NULL,
        impact TEXT NOT NULL,
        status TEXT NOT NULL,
        auto_check_id TEXT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        resolved_at BIGINT
      );
      CREATE INDEX status_page_incidents_page ON status_page_incidents (page_id, created_at);
      CREATE INDEX status_page_incidents_auto ON status_page_incidents (page_id, auto_check_id) WHERE auto_check_id IS NOT NULL;

      CREATE TABLE status_page_incident_checks (
        incident_id TEXT NOT NULL REFERENCES status_page_incidents(id) ON DELETE CASCADE,
        check_id TEXT NOT NULL REFERENCES checks(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        PRIMARY KEY (incident_id, check_id)
      );
      CREATE INDEX status_page_incident_checks_check ON status_page_incident_checks (check_id);

      CREATE TABLE status_page_incident_updates (
        seq BIGSERIAL PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        incident_id TEXT NOT NULL REFERENCES status_page_incidents(id) ON DELETE CASCADE,
        status TEXT NOT NULL,
        message TEXT NOT NULL,
        at BIGINT NOT NULL
      );
      CREATE INDEX status_page_incident_updates_incident ON status_page_incident_updates (incident_id, seq);

      CREATE TABLE status_page_subscribers (
        seq BIGSERIAL PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        page_id TEXT NOT NULL REFERENCES status_pages(id) ON DELETE CASCADE,
        kind TEXT NOT NULL,
        address TEXT NOT NULL,
        secret TEXT,
        token TEXT NOT NULL UNIQUE,
        confirmed_at BIGINT,
        created_at BIGINT NOT NULL,
        UNIQUE (page_id, kind, address)
      );

      CREATE TABLE readiness (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        checked_at BIGINT NOT NULL
      );

      CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        token_hash BYTEA NOT NULL UNIQUE,
        account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        key_id TEXT REFERENCES api_keys(id) ON DELETE CASCADE,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL
      );
      CREATE INDEX sessions_expiry ON sessions (expires_at);

      CREATE TABLE login_links (
        token_hash BYTEA PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        used_at BIGINT
      );

      CREATE TABLE nodes (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        region TEXT NOT NULL,
        token_hash BYTEA NOT NULL UNIQUE,
        created_at BIGINT NOT NULL,
        revoked_at BIGINT,
        connected BOOLEAN NOT NULL DEFAULT false,
        last_seen_at BIGINT,
        version TEXT,
        assigned INTEGER NOT NULL DEFAULT 0,
        probes_per_second DOUBLE PRECISION NOT NULL DEFAULT 0,
        outbox_depth INTEGER NOT NULL DEFAULT 0,
        clock_offset_ms DOUBLE PRECISION,
        rejected_results BIGINT NOT NULL DEFAULT 0,
        dropped_results BIGINT NOT NULL DEFAULT 0,
        epoch TEXT,
        last_seq BIGINT NOT NULL DEFAULT 0
      );
      CREATE INDEX nodes_region ON nodes (region);

      CREATE TABLE kuma_imports (
        account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        source_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        kuma_id BIGINT NOT NULL,
        vigil_id TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        PRIMARY KEY (account_id, source_id, kind, kuma_id)
      );

      CREATE TABLE kuma_push_tokens (
        token_hash BYTEA PRIMARY KEY,
        check_id TEXT NOT NULL REFERENCES checks(id) ON DELETE CASCADE,
        heartbeat_token_hash BYTEA NOT NULL
      );
      CREATE INDEX kuma_push_tokens_check ON kuma_push_tokens (check_id);

      -- vigil store migrate: how far each table's copy from SQLite got (resumable).
      CREATE TABLE migrate_progress (
        table_name TEXT PRIMARY KEY,
        source TEXT NOT NULL,
        copied BIGINT NOT NULL,
        last_key TEXT,
        done BOOLEAN NOT NULL DEFAULT false
      );
    `,
  },
  {
    version: 2,
    name: 'issue 27: check tags and routing by tag (SQLite 14); maintenance windows (SQLite 15)',
    sql: `
      ALTER TABLE checks ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
      ALTER TABLE email_settings ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
      ALTER TABLE webhooks ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
      ALTER TABLE status_pages ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';

      CREATE TABLE maintenance_windows (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        title TEXT NOT NULL,
        description TEXT,
        check_ids TEXT NOT NULL,
        folders TEXT NOT NULL,
        tags TEXT NOT NULL,
        all_checks BOOLEAN NOT NULL,
        starts_at BIGINT,
        ends_at BIGINT,
        schedule TEXT,
        duration_minutes INTEGER,
        timezone TEXT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      );
      CREATE INDEX maintenance_windows_account ON maintenance_windows (account_id, created_at);
      ALTER TABLE checks ADD COLUMN window_maintenance BOOLEAN NOT NULL DEFAULT false;
      CREATE INDEX checks_window_maintenance ON checks (id) WHERE window_maintenance;
    `,
  },
  {
    version: 3,
    name: 'cluster instances, check slots, ping inbox (SQLite version 16)',
    sql: `
      CREATE TABLE cluster_instances (
        name TEXT PRIMARY KEY,
        epoch BIGINT NOT NULL,
        version TEXT NOT NULL,
        started_at BIGINT NOT NULL,
        last_seen_at BIGINT NOT NULL,
        lease_until BIGINT NOT NULL,
        checks INTEGER NOT NULL DEFAULT 0,
        renewals BIGINT NOT NULL DEFAULT 0
      );
      CREATE TABLE cluster_slots (
        slot INTEGER PRIMARY KEY,
        owner TEXT,
        owner_epoch BIGINT NOT NULL DEFAULT 0,
        lease_until BIGINT NOT NULL DEFAULT 0
      );
      CREATE INDEX cluster_slots_owner ON cluster_slots (owner, owner_epoch);
      INSERT INTO cluster_slots (slot) SELECT generate_series(0, 1023);
      CREATE TABLE ping_inbox (
        seq BIGSERIAL PRIMARY KEY,
        check_id TEXT NOT NULL REFERENCES checks(id) ON DELETE CASCADE,
        slot INTEGER NOT NULL,
        at BIGINT NOT NULL,
        signal TEXT NOT NULL,
        error TEXT,
        details TEXT NOT NULL,
        region TEXT,
        received_by TEXT NOT NULL
      );
      CREATE INDEX ping_inbox_slot ON ping_inbox (slot, seq);
      CREATE INDEX ping_inbox_check ON ping_inbox (check_id);
    `,
  },
  {
    version: 4,
    name: 'monitoring file keys (SQLite version 17)',
    sql: `
      CREATE TABLE config_keys (
        account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        kind TEXT NOT NULL,
        key TEXT NOT NULL,
        object_id TEXT NOT NULL,
        PRIMARY KEY (account_id, kind, key)
      );
    `,
  },
  {
    version: 5,
    name: 'members, sign-in secrets, sessions per member, audit log (SQLite version 18, issue 28)',
    sql: `
      CREATE TABLE users (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        email TEXT NOT NULL,
        name TEXT,
        role TEXT NOT NULL,
        password_hash TEXT,
        totp_secret TEXT,
        totp_enabled_at BIGINT,
        totp_last_step BIGINT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      );
      CREATE UNIQUE INDEX users_email ON users (lower(email));
      CREATE INDEX users_account ON users (account_id, created_at);

      CREATE TABLE user_setup_links (
        token_hash BYTEA PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        used_at BIGINT
      );
      CREATE INDEX user_setup_links_user ON user_setup_links (user_id);

      CREATE TABLE user_recovery_codes (
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        code_hash BYTEA NOT NULL,
        created_at BIGINT NOT NULL,
        used_at BIGINT,
        PRIMARY KEY (user_id, code_hash)
      );

      ALTER TABLE sessions ADD COLUMN user_id TEXT REFERENCES users(id) ON DELETE CASCADE;
      ALTER TABLE sessions ADD COLUMN method TEXT;
      ALTER TABLE sessions ADD COLUMN address TEXT;
      ALTER TABLE sessions ADD COLUMN user_agent TEXT;
      CREATE INDEX sessions_user ON sessions (user_id);

      CREATE TABLE audit_log (
        seq BIGSERIAL PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        at BIGINT NOT NULL,
        actor_kind TEXT NOT NULL,
        actor_id TEXT NOT NULL,
        actor_name TEXT NOT NULL,
        action TEXT NOT NULL,
        target_kind TEXT NOT NULL,
        target_id TEXT,
        target_name TEXT,
        fields TEXT NOT NULL,
        address TEXT
      );
      CREATE INDEX audit_log_account ON audit_log (account_id, seq);
      CREATE INDEX audit_log_at ON audit_log (at);

      INSERT INTO users (id, account_id, email, name, role, created_at, updated_at)
        SELECT 'usr_' || substr(md5(random()::text || a.id), 1, 20), a.id, a.email, NULL, 'owner', a.created_at, a.created_at
        FROM accounts a WHERE a.claimed;
    `,
  },
  {
    version: 6,
    name: 'passkeys and sign-in challenges (SQLite version 19, issue 28)',
    sql: `
      CREATE TABLE passkeys (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        credential_id TEXT NOT NULL UNIQUE,
        public_key BYTEA NOT NULL,
        counter BIGINT NOT NULL,
        transports TEXT NOT NULL,
        name TEXT NOT NULL,
        backed_up BOOLEAN NOT NULL,
        created_at BIGINT NOT NULL,
        last_used_at BIGINT
      );
      CREATE INDEX passkeys_user ON passkeys (user_id, created_at);

      CREATE TABLE auth_challenges (
        hash BYTEA PRIMARY KEY,
        purpose TEXT NOT NULL,
        user_id TEXT REFERENCES users(id) ON DELETE CASCADE,
        data TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL
      );
      CREATE INDEX auth_challenges_expiry ON auth_challenges (expires_at);
    `,
  },
  {
    version: 7,
    name: 'issue 27: check dependencies (SQLite 20)',
    sql: `ALTER TABLE checks ADD COLUMN depends_on TEXT NOT NULL DEFAULT '[]';`,
  },
  {
    version: 8,
    name: 'issue 26: one alert per check and transition across centrals (SQLite 21)',
    sql: `
      ALTER TABLE alert_events ADD COLUMN transition TEXT;
      CREATE UNIQUE INDEX alert_events_transition ON alert_events (check_id, transition) WHERE transition IS NOT NULL;
    `,
  },
  {
    version: 9,
    name: 'issue 26: alert events kept with their state change until routed (SQLite 22)',
    sql: `
      CREATE TABLE alert_outbox (
        id TEXT PRIMARY KEY,
        check_id TEXT NOT NULL,
        account_id TEXT NOT NULL,
        event TEXT NOT NULL,
        created_at BIGINT NOT NULL
      );
      CREATE INDEX alert_outbox_created ON alert_outbox (created_at);
    `,
  },
  {
    version: 10,
    name: 'issue 34: status page webhook subscriptions switch, pending subscribers by age (SQLite 23)',
    sql: `
      ALTER TABLE status_pages ADD COLUMN webhook_subscriptions BOOLEAN NOT NULL DEFAULT false;
      CREATE INDEX status_page_subscribers_pending ON status_page_subscribers (created_at) WHERE confirmed_at IS NULL;
    `,
  },
  {
    version: 11,
    name: 'issue 34: single sign-on identities (SQLite 24)',
    sql: `
      CREATE TABLE sso_identities (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        issuer TEXT NOT NULL,
        subject TEXT NOT NULL,
        email TEXT,
        created_at BIGINT NOT NULL,
        last_used_at BIGINT,
        UNIQUE (issuer, subject),
        UNIQUE (user_id, issuer)
      );
    `,
  },
  {
    version: 12,
    name: 'issue 34: sign-in attempt tallies shared by every central (SQLite 25)',
    sql: `
      CREATE TABLE sign_in_attempts (
        key TEXT PRIMARY KEY,
        attempts INTEGER NOT NULL,
        forget_at BIGINT NOT NULL
      );
      CREATE INDEX sign_in_attempts_forget ON sign_in_attempts (forget_at);
    `,
  },
  {
    version: 13,
    name: 'issue 34: origins that may embed a status page (SQLite 26)',
    sql: `ALTER TABLE status_pages ADD COLUMN embed_allowed_origins TEXT NOT NULL DEFAULT '[]';`,
  },
];

export const PG_SCHEMA_VERSION = Math.max(...PG_MIGRATIONS.map((m) => m.version));
