import { ProbeTimeoutError } from './probe-scope.js';

/** An error whose message is already the short human sentence a probe reports. */
export class ProbeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProbeError';
  }
}

const SOCKET_MESSAGES: Record<string, string> = {
  ECONNREFUSED: 'Connection refused',
  ECONNRESET: 'Connection reset by peer',
  EPIPE: 'Connection closed by peer',
  ECONNABORTED: 'Connection aborted',
  EHOSTUNREACH: 'Host unreachable',
  ENETUNREACH: 'Network unreachable',
  EHOSTDOWN: 'Host is down',
  ETIMEDOUT: 'Connection timed out',
  EADDRNOTAVAIL: 'Address not available',
  UND_ERR_SOCKET: 'Connection closed by server',
  UND_ERR_CLOSED: 'Connection closed by server',
};

const DNS_CODES = new Set([
  'ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'ENODATA', 'ESERVFAIL', 'EREFUSED',
  'ETIMEOUT', 'EBADRESP', 'ENONAME', 'EFORMERR', 'ENOTIMP', 'EBADNAME',
]);

interface ErrorFields {
  code?: unknown;
  syscall?: unknown;
  reason?: unknown;
  cause?: unknown;
}

/** Turns anything a probe threw into the short message stored in history. */
export function describeError(err: unknown): string {
  if (err instanceof ProbeError || err instanceof ProbeTimeoutError) return err.message;
  if (!(err instanceof Error)) return String(err);
  const { code, syscall, reason, cause } = err as Error & ErrorFields;
  // events.once() and undici wrap our deadline's reason in their own abort errors.
  if (cause instanceof ProbeTimeoutError) return cause.message;
  if (typeof code === 'string') {
    const isLookup =
      typeof syscall === 'string' && (syscall.startsWith('getaddrinfo') || syscall.startsWith('query'));
    if (isLookup || DNS_CODES.has(code)) return `DNS lookup failed: ${code}`;
    const message = SOCKET_MESSAGES[code];
    if (message) return message;
    if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_')) {
      return `TLS handshake failed: ${typeof reason === 'string' ? reason : err.message}`;
    }
  }
  return err.message || err.name;
}
