import type { Config } from '../config.js';
import { TIERS, type Tier } from '../domain/plans.js';
import type { Clock } from '../domain/clock.js';
import { errors } from '../domain/errors.js';
import { limitsFor } from '../domain/plans.js';
import type { Account, ApiKey, KeyAccess, Scope } from '../domain/records.js';
import { SCOPES } from '../domain/records.js';
import { hashSecret, newApiKey, newId } from '../domain/secrets.js';
import type { Store } from '../store/store.js';
import { parseIsoInstant } from './iso-date.js';
import { requireFullAccess, type Principal } from './principal.js';
import { newUser, SYSTEM_ACTOR, type Actor } from '../domain/people.js';
import { AuditLog, type AuditSource } from './audit-log.js';

export const ADMIN_EMAIL = 'admin@localhost';
const EMAIL = /^[^\s@]+@[^\s@]+$/;

export interface NewKeyInput {
  account: string;
  scopes?: string[];
  checkIds?: string[];
  folders?: string[];
  expiresAt?: string;
  name?: string;
}

export interface CreatedKey {
  id: string;
  key: string;
  scopes: Scope[];
  expiresAt: number | null;
  access: KeyAccess | null;
}

export interface AccountSummary {
  id: string;
  email: string;
  tier: Tier;
  claimed: boolean;
  createdAt: number;
  checks: number;
  keys: number;
}

export interface KeySummary {
  id: string;
  accountId: string;
  name: string | null;
  status: 'active' | 'disabled' | 'expired' | 'revoked';
  scopes: Scope[];
  access: KeyAccess | null;
  expiresAt: number | null;
  createdAt: number;
}

/** Whether a key authenticates now, and if not why (revocation is final, so it wins). */
function keyStatus(key: ApiKey, now: number): KeySummary['status'] {
  if (key.revokedAt !== null) return 'revoked';
  if (key.disabled) return 'disabled';
  if (key.expiresAt !== null && key.expiresAt <= now) return 'expired';
  return 'active';
}

function keySummary(k: ApiKey, now: number): KeySummary {
  return {
    id: k.id,
    accountId: k.accountId,
    name: k.name,
    status: keyStatus(k, now),
    scopes: k.scopes,
    access: k.access,
    expiresAt: k.expiresAt,
    createdAt: k.createdAt,
  };
}

/** Accounts and API keys: the one place that creates, disables and revokes them. */
export class AccountsService {
  private readonly audit: AuditLog;

  constructor(
    private readonly store: Store,
    private readonly config: Config,
    private readonly clock: Clock,
  ) {
    this.audit = new AuditLog(store, clock);
  }

  /**
   * A new account with its owner: a member with the account's email (issue 28), who signs in with
   * a login link or sets a password from a set-up link. No owner is added when that address is
   * already a member of another account (`vigil user create` adds one then).
   */
  async createAccount(email: string, tier: string = 'free', actor: Actor = SYSTEM_ACTOR): Promise<Account> {
    const normalised = checkNewAccount(email, tier);
    return await this.store.transaction(async () => {
      if (await this.store.accounts.byEmail(normalised)) throw errors.conflict(`an account with email ${normalised} already exists`);
      const now = this.clock.now();
      const account: Account = { id: newId('acc'), email: normalised, tier: tier as Tier, maxChecksOverride: null, claimed: true, createdAt: now };
      await this.store.accounts.insert(account);
      const audit = this.audit;
      await audit.record({ actor }, account.id, 'account.create', { kind: 'account', id: account.id, name: normalised }, ['email', 'tier']);
      if (!(await this.store.users.byEmail(normalised))) {
        const owner = newUser(newId('usr'), account.id, normalised, 'owner', null, now);
        await this.store.users.insert(owner);
        await audit.record({ actor }, account.id, 'member.create', { kind: 'member', id: owner.id, name: normalised }, ['email', 'role']);
      }
      return account;
    });
  }

  async findAccount(idOrEmail: string): Promise<Account> {
    const account = (await this.store.accounts.byId(idOrEmail)) ?? (await this.store.accounts.byEmail(idOrEmail.trim().toLowerCase()));
    if (!account) throw errors.notFound(`no account ${idOrEmail}`);
    return account;
  }

  /** `beyondAllowance`: the operator's own short-lived key (the CLI handing work to the server), not one of the plan's. */
  async createKey(input: NewKeyInput, source: AuditSource = { actor: SYSTEM_ACTOR }, options: { beyondAllowance?: boolean } = {}): Promise<CreatedKey> {
    const { scopes, expiresAt, access } = checkNewKey(input, this.clock.now());

    return await this.store.transaction(async () => {
      const account = await this.findAccount(input.account);
      // A key restricted to a check it can never see is a mistake, not a restriction.
      const foreign: string[] = [];
      for (const id of access?.checkIds ?? []) if ((await this.store.checks.byId(id))?.accountId !== account.id) foreign.push(id);
      if (foreign.length > 0) throw errors.badRequest(`no check ${foreign.join(', ')} in account ${account.email}`);
      const allowance = limitsFor(this.config, account).maxApiKeys;
      if (!options.beyondAllowance && (await this.store.keys.countLive(account.id)) >= allowance) {
        throw errors.conflict(`the ${account.tier} plan allows ${allowance} API key${allowance === 1 ? '' : 's'}; revoke one first`);
      }
      const secret = newApiKey();
      const key: ApiKey = {
        id: newId('key'),
        accountId: account.id,
        name: input.name ?? null,
        scopes,
        access,
        expiresAt,
        disabled: false,
        revokedAt: null,
        createdAt: this.clock.now(),
      };
      await this.store.keys.insert(key, hashSecret(secret));
      const fields = ['scopes', ...(access ? ['access'] : []), ...(expiresAt !== null ? ['expiresAt'] : []), ...(key.name !== null ? ['name'] : [])];
      await this.audit.record(source, account.id, 'key.create', keyTarget(key), fields);
      return { id: key.id, key: secret, scopes, expiresAt, access };
    });
  }

  /** Every account with its number of checks and of keys not revoked (the CLI's account list). */
  /** What the account uses of its plan (spec 2.7 `usage`). */
  async usage(accountId: string): Promise<{ checks: number }> {
    return { checks: await this.store.checks.countForAccount(accountId) };
  }

  async listAccounts(): Promise<AccountSummary[]> {
    const summaries: AccountSummary[] = [];
    for (const a of await this.store.accounts.all()) {
      summaries.push({
        id: a.id,
        email: a.email,
        tier: a.tier,
        claimed: a.claimed,
        createdAt: a.createdAt,
        checks: await this.store.checks.countForAccount(a.id),
        keys: await this.store.keys.countLive(a.id),
      });
    }
    return summaries;
  }

  /** Keys of one account (by id or email) or of all, never their secrets (the CLI's key list). */
  async listKeys(account?: string): Promise<KeySummary[]> {
    const owner = account === undefined ? null : (await this.findAccount(account)).id;
    const now = this.clock.now();
    return (await this.store.keys.list(owner)).map((k) => keySummary(k, now));
  }

  /** The caller's account's keys (the keys API), never their secrets. */
  async keysOf(principal: Principal): Promise<KeySummary[]> {
    requireFullAccess(principal);
    return this.listKeys(principal.account.id);
  }

  /** A key of the caller's account (the keys API): the secret is in the answer and nowhere else. */
  async createKeyFor(principal: Principal, input: Omit<NewKeyInput, 'account'>): Promise<{ secret: string; key: KeySummary }> {
    requireFullAccess(principal);
    const created = await this.createKey({ ...input, account: principal.account.id }, principal);
    return { secret: created.key, key: keySummary((await this.store.keys.byId(created.id))!, this.clock.now()) };
  }

  /** Revokes a key of the caller's account (the keys API); revoking one already revoked changes nothing. */
  async revokeKeyFor(principal: Principal, id: string): Promise<void> {
    requireFullAccess(principal);
    const key = await this.store.keys.byId(id);
    if (!key) throw errors.notFound(`API key ${id} not found`);
    if (key.accountId !== principal.account.id) throw errors.forbidden('This API key belongs to another account');
    if (key.revokedAt === null) await this.revoke(key, principal);
  }

  async revokeKey(id: string, source: AuditSource = { actor: SYSTEM_ACTOR }): Promise<void> {
    await this.revoke(await this.liveKey(id), source);
  }

  async setKeyDisabled(id: string, disabled: boolean, source: AuditSource = { actor: SYSTEM_ACTOR }): Promise<void> {
    const key = await this.liveKey(id);
    await this.store.transaction(async () => {
      await this.store.keys.setDisabled(id, disabled);
      await this.audit.record(source, key.accountId, disabled ? 'key.disable' : 'key.enable', keyTarget(key), ['disabled']);
    });
  }

  private async revoke(key: ApiKey, source: AuditSource): Promise<void> {
    await this.store.transaction(async () => {
      await this.store.keys.revoke(key.id, this.clock.now());
      await this.audit.record(source, key.accountId, 'key.revoke', keyTarget(key), ['revokedAt']);
    });
  }

  /**
   * First start of an empty data directory: the admin account with one key holding every
   * scope. Returns the key (to print once) or null when accounts already exist.
   */
  async bootstrapAdmin(): Promise<CreatedKey | null> {
    try {
      return await this.store.transaction(async () => {
        if ((await this.store.accounts.count()) > 0) return null;
        const account = await this.createAccount(ADMIN_EMAIL, 'pro');
        return this.createKey({ account: account.id, scopes: [...SCOPES], name: 'admin' });
      });
    } catch (err) {
      // Several centrals starting at once on an empty shared database: one of them creates the admin.
      if ((await this.store.accounts.count()) > 0) return null;
      throw err;
    }
  }

  private async liveKey(id: string): Promise<ApiKey> {
    const key = await this.store.keys.byId(id);
    if (!key) throw errors.notFound(`no API key ${id}`);
    if (key.revokedAt !== null) throw errors.conflict(`API key ${id} is revoked; revocation is final`);
    return key;
  }
}

/** Input rules of a new account, checked before anything is opened or written. Returns the normalised email. */
export function checkNewAccount(email: string, tier: string): string {
  const normalised = email.trim().toLowerCase();
  if (!EMAIL.test(normalised) || normalised.length > 254) throw errors.badRequest(`invalid email address: ${email}`);
  if (!(TIERS as readonly string[]).includes(tier)) throw errors.badRequest(`tier must be one of ${TIERS.join(', ')}`);
  return normalised;
}

/** Input rules of a new key, checked before anything is opened or written. */
export function checkNewKey(input: Omit<NewKeyInput, 'account'>, now: number) {
  const scopes = parseScopes(input.scopes);
  const expiresAt = parseExpiry(input.expiresAt, now);
  // An empty restriction must not silently become "unrestricted".
  if (input.checkIds !== undefined && unique(input.checkIds).length === 0) throw errors.badRequest('checks needs at least one check id');
  if (input.folders !== undefined && unique(input.folders).length === 0) throw errors.badRequest('folders needs at least one folder name');
  const checkIds = unique(input.checkIds ?? []);
  const folders = unique(input.folders ?? []);
  const access: KeyAccess | null = checkIds.length || folders.length ? { checkIds, folders } : null;
  if (input.name !== undefined && input.name.length > 100) throw errors.badRequest('key name must be at most 100 characters');
  return { scopes, expiresAt, access };
}

function parseScopes(raw: string[] | undefined): Scope[] {
  if (!raw || raw.length === 0) return ['checks:read'];
  const unknown = raw.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length) throw errors.badRequest(`unknown scope ${unknown.join(', ')}; allowed: ${SCOPES.join(', ')}`);
  return unique(raw) as Scope[];
}

function parseExpiry(raw: string | undefined, now: number): number | null {
  if (raw === undefined) return null;
  const ms = parseIsoInstant(raw);
  if (Number.isNaN(ms)) throw errors.badRequest(`expires-at must be an ISO 8601 date: ${raw}`);
  if (ms <= now) throw errors.badRequest('expires-at must be in the future');
  return ms;
}

const unique = (values: string[]): string[] => [...new Set(values.map((v) => v.trim()).filter(Boolean))];

const keyTarget = (k: ApiKey) => ({ kind: 'key', id: k.id, name: k.name });
