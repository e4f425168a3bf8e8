import { isIP, connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import type { PrivateRefusal } from '../../domain/outbound-policy.js';
import type { SslInfo } from '../../domain/probe-types.js';
import type { ProbeScope } from './probe-scope.js';
import { bareHost, resolveTarget, type TargetAddress } from './resolve-target.js';
import { sslInfoOf } from './tls-info.js';

/** Milliseconds each connection phase took, measured by the probe itself. */
export interface ConnectPhases {
  dns: number;
  connect: number;
  tls: number;
}

export interface OpenConnection {
  socket: Socket;
  phases: ConnectPhases;
  /** The peer certificate when the connection is TLS. */
  ssl: SslInfo | null;
  /** scope.now() when the connection became ready for the protocol's first byte. */
  readyAt: number;
}

export interface ConnectTarget {
  host: string;
  port: number;
  tls: boolean;
  /** The outbound policy's rule for this connection (null: private addresses may be reached). */
  refusePrivate: PrivateRefusal | null;
  alpn?: string[];
}

// Worth trying the next resolved address after these; anything else would fail there too.
const TRY_NEXT = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'EAFNOSUPPORT']);

function destroySocket(socket: Socket): void {
  socket.destroy();
}

/**
 * Resolves once `socket` emits `event`, rejects on its first error or at the probe's deadline
 * (the scope's race, which costs less than an abort signal and its listeners).
 */
function ready(scope: ProbeScope, socket: Socket, event: 'connect' | 'secureConnect'): Promise<void> {
  return scope.race(
    new Promise<void>((resolve, reject) => {
      const onError = (err: Error): void => {
        socket.off(event, onReady);
        reject(err);
      };
      const onReady = (): void => {
        socket.off('error', onError);
        resolve();
      };
      socket.once(event, onReady);
      socket.once('error', onError);
    }),
  );
}

async function connectTcp(scope: ProbeScope, target: TargetAddress, port: number): Promise<Socket> {
  const socket = scope.track(netConnect({ host: target.address, port, family: target.family, noDelay: true }), destroySocket);
  try {
    await ready(scope, socket, 'connect');
    return socket;
  } catch (err) {
    socket.destroy();
    throw err;
  }
}

/** Tries each address in resolver order, like a browser without happy eyeballs. */
async function connectFirst(scope: ProbeScope, addresses: TargetAddress[], port: number): Promise<Socket> {
  let lastError: unknown;
  for (const target of addresses) {
    try {
      return await connectTcp(scope, target, port);
    } catch (err) {
      lastError = err;
      const code = (err as NodeJS.ErrnoException).code;
      if (scope.expired || code === undefined || !TRY_NEXT.has(code)) throw err;
    }
  }
  throw lastError;
}

/**
 * Runs a TLS handshake over a connected socket (a fresh connection or a STARTTLS upgrade).
 * Certificates are not enforced here: the verdict goes into `ssl.valid` and the state machine
 * decides what an invalid certificate means.
 */
export async function startTls(
  scope: ProbeScope,
  socket: Socket,
  host: string,
  alpn?: string[],
): Promise<{ socket: TLSSocket; ssl: SslInfo | null; ms: number }> {
  const begin = scope.now();
  const name = bareHost(host);
  // Over an existing socket Node sends SNI only when told to (and never for an IP); `host`
  // is what the certificate is checked against when there is no servername.
  const secure = scope.track(
    tlsConnect({
      socket,
      host: name,
      ...(isIP(name) === 0 ? { servername: name } : {}),
      rejectUnauthorized: false,
      ...(alpn ? { ALPNProtocols: alpn } : {}),
    }),
    destroySocket,
  );
  await ready(scope, secure, 'secureConnect');
  return { socket: secure, ssl: sslInfoOf(secure), ms: scope.now() - begin };
}

/** Resolves, connects and (for TLS) handshakes, timing each phase. */
export async function openConnection(scope: ProbeScope, target: ConnectTarget): Promise<OpenConnection> {
  const begin = scope.now();
  const addresses = await scope.race(resolveTarget(target.host, target.refusePrivate));
  const resolved = scope.now();
  const socket = await connectFirst(scope, addresses, target.port);
  const connected = scope.now();
  const phases: ConnectPhases = { dns: resolved - begin, connect: connected - resolved, tls: 0 };
  if (!target.tls) return { socket, phases, ssl: null, readyAt: connected };
  const secured = await startTls(scope, socket, target.host, target.alpn);
  phases.tls = secured.ms;
  return { socket: secured.socket, phases, ssl: secured.ssl, readyAt: scope.now() };
}
