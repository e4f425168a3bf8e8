import type { Clock } from '../domain/clock.js';
import { errors } from '../domain/errors.js';
import { hashSecret } from '../domain/secrets.js';
import type { Store } from '../store/store.js';
import type { AuditLog } from '../core/audit-log.js';
import type { Principal } from '../core/principal.js';
import type { PasswordSignIn } from './password-sign-in.js';
import { newRecoveryCodes, newTotpSecret, normaliseRecoveryCode, qrDataUrl, totpStep, totpUri } from './totp-codes.js';

export interface TotpEnrolment {
  secret: string;
  uri: string;
  /** An SVG QR code of `uri` as a data URL. */
  qr: string;
}

/**
 * Two-factor sign-in with TOTP (RFC 6238, issue 28): a member starts enrolment (a new pending
 * secret, shown as a QR code), confirms it with a code (TOTP turns on and ten one-time recovery
 * codes are shown, once), and may turn it off again with their password or a code.
 */
export class TotpService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly signIn: PasswordSignIn,
    private readonly audit: AuditLog,
  ) {}

  async begin(principal: Principal): Promise<TotpEnrolment> {
    const user = await this.signIn.self(principal);
    if (user.totpEnabledAt !== null) throw errors.conflict('TOTP is already on; turn it off first to enrol a new authenticator');
    const secret = newTotpSecret();
    await this.store.users.setTotp(user.id, secret, null, this.clock.now());
    const uri = totpUri(secret, user.email);
    return { secret, uri, qr: await qrDataUrl(uri) };
  }

  async confirm(principal: Principal, code: string): Promise<{ recoveryCodes: string[] }> {
    const user = await this.signIn.self(principal);
    if (user.totpEnabledAt !== null) throw errors.conflict('TOTP is already on');
    if (user.totpSecret === null) throw errors.conflict('Start enrolment first (POST /v1/public/me/totp)');
    const step = totpStep(user.totpSecret, code, this.clock.now());
    if (step === null) throw errors.badRequest('code is not the current code of this secret; check the authenticator app and the clock');
    const codes = newRecoveryCodes();
    const now = this.clock.now();
    await this.store.transaction(async () => {
      await this.store.users.setTotp(user.id, user.totpSecret, now, now);
      await this.store.users.useTotpStep(user.id, step);
      await this.store.users.replaceRecoveryCodes(user.id, codes.map((c) => hashSecret(normaliseRecoveryCode(c))), now);
      await this.audit.record(principal, user.accountId, 'member.totp_enable', { kind: 'member', id: user.id, name: user.email }, ['totp']);
    });
    return { recoveryCodes: codes };
  }

  /** Off again: proved with the password (or, with no password set, a current code). */
  async disable(principal: Principal, proof: { password?: string; code?: string }): Promise<void> {
    const user = await this.signIn.self(principal);
    if (user.totpEnabledAt === null) throw errors.conflict('TOTP is not on');
    const { password, code } = proof;
    const stored = user.passwordHash;
    // Counted like a sign-in (issue 34): a stolen session must not be a way to guess the password.
    const proved = await this.signIn.reprove(principal, user, async () =>
      (password !== undefined && stored !== null && (await this.signIn.passwords.verify(password, stored)))
      || (code !== undefined && totpStep(user.totpSecret!, code, this.clock.now()) !== null));
    if (!proved) throw errors.forbidden('Turning TOTP off needs the password or a current code');
    const now = this.clock.now();
    await this.store.transaction(async () => {
      await this.store.users.setTotp(user.id, null, null, now);
      await this.store.users.replaceRecoveryCodes(user.id, [], now);
      await this.audit.record(principal, user.accountId, 'member.totp_disable', { kind: 'member', id: user.id, name: user.email }, ['totp']);
    });
  }

  async status(principal: Principal): Promise<{ enabled: boolean; recoveryCodesLeft: number }> {
    const user = await this.signIn.self(principal);
    return { enabled: user.totpEnabledAt !== null, recoveryCodesLeft: user.totpEnabledAt === null ? 0 : await this.store.users.unusedRecoveryCodes(user.id) };
  }
}
