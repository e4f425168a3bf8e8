import { randomBytes } from 'node:crypto';
import type { Clock } from '../domain/clock.js';
import { ADMIN_EMAIL, AccountsService } from '../core/accounts-service.js';
import { errors } from '../domain/errors.js';
import { keyPrincipal } from '../core/key-principal.js';
import type { Principal } from '../core/principal.js';
import { SCOPES } from '../domain/records.js';
import { API_KEY_PATTERN, hashSecret } from '../domain/secrets.js';
import type { Config } from '../config.js';
import type { SessionRow } from '../store/session-store.js';
import type { Store } from '../store/store.js';
import { SYSTEM_ACTOR, type User } from '../domain/people.js';
import { userPrincipal } from './user-principal.js';
import { AuditLog, type AuditSource } from '../core/audit-log.js';
import { cookieValue, setCookie, type CookieAttributes } from '../util/cookies.js';

export const SESSION_COOKIE = 'vigil_session';
/**
 * Under https the cookie is `__Host-vigil_session`: browsers keep such a cookie only when it is
 * Secure, has Path=/ and no Domain, so no other host (a sibling subdomain) can set or shadow it.
 */
export const HOST_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;
const SESSION_MS = 7 * 24 * 60 * 60 * 1000;
export const LOGIN_LINK_MS = 15 * 60 * 1000;
const SESSION_TOKEN = /^vs_[A-Za-z0-9_-]{43}$/;
const LOGIN_TOKEN = /^vl_[A-Za-z0-9_-]{43}$/;

/** Where a sign-in came from: kept with the session for its owner's list. */
export interface SignInClient {
  address: string | null;
  userAgent: string | null;
}

const NO_CLIENT: SignInClient = { address: null, userAgent: null };

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
  private readonly audit: AuditLog;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly config: Config,
  ) {
    this.audit = new AuditLog(store, clock);
  }

  async signInWithKey(secret: string, client: SignInClient = NO_CLIENT): Promise<OpenedSession> {
    const key = API_KEY_PATTERN.test(secret.trim()) ? await this.store.keys.byHash(hashSecret(secret.trim())) : null;
    if (!key) throw errors.badRequest('apiKey is not a valid API key');
    const principal = await keyPrincipal(this.store, key, this.clock.now());
    if (typeof principal === 'string') {
      // A real key that may not sign in (revoked, disabled, expired): its account learns of the try.
      const source = { kind: 'api_key', credentialId: key.id, key: { name: key.name }, address: client.address ?? undefined };
      await this.audit.record(source, key.accountId, 'session.sign_in_failed', { kind: 'session', id: null, name: 'api_key' });
      throw errors.badRequest(`apiKey cannot sign in: ${principal}`);
    }
    const until = Math.min(this.clock.now() + SESSION_MS, key.expiresAt ?? Number.POSITIVE_INFINITY);
    return this.open(principal, { keyId: key.id, user: null, method: 'api_key', client }, until);
  }

  /** A login link signs in as the account's first owner (the account itself where it has none yet). */
  async signInWithLoginLink(token: string, client: SignInClient = NO_CLIENT): Promise<OpenedSession> {
    const now = this.clock.now();
    const accountId = LOGIN_TOKEN.test(token) ? await this.store.sessions.redeemLoginLink(hashSecret(token), now) : null;
    if (accountId === null) throw errors.badRequest('loginToken is unknown, already used or older than 15 minutes; ask for a new link');
    const account = await this.store.accounts.byId(accountId);
    if (!account) throw errors.badRequest('loginToken is unknown, already used or older than 15 minutes; ask for a new link');
    const owner = (await this.store.users.list(account.id)).find((u) => u.role === 'owner') ?? null;
    if (owner) return this.openForUser(owner, 'login_link', client);
    return this.open(this.linkPrincipal(account, ''), { keyId: null, user: null, method: 'login_link', client }, now + SESSION_MS);
  }

  /**
   * A session for the member `user`: where every way of signing a person in ends (password,
   * TOTP, set-up link, passkey, single sign-on, email link), once it has proved who they are.
   * `method` names the way, for the sessions list and the audit log.
   */
  async openForUser(user: User, method: string, client: SignInClient = NO_CLIENT): Promise<OpenedSession> {
    const account = await this.store.accounts.byId(user.accountId);
    if (!account) throw errors.unauthorized('This member\'s account no longer exists', 'Bearer realm="vigil"');
    const principal = userPrincipal(account, user, '');
    return this.open(principal, { keyId: null, user, method, client }, this.clock.now() + SESSION_MS);
  }

  /** The principal of a session cookie, or a 401 naming why there is none. */
  async resolve(token: string, challenge: string): Promise<Principal> {
    const session = SESSION_TOKEN.test(token) ? await this.store.sessions.byTokenHash(hashSecret(token)) : null;
    if (!session) throw errors.unauthorized('Session has ended; sign in again', challenge);
    const now = this.clock.now();
    // The key first: a session that ended with its key says why.
    const principal = await this.principalOf(session, now, challenge);
    if (session.expiresAt <= now) throw errors.unauthorized('Session has ended; sign in again', challenge);
    return { ...principal, sessionExpiresAt: session.expiresAt };
  }

  /** Ends the session of the cookie; `by` is who the session is (the audit log's actor). */
  async signOut(token: string, by: AuditSource): Promise<void> {
    const session = SESSION_TOKEN.test(token) ? await this.store.sessions.byTokenHash(hashSecret(token)) : null;
    if (!session) return;
    await this.store.transaction(async () => {
      await this.store.sessions.delete(session.id);
      await this.audit.record(by, session.accountId, 'session.sign_out', { kind: 'session', id: session.id, name: session.method });
    });
  }

  /** The session id of a cookie's token, or null (the sessions list marks the current one). */
  async idOf(token: string | null): Promise<string | null> {
    const session = token !== null && SESSION_TOKEN.test(token) ? await this.store.sessions.byTokenHash(hashSecret(token)) : null;
    return session?.id ?? null;
  }

  async pruneExpired(): Promise<number> {
    return this.store.sessions.pruneExpired(this.clock.now());
  }

  /** A one-time sign-in URL for the account (the admin account by default), valid 15 minutes. */
  async createLoginLink(accountIdOrEmail: string | undefined, by: AuditSource = { actor: SYSTEM_ACTOR }): Promise<{ url: string; accountId: string; email: string; expiresAt: string }> {
    const account = await new AccountsService(this.store, this.config, this.clock).findAccount(accountIdOrEmail ?? ADMIN_EMAIL);
    const token = `vl_${randomBytes(32).toString('base64url')}`;
    const now = this.clock.now();
    await this.store.transaction(async () => {
      await this.store.sessions.insertLoginLink(hashSecret(token), account.id, now, now + LOGIN_LINK_MS);
      await this.audit.record(by, account.id, 'session.login_link', { kind: 'account', id: account.id, name: account.email }, ['loginLink']);
    });
    // The token rides in the fragment: browsers never send it to servers, proxies or logs.
    return { url: `${this.config.dashboardUrl}#login=${token}`, accountId: account.id, email: account.email, expiresAt: new Date(now + LOGIN_LINK_MS).toISOString() };
  }

  /**
   * Set-Cookie for a new session: HttpOnly, SameSite=Strict, and when the public URL is https
   * (people reach Vigil over https, a TLS proxy in front or not) Secure under the `__Host-` name.
   */
  cookie(opened: OpenedSession): string {
    return setCookie(this.cookieName(), opened.token, this.attributes((opened.expiresAt - this.clock.now()) / 1000));
  }

  /** Clears the cookie, and under https the one of the name Vigil used before `__Host-` too (one Set-Cookie a line). */
  clearCookie(): string {
    const cleared = (name: string) => setCookie(name, '', this.attributes(0));
    return this.https() ? `${cleared(HOST_SESSION_COOKIE)}\n${cleared(SESSION_COOKIE)}` : cleared(SESSION_COOKIE);
  }

  private cookieName(): string {
    return this.https() ? HOST_SESSION_COOKIE : SESSION_COOKIE;
  }

  private https(): boolean {
    return this.config.publicUrl.startsWith('https:');
  }

  private attributes(maxAgeSeconds: number): CookieAttributes {
    return { path: '/', maxAgeSeconds, sameSite: 'Strict', secure: this.https() };
  }

  private async open(
    principal: Principal, by: { keyId: string | null; user: User | null; method: string; client: SignInClient }, expiresAt: number,
  ): Promise<OpenedSession> {
    const token = `vs_${randomBytes(32).toString('base64url')}`;
    const row: SessionRow = {
      id: `ses_${randomBytes(10).toString('hex')}`, accountId: principal.account.id, keyId: by.keyId, userId: by.user?.id ?? null,
      method: by.method, address: by.client.address, userAgent: by.client.userAgent?.slice(0, 300) ?? null, createdAt: this.clock.now(), expiresAt,
    };
    const opened = by.user ? userPrincipal(principal.account, by.user, row.id) : by.keyId === null ? this.linkPrincipal(principal.account, row.id) : principal;
    // Every way of signing in ends here: the session and its `session.sign_in` entry commit together.
    await this.store.transaction(async () => {
      await this.store.sessions.insert(row, hashSecret(token));
      await this.audit.record({ ...opened, address: by.client.address ?? undefined }, row.accountId, 'session.sign_in', { kind: 'session', id: row.id, name: by.method });
    });
    return { token, principal: opened, expiresAt };
  }

  private async principalOf(session: SessionRow, now: number, challenge: string): Promise<Principal> {
    if (session.userId !== null) {
      // Read on every request: a removed member or a lowered role counts from the next one.
      const user = await this.store.users.byId(session.userId);
      const account = user ? await this.store.accounts.byId(user.accountId) : null;
      if (!user || !account) throw errors.unauthorized('Session has ended: this member was removed from the account', challenge);
      return userPrincipal(account, user, session.id);
    }
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

/**
 * The session token of a Cookie header, if any: the `__Host-` cookie first. The plain name is
 * still read, so members signed in before an upgrade to `__Host-` stay signed in until their
 * session ends (7 days at most); every new session is given the `__Host-` name under https.
 */
export function sessionToken(cookieHeader: string | undefined): string | null {
  return cookieValue(cookieHeader, HOST_SESSION_COOKIE) ?? cookieValue(cookieHeader, SESSION_COOKIE);
}
