import type { TLSSocket } from 'node:tls';
import type { SslInfo } from '../../domain/probe-types.js';

const CERT_ERRORS: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'Self-signed certificate',
  SELF_SIGNED_CERT_IN_CHAIN: 'Self-signed certificate in chain',
  CERT_HAS_EXPIRED: 'Certificate has expired',
  CERT_NOT_YET_VALID: 'Certificate is not yet valid',
  ERR_TLS_CERT_ALTNAME_INVALID: 'Certificate does not match the host name',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'Unable to verify the certificate chain',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'Certificate issuer is not trusted',
  UNABLE_TO_GET_ISSUER_CERT: 'Certificate issuer is not trusted',
  CERT_REVOKED: 'Certificate has been revoked',
  CERT_UNTRUSTED: 'Certificate is not trusted',
};

/** The first value of a certificate name field (a field repeated in the name is an array). */
function field(name: object | undefined, key: string): string | undefined {
  const value: unknown = name ? (name as Record<string, unknown>)[key] : undefined;
  const first: unknown = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' && first !== '' ? first : undefined;
}

function isoDate(text: string): string {
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? text : date.toISOString();
}

/**
 * Node fills `authorizationError` with the OpenSSL code as a string, although the typings say
 * Error; accept both.
 */
function certError(socket: TLSSocket): string {
  const raw: unknown = socket.authorizationError;
  const code =
    typeof raw === 'string' ? raw : raw instanceof Error ? ((raw as NodeJS.ErrnoException).code ?? raw.message) : 'UNKNOWN';
  const message = CERT_ERRORS[code];
  return message ? `${message} (${code})` : code;
}

/**
 * The peer certificate of a connected TLS socket. The socket was opened with
 * rejectUnauthorized:false, so `authorized` carries the chain, date and host name verdict
 * without having refused the connection.
 */
export function sslInfoOf(socket: TLSSocket): SslInfo | null {
  const cert = socket.getPeerCertificate();
  if (!cert || Object.keys(cert).length === 0) return null;
  return {
    valid: socket.authorized,
    error: socket.authorized ? null : certError(socket),
    issuer: field(cert.issuer, 'CN') ?? field(cert.issuer, 'O') ?? '',
    subject: field(cert.subject, 'CN') ?? field(cert.subject, 'O') ?? '',
    validFrom: isoDate(cert.valid_from),
    validTo: isoDate(cert.valid_to),
    serialNumber: cert.serialNumber ?? '',
    fingerprint: cert.fingerprint256 ?? '',
  };
}
