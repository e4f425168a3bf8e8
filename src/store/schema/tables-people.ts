import { bigint, blob, bool, index, int, json, table, text, time, type Table } from './describe.js';

/**
 * Who may sign in and how: agent signups and OAuth, sessions and login links, members with their
 * sign-in secrets, passkeys, single sign-on identities, attempt tallies and the audit log. Only
 * hashes of what a client holds are stored (decisions §1); a TOTP secret is kept as it must be
 * read to check a code.
 */
export const PEOPLE_TABLES: Table[] = [
  // One row per agent-created account: its claim link, hashed.
  table('agent_signups', 4, [
    text('account_id').primaryKey().references('accounts'),
    text('agent_name'),
    blob('claim_hash').notNull().unique(),
    time('claim_expires_at').notNull(),
    time('claimed_at'),
    time('created_at').notNull(),
  ], {
    // The daily signup limit counts today's rows.
    indexes: [index('agent_signups_created', ['created_at'])],
  }),

  // One grant per signup; revoking it revokes every token issued under it.
  table('oauth_grants', 4, [
    text('id').primaryKey(),
    text('account_id').notNull().references('accounts'),
    json('scopes').notNull(),
    time('revoked_at'),
    time('created_at').notNull(),
  ], { indexes: [index('oauth_grants_account', ['account_id'])] }),

  table('oauth_tokens', 4, [
    text('id').primaryKey(),
    text('grant_id').notNull().references('oauth_grants'),
    text('account_id').notNull().references('accounts'),
    text('kind').notNull().check("kind IN ('access', 'refresh')"),
    blob('token_hash').notNull().unique(),
    json('scopes').notNull(),
    time('expires_at').notNull(),
    // A refresh token is spent by its one rotation; presenting it again is reuse.
    time('used_at'),
    time('created_at').notNull(),
  ], { indexes: [index('oauth_tokens_grant', ['grant_id']), index('oauth_tokens_expires', ['expires_at'])] }),

  // A session rests on the API key it was opened with, on a member (user_id), or, opened by a
  // login link, on the account alone.
  table('sessions', 6, [
    text('id').primaryKey(),
    blob('token_hash').notNull().unique(),
    text('account_id').notNull().references('accounts'),
    text('key_id').references('api_keys'),
    time('created_at').notNull(),
    time('expires_at').notNull(),
    text('user_id').references('users').since(18),
    text('method').since(18),
    text('address').since(18),
    text('user_agent').since(18),
  ], { indexes: [index('sessions_expiry', ['expires_at']), index('sessions_user', ['user_id'], { since: 18 })] }),

  table('login_links', 6, [
    blob('token_hash').primaryKey(),
    text('account_id').notNull().references('accounts'),
    time('created_at').notNull(),
    time('expires_at').notNull(),
    time('used_at'),
  ]),

  table('users', 18, [
    text('id').primaryKey(),
    text('account_id').notNull().references('accounts'),
    text('email').notNull().caselessUnique('users_email'),
    text('name'),
    text('role').notNull(),
    text('password_hash'),
    text('totp_secret'),
    time('totp_enabled_at'),
    bigint('totp_last_step'),
    time('created_at').notNull(),
    time('updated_at').notNull(),
  ], { indexes: [index('users_account', ['account_id', 'created_at'])] }),

  table('user_setup_links', 18, [
    blob('token_hash').primaryKey(),
    text('user_id').notNull().references('users'),
    time('created_at').notNull(),
    time('expires_at').notNull(),
    time('used_at'),
  ], { indexes: [index('user_setup_links_user', ['user_id'])] }),

  table('user_recovery_codes', 18, [
    text('user_id').notNull().references('users'),
    blob('code_hash').notNull(),
    time('created_at').notNull(),
    time('used_at'),
  ], { primaryKey: ['user_id', 'code_hash'], sqlite: { withoutRowid: true } }),

  table('audit_log', 18, [
    bigint('seq').primaryKey('autoincrement'),
    text('account_id').notNull().references('accounts'),
    time('at').notNull(),
    text('actor_kind').notNull(),
    text('actor_id').notNull(),
    text('actor_name').notNull(),
    text('action').notNull(),
    text('target_kind').notNull(),
    text('target_id'),
    text('target_name'),
    json('fields').notNull(),
    text('address'),
  ], { indexes: [index('audit_log_account', ['account_id', 'seq']), index('audit_log_at', ['at'])] }),

  table('passkeys', 19, [
    text('id').primaryKey(),
    text('user_id').notNull().references('users'),
    text('credential_id').notNull().unique(),
    blob('public_key').notNull(),
    bigint('counter').notNull(),
    json('transports').notNull(),
    text('name').notNull(),
    bool('backed_up').notNull(),
    time('created_at').notNull(),
    time('last_used_at'),
  ], { indexes: [index('passkeys_user', ['user_id', 'created_at'])] }),

  // The short-lived state of sign-in ceremonies (WebAuthn challenges, single sign-on state,
  // nonce and PKCE), by the hash of what the client holds.
  table('auth_challenges', 19, [
    blob('hash').primaryKey(),
    text('purpose').notNull(),
    text('user_id').references('users'),
    json('data').notNull(),
    time('created_at').notNull(),
    time('expires_at').notNull(),
  ], { indexes: [index('auth_challenges_expiry', ['expires_at'])] }),

  // Members bound to their accounts at OpenID providers by (issuer, subject): single sign-on
  // finds a member by this binding, not by the email the provider sends.
  table('sso_identities', 24, [
    text('id').primaryKey(),
    text('user_id').notNull().references('users'),
    text('issuer').notNull(),
    text('subject').notNull(),
    text('email'),
    time('created_at').notNull(),
    time('last_used_at'),
  ], { unique: [['issuer', 'subject'], ['user_id', 'issuer']] }),

  // Counted before any password is hashed (store/attempt-tallies.ts), shared by every central.
  table('sign_in_attempts', 25, [
    text('key').primaryKey(),
    int('attempts').notNull(),
    time('forget_at').notNull(),
  ], { indexes: [index('sign_in_attempts_forget', ['forget_at'])], sqlite: { withoutRowid: true } }),
];
