import { randomBytes, timingSafeEqual } from 'node:crypto';
import { errors } from '../domain/errors.js';
import type { Derivation } from './password-hasher.js';

/**
 * Password hashing with scrypt (memory-hard; no native add-on, so the single binary keeps
 * working). Parameters: N = 2^15, r = 8, p = 3 — one of OWASP's equivalent scrypt settings
 * (32 MiB per hash, about as costly as N = 2^17, p = 1 at a quarter of its memory), 16 bytes of
 * salt, 32 bytes of key. The parameters are stored in each hash, so raising them later leaves
 * old hashes verifiable. The hashes are computed by `derive`: the password thread
 * (PasswordHasher), never the event loop nor libuv's pool.
 */
const PARAMS = { N: 2 ** 15, r: 8, p: 3 };
const KEY_BYTES = 32;
export const MIN_PASSWORD = 10;
export const MAX_PASSWORD = 256;

export type Derive = (d: Derivation) => Promise<Buffer>;

/** A new password's rules: length only (NIST SP 800-63B), any characters. */
export function checkNewPassword(password: string): void {
  if (password.length < MIN_PASSWORD) throw errors.badRequest(`password must be at least ${MIN_PASSWORD} characters`);
  if (password.length > MAX_PASSWORD) throw errors.badRequest(`password must be at most ${MAX_PASSWORD} characters`);
}

export class Passwords {
  /** A hash of nothing anyone knows: checked against when the email is unknown, so both take as long. */
  private decoy: Promise<string> | null = null;

  constructor(private readonly derive: Derive) {}

  async hash(password: string): Promise<string> {
    const salt = randomBytes(16);
    const key = await this.derive({ password: password.normalize('NFKC'), salt, ...PARAMS, bytes: KEY_BYTES });
    return `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${salt.toString('base64')}$${key.toString('base64')}`;
  }

  /** True when `password` matches `stored`; null `stored` (unknown person, no password yet) costs the same and is false. */
  async verify(password: string, stored: string | null): Promise<boolean> {
    const hash = stored ?? (await this.decoyHash());
    const parts = hash.split('$');
    if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
    const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
    const expected = Buffer.from(parts[5]!, 'base64');
    const salt = Buffer.from(parts[4]!, 'base64');
    const key = await this.derive({ password: password.normalize('NFKC'), salt, N, r, p, bytes: expected.length });
    return stored !== null && key.length === expected.length && timingSafeEqual(key, expected);
  }

  private decoyHash(): Promise<string> {
    // A decoy that could not be made (the pool was full) is tried again next time.
    this.decoy ??= this.hash(randomBytes(16).toString('hex')).catch((err: unknown) => {
      this.decoy = null;
      throw err;
    });
    return this.decoy;
  }
}
