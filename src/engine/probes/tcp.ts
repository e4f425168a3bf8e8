import type { ProbeResult, ProbeTask } from '../../domain/probe-types.js';
import { openConnection } from './connect.js';
import { emptyResult, timingOf } from './result.js';
import { runScoped } from './run-scoped.js';
import { parseHostPort } from './host-port.js';

/** `tcp://host:port`: up when the connection is accepted. Timing: dns, connect, total. */
export function probeTcp(task: ProbeTask): Promise<ProbeResult> {
  return runScoped(task, async (scope) => {
    const { host, port } = parseHostPort(task.url, { tcp: undefined });
    const { phases } = await openConnection(scope, { host, port, tls: false, blockPrivateAddresses: task.blockPrivateAddresses });
    const timing = timingOf({ dns: phases.dns, connect: phases.connect, total: scope.now() });
    return { ...emptyResult(scope.startedAt), ok: true, responseTime: timing.total, timing };
  });
}
