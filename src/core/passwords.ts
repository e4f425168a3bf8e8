import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { errors } from '../domain/errors.js';

/**
 * Password hashing with node's scrypt (memory-hard; no native add-on, so the single binary keeps
 * working). Parameters: N = 2^15, r = 8, p = 3 — one of OWASP's equivalent scrypt settings
 * (32 MiB per hash, about as costly as N = 2^17, p = 1 at a quarter of its memory), 16 bytes of
 * salt, 32 bytes of key. The parameters are stored in each hash, so raising them later leaves
 * old hashes verifiable. Hashing runs on libuv's thread pool, never on the event loop.
 */
const PARAMS = { N: 2 ** 15, r: 8, p: 3 };
const KEY_BYTES = 32;
export const MIN_PASSWORD = 10;
export const MAX_PASSWORD = 256;

function derive(password: string, salt: Buffer, N: number, r: number, p: number, bytes: number): Promise<Buffer> {
  // scrypt needs 128·N·r bytes; allow twice that.
  const maxmem = 256 * N * r;
  return new Promise((resolve, reject) => scrypt(password.normalize('NFKC'), salt, bytes, { N, r, p, maxmem }, (err, key) => (err ? reject(err) : resolve(key))));
}

/** A new password's rules: length only (NIST SP 800-63B), any characters. */
export function checkNewPassword(password: string): void {
  if (password.length < MIN_PASSWORD) throw errors.badRequest(`password must be at least ${MIN_PASSWORD} characters`);
  if (password.length > MAX_PASSWORD) throw errors.badRequest(`password must be at most ${MAX_PASSWORD} characters`);
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PARAMS.N, PARAMS.r, PARAMS.p, KEY_BYTES);
  return `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/** A hash of nothing anyone knows: checked against when the email is unknown, so both take as long. */
let decoy: Promise<string> | null = null;

/** True when `password` matches `stored`; null `stored` (unknown person, no password yet) costs the same and is false. */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const hash = stored ?? (await (decoy ??= hashPassword(randomBytes(16).toString('hex'))));
  const parts = hash.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  const expected = Buffer.from(parts[5]!, 'base64');
  const key = await derive(password, Buffer.from(parts[4]!, 'base64'), N, r, p, expected.length);
  return stored !== null && key.length === expected.length && timingSafeEqual(key, expected);
}
