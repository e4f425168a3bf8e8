import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';

/** RFC 6238 with the parameters every authenticator app takes: SHA-1, 6 digits, 30 s. */
const PERIOD = 30;
const TOTP_CODE = /^\d{6}$/;

export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** The otpauth:// URI an authenticator app reads from the QR code. */
export function totpUri(secret: string, label: string): string {
  return new TOTP({ issuer: 'Vigil', label, secret: Secret.fromBase32(secret), period: PERIOD }).toString();
}

/** The enrolment QR code as an SVG data URL (an <img> shows it; no script, no request). */
export async function qrDataUrl(uri: string): Promise<string> {
  const svg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}

export function looksLikeTotp(code: string): boolean {
  return TOTP_CODE.test(code.replace(/\s/g, ''));
}

/** The time step of `code` if it is valid at `now` (one step of clock drift either way), else null. */
export function totpStep(secret: string, code: string, now: number): number | null {
  const token = code.replace(/\s/g, '');
  if (!TOTP_CODE.test(token)) return null;
  const delta = TOTP.validate({ token, secret: Secret.fromBase32(secret), period: PERIOD, timestamp: now, window: 1 });
  return delta === null ? null : TOTP.counter({ period: PERIOD, timestamp: now }) + delta;
}

/** The code of `secret` at `at` (tests, and nothing else, generate codes). */
export function totpCode(secret: string, at: number): string {
  return TOTP.generate({ secret: Secret.fromBase32(secret), period: PERIOD, timestamp: at });
}

/** Ten one-time recovery codes, `xxxxx-xxxxx` (50 bits each), shown once. */
export function newRecoveryCodes(): string[] {
  const alphabet = '0123456789abcdefghjkmnpqrstvwxyz'; // 32: no bias from b % 32
  return Array.from({ length: 10 }, () => {
    const bytes = randomBytes(10);
    const chars = [...bytes].map((b) => alphabet[b % alphabet.length]).join('');
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}

/** What is hashed and compared: lower case, without spaces and dashes. */
export function normaliseRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, '');
}
