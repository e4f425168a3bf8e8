import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures (decisions §8): `X-Vigil-Signature: sha256=<hex HMAC-SHA256(secret, raw
 * body)>`. The raw bytes sent are signed, so a receiver verifies before parsing.
 */
export const SIGNATURE_HEADER = 'X-Vigil-Signature';

export function signBody(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** What a receiver does; constant-time, so the comparison leaks nothing about the secret. */
export function verifySignature(secret: string, body: string | Buffer, header: string | undefined): boolean {
  if (!header) return false;
  const expected = Buffer.from(signBody(secret, body));
  const given = Buffer.from(header);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
