import { randomBytes } from 'node:crypto';
import type { Clock } from '../domain/clock.js';
import { ADMIN_EMAIL, AccountsService } from './accounts-service.js';
import { errors } from '../domain/errors.js';
import { keyPrincipal } from './key-principal.js';
import type { Principal } from './principal.js';
import { SCOPES } from '../domain/records.js';
import { API_KEY_PATTERN, hashSecret } from '../domain/secrets.js';
import type { Config } from '../config.js';
import type { SessionRow } from '../store/session-store.js';
import type { Store } from '../store/store.js';

export const SESSION_COOKIE = 'vigil_session';
const SESSION_MS = 7 * 24 * 60 * 60 * 1000;
export const LOGIN_LINK_MS = 15 * 60 * 1000;
const SESSION_TOKEN = /^vs_[A-Za-z0-9_-]{43}$/;
const LOGIN_TOKEN = /^vl_[A-Za-z0-9_-]{43}$/;

export interface OpenedSession {
  /** The cookie's value: shown to the browser once, stored only as a hash. */
  token: string;
  principal: Principal;
  expiresAt: number;
}

/**
 * Dashboard sign-in (issue 15). A session opened with an API key is that key: every request
 * reads the key's row again, so its scopes and restrictions apply and revoking, disabling or
 * expiring it ends the session at once. A login link opens a session on its account with
 * every scope, unrestricted, like the admin key it stands in for; it ends at sign-out or expiry.
 */
export class SessionsService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly config: Config,
  ) {}

  async signInWithKey(secret: string): Promise<OpenedSession> {
    const key = API_KEY_PATTERN.test(secret.trim()) ? await this.store.keys.byHash(hashSecret(secret.trim())) : null;
    if (!key) throw errors.badRequest('apiKey is not a valid API key');
    const principal = await keyPrincipal(this.store, key, this.clock.now());
    if (typeof principal === 'string') throw errors.badRequest(`apiKey cannot sign in: ${principal}`);
    const until = Math.min(this.clock.now() + SESSION_MS, key.expiresAt ?? Number.POSITIVE_INFINITY);
    return this.open(principal, key.id, until);
  }

  async signInWithLoginLink(token: string): Promise<OpenedSession> {
    const now = this.clock.now();
    const accountId = LOGIN_TOKEN.test(token) ? await this.store.sessions.redeemLoginLink(hashSecret(token), now) : null;
    if (accountId === null) throw errors.badRequest('loginToken is unknown, already used or older than 15 minutes; ask for a new link');
    const account = await this.store.accounts.byId(accountId);
    if (!account) throw errors.badRequest('loginToken is unknown, already used or older than 15 minutes; ask for a new link');
    return this.open(this.linkPrincipal(account, ''), null, now + SESSION_MS);
  }

  /** The principal of a session cookie, or a 401 naming why there is none. */
  async resolve(token: string, challenge: string): Promise<Principal> {
    const session = SESSION_TOKEN.test(token) ? await this.store.sessions.byTokenHash(hashSecret(token)) : null;
    if (!session) throw errors.unauthorized('Session has ended; sign in again', challenge);
    const now = this.clock.now();
    // The key first: a session that ended with its key says why.
    const principal = await this.principalOf(session, now, challenge);
    if (session.expiresAt <= now) throw errors.unauthorized('Session has ended; sign in again', challenge);
    return principal;
  }

  async signOut(token: string): Promise<void> {
    const session = SESSION_TOKEN.test(token) ? await this.store.sessions.byTokenHash(hashSecret(token)) : null;
    if (session) await this.store.sessions.delete(session.id);
  }

  async pruneExpired(): Promise<number> {
    return this.store.sessions.pruneExpired(this.clock.now());
  }

  /** A one-time sign-in URL for the account (the admin account by default), valid 15 minutes. */
  async createLoginLink(accountIdOrEmail: string | undefined): Promise<{ url: string; accountId: string; email: string; expiresAt: string }> {
    const account = await new AccountsService(this.store, this.config, this.clock).findAccount(accountIdOrEmail ?? ADMIN_EMAIL);
    const token = `vl_${randomBytes(32).toString('base64url')}`;
    const now = this.clock.now();
    await this.store.sessions.insertLoginLink(hashSecret(token), account.id, now, now + LOGIN_LINK_MS);
    // The token rides in the fragment: browsers never send it to servers, proxies or logs.
    return { url: `${this.config.dashboardUrl}#login=${token}`, accountId: account.id, email: account.email, expiresAt: new Date(now + LOGIN_LINK_MS).toISOString() };
  }

  /** Set-Cookie for a new session: HttpOnly, SameSite=Strict, Secure when the public URL is https. */
  cookie(opened: OpenedSession): string {
    const maxAge = Math.max(0, Math.floor((opened.expiresAt - this.clock.now()) / 1000));
    return `${SESSION_COOKIE}=${opened.token}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${this.secure()}`;
  }

  clearCookie(): string {
    return `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict${this.secure()}`;
  }

  private secure(): string {
    return this.config.publicUrl.startsWith('https:') ? '; Secure' : '';
  }

  private async open(principal: Principal, keyId: string | null, expiresAt: number): Promise<OpenedSession> {
    const token = `vs_${randomBytes(32).toString('base64url')}`;
    const row: SessionRow = { id: `ses_${randomBytes(10).toString('hex')}`, accountId: principal.account.id, keyId, createdAt: this.clock.now(), expiresAt };
    await this.store.sessions.insert(row, hashSecret(token));
    return { token, principal: keyId === null ? this.linkPrincipal(principal.account, row.id) : principal, expiresAt };
  }

  private async principalOf(session: SessionRow, now: number, challenge: string): Promise<Principal> {
    if (session.keyId === null) {
      const account = await this.store.accounts.byId(session.accountId);
      if (!account) throw errors.unauthorized('Session has ended; sign in again', challenge);
      return this.linkPrincipal(account, session.id);
    }
    const key = await this.store.keys.byId(session.keyId);
    const principal = key ? await keyPrincipal(this.store, key, now) : 'Invalid API key';
    if (typeof principal === 'string') {
      await this.store.sessions.delete(session.id);
      throw errors.unauthorized(`Session has ended: ${principal}`, challenge);
    }
    return principal;
  }

  private linkPrincipal(account: Principal['account'], sessionId: string): Principal {
    return { kind: 'session', credentialId: sessionId, account, scopes: SCOPES, access: null, key: null };
  }
}

/** The session token of a Cookie header, if any. */
export function sessionToken(cookieHeader: string | undefined): string | null {
  if (!cookieHeader) return null;
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim();
  }
  return null;
}
