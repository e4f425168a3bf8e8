import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Clock } from '../domain/clock.js';
import type { BatchWriter } from '../store/batch-writer.js';
import type { NodeRepo } from '../store/node-repo.js';
import type { Job } from '../util/job-runner.js';
import type { Assignment } from './assignment.js';
import type { NodeSessions } from './node-sessions.js';

const LIVE_EVERY_MS = 2_000;
const REVOCATION_EVERY_MS = 1_000;

export interface NodeSweepsDeps {
  sessions: NodeSessions;
  assignment: Pick<Assignment, 'owned'>;
  writer: Pick<BatchWriter, 'submit'>;
  nodes: Pick<NodeRepo, 'revokedAmong'>;
  config: Config;
  clock: Clock;
  log: Logger;
}

/**
 * The hub's periodic jobs: pings for each node's clock offset, the nodes' figures saved for
 * `vigil node list` (another process), and revocations made there closing the sockets here.
 */
export function nodeSweeps(deps: NodeSweepsDeps): Job[] {
  const { sessions } = deps;
  return [
    {
      name: 'node-ping',
      everyMs: deps.config.nodes.pingMs,
      run: () => {
        const t0 = deps.clock.now();
        for (const n of sessions.readyNodes()) n.session!.send({ type: 'ping', t0 });
      },
    },
    { name: 'node-live', everyMs: LIVE_EVERY_MS, run: () => saveLive(deps) },
    {
      name: 'node-revocations',
      everyMs: REVOCATION_EVERY_MS,
      run: async () => {
        const connected = [...sessions.all()].filter((n) => n.session).map((n) => n.id);
        if (connected.length === 0) return;
        for (const id of (await deps.nodes.revokedAmong(connected))) {
          deps.log.warn({ nodeId: id }, 'node revoked; disconnecting');
          sessions.get(id)?.session?.close(4001, 'node revoked');
        }
      },
    },
  ];
}

function saveLive({ sessions, assignment, writer }: NodeSweepsDeps): void {
  if (sessions.size === 0) return;
  const owned = assignment.owned();
  writer.submit({
    kind: 'node-live',
    nodes: [...sessions.all()].map((n) => ({
      id: n.id,
      live: {
        connected: n.ready && n.session !== null,
        lastSeenAt: n.lastSeenAt,
        version: n.version,
        assigned: owned.get(n.id) ?? 0,
        probesPerSecond: n.probesPerSecond,
        outboxDepth: n.outboxDepth,
        clockOffsetMs: n.offsetMs,
        rejectedResults: n.rejected,
        droppedResults: n.dropped,
      },
    })),
  });
}
