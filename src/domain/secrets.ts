import { createHash, randomBytes } from 'node:crypto';

export const API_KEY_PREFIX = 'vigil_live_';
export const API_KEY_PATTERN = /^vigil_live_[0-9a-f]{64}$/;

/** Keys and tokens are looked up by their SHA-256 (decisions §1), never stored in plain text. */
export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

export function newApiKey(): string {
  return API_KEY_PREFIX + randomBytes(32).toString('hex');
}

/** 64 hex characters: the heartbeat token of spec 2.10. */
export function newHeartbeatToken(): string {
  return randomBytes(32).toString('hex');
}

/** Identifiers are a short type prefix plus 80 random bits, e.g. `chk_3f9a…`. */
export function newId(prefix: 'acc' | 'key' | 'chk' | 'whk' | 'dlv' | 'tok' | 'spg' | 'nod' | 'inc' | 'inu' | 'sub' | 'mtw' | 'usr' | 'evt' | 'idn'): string {
  return `${prefix}_${randomBytes(10).toString('hex')}`;
}
