import { randomInt } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import netPing, { type Session } from 'net-ping';

/** One echo request's outcome: the round trip in ms, or why no reply counted. */
export type EchoOutcome = { rtt: number } | { lost: string };

export interface EchoRequest {
  address: string;
  family: 4 | 6;
  packets: number;
  timeoutMs: number;
}

interface SharedSession {
  session: Session;
  pending: number;
}

/**
 * One raw socket per address family, shared by all concurrent pings of this process: every
 * raw ICMP socket receives a copy of every ICMP packet, so one socket per ping would cost
 * O(pings²). It closes when no ping is pending, so it never holds the event loop open.
 *
 * net-ping (raw-socket) polls on libuv's default loop and crashes a worker thread; only a
 * main thread may call this (see icmp-client.ts).
 */
const sessions = new Map<4 | 6, SharedSession>();

function acquire(family: 4 | 6): SharedSession {
  let shared = sessions.get(family);
  if (!shared) {
    const session = netPing.createSession({
      networkProtocol: family === 6 ? netPing.NetworkProtocol.IPv6 : netPing.NetworkProtocol.IPv4,
      retries: 0,
      // Identifies our replies among those other processes' pings receive too.
      sessionId: randomInt(1, 65535),
    });
    const created: SharedSession = { session, pending: 0 };
    session.on('error', () => {
      // A failed raw socket fails its pending pings (close flushes them) and the next ping
      // opens a new one.
      if (sessions.get(family) === created) sessions.delete(family);
      session.close();
    });
    sessions.set(family, created);
    shared = created;
  }
  shared.pending++;
  return shared;
}

function release(family: 4 | 6, shared: SharedSession): void {
  shared.pending--;
  if (shared.pending === 0 && sessions.get(family) === shared) {
    sessions.delete(family);
    shared.session.close();
  }
}

/** Without the capability the raw socket fails when it opens or on its first send: say what is missing. */
function lossReason(err: Error): string {
  const code = (err as NodeJS.ErrnoException).code;
  const denied = code === 'EPERM' || code === 'EACCES' || /Operation not permitted|Permission denied/.test(err.message);
  return denied ? 'ICMP needs raw sockets (root or CAP_NET_RAW)' : err.message;
}

function echoOnce(address: string, family: 4 | 6, timeoutMs: number): Promise<EchoOutcome> {
  return new Promise((resolve) => {
    let shared: SharedSession;
    try {
      shared = acquire(family);
    } catch (err) {
      resolve({ lost: lossReason(err as Error) });
      return;
    }
    // pingHost() reads the session timeout per request.
    shared.session.timeout = Math.max(1, Math.floor(timeoutMs));
    const sentAt = performance.now();
    shared.session.pingHost(address, (error) => {
      const rtt = performance.now() - sentAt;
      const outcome: EchoOutcome = !error
        ? { rtt }
        : { lost: error.name === 'RequestTimedOutError' ? 'timeout' : lossReason(error) };
      release(family, shared);
      resolve(outcome);
    });
  });
}

/** Sends `packets` echo requests at once and waits for each reply or its timeout. */
export function echo(request: EchoRequest): Promise<EchoOutcome[]> {
  const { address, family, packets, timeoutMs } = request;
  return Promise.all(Array.from({ length: packets }, () => echoOnce(address, family, timeoutMs)));
}
