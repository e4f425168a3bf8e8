import type { Socket } from 'node:net';
import type { ProbeResult, ProbeTask } from '../../domain/probe-types.js';
import { openConnection } from './connect.js';
import { emptyResult, timingOf } from './result.js';
import { runScoped } from './run-scoped.js';
import { parseHostPort } from './host-port.js';

/** How long the target may take to close its side once the probe has closed its own. */
const CLOSE_GRACE_MS = 1000;

/**
 * Closes like a polite client: whatever the target sent (a banner) is read, a FIN goes out, and
 * the probe waits for the target's. Closing at once reset the connection (RST) when the banner
 * was still unread, and a plain Node server without an 'error' handler died of the ECONNRESET.
 */
function closePolitely(socket: Socket): Promise<void> {
  return new Promise<void>((resolve) => {
    socket.once('close', () => resolve());
    socket.resume();
    socket.end();
  });
}

/** `tcp://host:port`: up when the connection is accepted. Timing: dns, connect, total. */
export function probeTcp(task: ProbeTask): Promise<ProbeResult> {
  return runScoped(task, async (scope) => {
    const { host, port } = parseHostPort(task.url, { tcp: undefined });
    const { socket, phases } = await openConnection(scope, { host, port, tls: false, refusePrivate: task.refusePrivate });
    const timing = timingOf({ dns: phases.dns, connect: phases.connect, total: scope.now() });
    await scope.grace(closePolitely(socket), CLOSE_GRACE_MS);
    return { ...emptyResult(scope.startedAt), ok: true, responseTime: timing.total, timing };
  });
}
