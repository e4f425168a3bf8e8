import { createSocket, type Socket } from 'node:dgram';
import { once } from 'node:events';
import type { ProbeResult, ProbeTask } from '../../domain/probe-types.js';
import type { ProbeScope } from './probe-scope.js';
import { resolveTarget, type TargetAddress } from './resolve-target.js';
import { emptyResult, snippetOf, timingOf } from './result.js';
import { runScoped } from './run-scoped.js';
import { parseHostPort } from './host-port.js';

/**
 * A connected UDP socket: replies from other peers are filtered by the kernel, and an ICMP
 * port-unreachable answer surfaces as ECONNREFUSED instead of a silent timeout.
 */
export async function connectUdp(scope: ProbeScope, target: TargetAddress, port: number): Promise<Socket> {
  const socket = scope.track(createSocket(target.family === 6 ? 'udp6' : 'udp4'), (s) => s.close());
  socket.connect(port, target.address);
  await once(socket, 'connect', { signal: scope.signal });
  return socket;
}

/**
 * `udp://host:port`: sends `body` (or an empty datagram) and is up when any reply arrives.
 * Timing: dns, ttfb (datagram sent → reply), total.
 */
export function probeUdp(task: ProbeTask): Promise<ProbeResult> {
  return runScoped(task, async (scope) => {
    const { host, port } = parseHostPort(task.url, { udp: undefined });
    const [target] = await scope.race(resolveTarget(host, task.refusePrivate));
    const resolved = scope.now();
    const socket = await connectUdp(scope, target, port);
    const reply = once(socket, 'message', { signal: scope.signal });
    const sentAt = scope.now();
    socket.send(Buffer.from(task.body ?? '', 'utf8'));
    const [message] = (await reply) as [Buffer];
    const answeredAt = scope.now();
    const timing = timingOf({ dns: resolved, ttfb: answeredAt - sentAt, total: answeredAt });
    return {
      ...emptyResult(scope.startedAt),
      ok: true,
      responseTime: timing.total,
      timing,
      snippet: snippetOf(message),
    };
  });
}
