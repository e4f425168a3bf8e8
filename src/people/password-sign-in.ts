import type { Clock } from '../domain/clock.js';
import { errors } from '../domain/errors.js';
import type { User } from '../domain/people.js';
import { hashSecret } from '../domain/secrets.js';
import type { Store } from '../store/store.js';
import type { AuditLog } from '../core/audit-log.js';
import type { MembersService } from './members-service.js';
import { checkNewPassword, type Passwords } from './passwords.js';
import type { Principal } from '../core/principal.js';
import type { OpenedSession, SessionsService, SignInClient } from './sessions-service.js';
import type { AttemptBy, SignInThrottle } from './sign-in-throttle.js';
import { looksLikeTotp, normaliseRecoveryCode, totpStep } from './totp-codes.js';

const CHALLENGE = 'Bearer realm="vigil"';
/** One message for an unknown email and a wrong password (issue 28): the answer tells neither. */
export const WRONG_PAIR = 'Email or password is wrong';
export const TOTP_REQUIRED = 'This member has two-factor sign-in on: send totp (a code from the authenticator app, or a recovery code)';

export interface PasswordCredentials {
  email: string;
  password: string;
  totp?: string;
}

/**
 * Signing people in with a password (and TOTP when they turned it on), and setting a password
 * from a set-up link. Each success ends in SessionsService.openForUser; sign-ins and failed
 * sign-ins of a known member go to the audit log with the session they opened.
 */
export class PasswordSignIn {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly sessions: SessionsService,
    private readonly members: MembersService,
    private readonly audit: AuditLog,
    private readonly throttle: SignInThrottle,
    readonly passwords: Passwords,
  ) {}

  async withPassword(input: PasswordCredentials, client: SignInClient): Promise<OpenedSession> {
    const email = input.email.trim().toLowerCase();
    const by = { email, address: client.address ?? 'unknown' };
    const user = await this.store.users.byEmail(email);
    // Always a full hash, also for an unknown email: the time taken tells nothing either.
    const good = await this.attempt(by, () => this.passwords.verify(input.password, user?.passwordHash ?? null));
    if (!user || !good) throw await this.failed(user, client, 'password');
    let method = 'password';
    if (user.totpEnabledAt !== null) {
      if (input.totp === undefined || input.totp.trim() === '') {
        // The password was right: this attempt is given back, but the tally is not cleared,
        // or asking without a code in between would reset the count of codes guessed.
        await this.throttle.giveBack(by);
        throw errors.unauthorized(TOTP_REQUIRED, CHALLENGE);
      }
      method = await this.secondFactor(user, input.totp);
      if (method === '') throw await this.failed(user, client, 'totp');
    }
    await this.throttle.signedIn(by);
    return this.signedIn(user, method, client);
  }

  /**
   * Runs one password or code check counted by the throttle: the attempt is reserved first (or
   * refused with 429), the delay owed is waited, and a check that could not run (the password
   * pool was full) is given back. The caller gives back or clears what proves right.
   */
  async attempt<T>(by: AttemptBy, check: () => Promise<T>): Promise<T> {
    const delay = await this.throttle.reserve(by);
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    try {
      return await check();
    } catch (err) {
      await this.throttle.giveBack(by);
      throw err;
    }
  }

  /** A signed-in member proves it is them again (their password, or a code): counted like a sign-in. */
  async reprove(principal: Principal, user: User, check: () => Promise<boolean>): Promise<boolean> {
    const by = { email: user.email, address: principal.address ?? 'unknown' };
    const good = await this.attempt(by, check);
    if (good) await this.throttle.giveBack(by);
    return good;
  }

  /** A set-up link (invitation) used: the password is set and the person is signed in. */
  async setUpPassword(token: string, password: string, client: SignInClient): Promise<OpenedSession> {
    checkNewPassword(password);
    const hash = await this.passwords.hash(password);
    const user = await this.members.redeemSetupToken(token);
    if (!user) throw errors.badRequest('This set-up link is unknown, already used or older than 24 hours; ask an owner or admin for a new one');
    await this.store.transaction(async () => {
      await this.store.users.setPassword(user.id, hash, this.clock.now());
      // A reset: whoever held a session under the old password is signed out.
      await this.store.sessions.deleteForUser(user.id, null);
      await this.audit.record({ ...asUser(user), address: client.address ?? undefined }, user.accountId, 'member.password_set', { kind: 'member', id: user.id, name: user.email }, ['password']);
    });
    return this.signedIn({ ...user, passwordHash: hash }, 'setup_link', client);
  }

  /** A signed-in member sets or changes their password; the current one is needed once there is one. */
  async changePassword(principal: Principal, input: { currentPassword?: string; newPassword: string }): Promise<void> {
    const user = await this.self(principal);
    checkNewPassword(input.newPassword);
    const stored = user.passwordHash;
    if (stored !== null && !(await this.reprove(principal, user, () => this.passwords.verify(input.currentPassword ?? '', stored)))) {
      throw errors.forbidden('currentPassword is wrong');
    }
    const hash = await this.passwords.hash(input.newPassword);
    await this.store.transaction(async () => {
      await this.store.users.setPassword(user.id, hash, this.clock.now());
      // Every other session ends: one opened by whoever knew the old password among them.
      await this.store.sessions.deleteForUser(user.id, principal.kind === 'session' ? principal.credentialId : null);
      await this.audit.record(principal, user.accountId, 'member.password_change', { kind: 'member', id: user.id, name: user.email }, ['password']);
    });
  }

  /** Forgets attempt tallies past their window (a periodic job). */
  pruneAttempts(): Promise<number> {
    return this.throttle.prune();
  }

  /** The member behind a session (what only a person can do: their password, TOTP, passkeys). */
  async self(principal: Principal): Promise<User> {
    if (!principal.user) throw errors.forbidden('Only a member signed in with a session can do this (not an API key or token)');
    const user = await this.store.users.byId(principal.user.id);
    if (!user) throw errors.unauthorized('Session has ended: this member was removed from the account', CHALLENGE);
    return user;
  }

  /** `totp` (a valid, unused code) or `recovery_code` (one used up), or '' when neither. */
  private async secondFactor(user: User, code: string): Promise<string> {
    if (looksLikeTotp(code)) {
      const step = totpStep(user.totpSecret!, code, this.clock.now());
      return step !== null && (await this.store.users.useTotpStep(user.id, step)) ? 'totp' : '';
    }
    const used = await this.store.users.useRecoveryCode(user.id, hashSecret(normaliseRecoveryCode(code)), this.clock.now());
    return used ? 'recovery_code' : '';
  }

  /** The session and its `session.sign_in` entry (SessionsService records it). */
  private async signedIn(user: User, method: string, client: SignInClient): Promise<OpenedSession> {
    return this.sessions.openForUser(user, method, client);
  }

  /** A wrong password or code: its attempt stays counted; a known member's account learns of it. */
  private async failed(user: User | null, client: SignInClient, factor: string) {
    if (user) {
      await this.audit.record({ ...asUser(user), address: client.address ?? undefined }, user.accountId, 'session.sign_in_failed', { kind: 'session', id: null, name: factor });
    }
    return factor === 'totp' ? errors.unauthorized('The TOTP or recovery code is wrong or already used', CHALLENGE) : errors.unauthorized(WRONG_PAIR, CHALLENGE);
  }
}

function asUser(user: User) {
  return { actor: { kind: 'user' as const, id: user.id, name: user.name ?? user.email } };
}
