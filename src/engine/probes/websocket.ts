import type { IncomingMessage } from 'node:http';
import WebSocket from 'ws';
import type { ProbeResult, ProbeTask } from '../../domain/probe-types.js';
import { openConnection } from './connect.js';
import { ignore } from './probe-scope.js';
import { emptyResult, timingOf } from './result.js';
import { runScoped } from './run-scoped.js';
import { parseHostPort } from './host-port.js';

/** How long a polite close handshake may take after the verdict is in. */
const CLOSE_GRACE_MS = 1000;

type Handshake = { kind: 'open' } | { kind: 'refused'; status: number };

/**
 * `ws://` and `wss://`: up when the upgrade handshake completes (status 101). Timing: dns,
 * connect, tls, ttfb (upgrade request → 101 response), total (→ open).
 */
export function probeWebSocket(task: ProbeTask): Promise<ProbeResult> {
  return runScoped(task, async (scope, seen) => {
    const { scheme, host, port } = parseHostPort(task.url, { ws: 80, wss: 443 });
    const secure = scheme === 'wss';
    const connection = await openConnection(scope, {
      host,
      port,
      tls: secure,
      alpn: ['http/1.1'],
      refusePrivate: task.refusePrivate,
    });
    seen.ssl = connection.ssl;
    const sentAt = scope.now();
    let answeredAt = sentAt;
    const socket = new WebSocket(task.url, {
      headers: task.headers,
      // ws speaks HTTP over the connection opened (and timed) above.
      createConnection: () => connection.socket,
      perMessageDeflate: false,
      followRedirects: false,
    });
    socket.on('error', ignore);
    scope.onClose(() => socket.terminate());
    const handshake = await scope.race(
      new Promise<Handshake>((resolve, reject) => {
        socket.once('upgrade', () => {
          answeredAt = scope.now();
        });
        socket.once('open', () => resolve({ kind: 'open' }));
        socket.once('unexpected-response', (_request, response: IncomingMessage) => {
          answeredAt = scope.now();
          resolve({ kind: 'refused', status: response.statusCode ?? 0 });
        });
        socket.once('error', reject);
        socket.once('close', () => reject(new Error('Connection closed during the WebSocket handshake')));
      }),
    );
    const timing = timingOf({ ...connection.phases, ttfb: answeredAt - sentAt, total: scope.now() });
    const base = { ...emptyResult(scope.startedAt), responseTime: timing.total, timing, ssl: connection.ssl };
    if (handshake.kind === 'refused') {
      return { ...base, statusCode: handshake.status, error: `WebSocket upgrade refused: HTTP ${handshake.status}` };
    }
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.close(1000);
    await scope.grace(closed, CLOSE_GRACE_MS);
    return { ...base, ok: true, statusCode: 101 };
  });
}
