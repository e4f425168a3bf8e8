/**
 * Whether an error says the database cannot be reached (a store over the network: PostgreSQL),
 * as opposed to a statement that failed: refused or dropped connections, a connect that timed
 * out, a server shutting down or starting up. A request that meets one answers 503, not 500:
 * the client may try again, or another central.
 */
export function databaseUnreachable(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 4; e = (e as { reason?: unknown }).reason, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || code.startsWith('08') || SERVER_GONE.has(code))) return true;
    if (CONNECTION_MESSAGES.some((m) => e instanceof Error && e.message.includes(m))) return true;
  }
  return false;
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** SQLSTATE: admin_shutdown, crash_shutdown, cannot_connect_now (class 08 is connection_exception). */
const SERVER_GONE = new Set(['57P01', '57P02', '57P03']);
/** node-postgres says these without a code. */
const CONNECTION_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'connection error and is not queryable',
  'Cannot use a pool after calling end',
];
