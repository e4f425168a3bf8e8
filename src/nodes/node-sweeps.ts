import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Clock } from '../domain/clock.js';
import type { BatchWriter } from '../store/batch-writer.js';
import type { NodeRepo } from '../store/node-repo.js';
import { WHEN_WOKEN, type ScopedJob, type Wake } from '../util/job-runner.js';
import type { Assignment } from './assignment.js';
import type { NodeSessions } from './node-sessions.js';

const LIVE_EVERY_MS = 2_000;
const REVOCATION_EVERY_MS = 1_000;
const ELSEWHERE_EVERY_MS = 1_000;

/**
 * How long a node the store says is connected counts as connected to some central: a central
 * hears from each of its nodes at least every `nodes.pingMs` (the pong) and saves what it
 * heard every 2 s; 2 s more for the centrals' clocks.
 */
export function liveWindowMs(config: Config): number {
  return config.nodes.pingMs + 2 * LIVE_EVERY_MS + 2_000;
}

/**
 * Where a starting central's `markDisconnected` stops: a single server knows no node is
 * connected anywhere yet; one of several leaves alone the nodes another central heard from lately.
 */
export function seenBefore(config: Config, now: number, shared: boolean): number {
  return shared ? now - liveWindowMs(config) : now;
}

export interface NodeSweepsDeps {
  sessions: NodeSessions;
  assignment: Pick<Assignment, 'owned' | 'seenElsewhere'>;
  writer: Pick<BatchWriter, 'submit'>;
  nodes: Pick<NodeRepo, 'revokedAmong' | 'connectedSince'>;
  /** Several centrals on the store: nodes connected to the others count for their regions here. */
  shared: boolean;
  config: Config;
  clock: Clock;
  log: Logger;
}

/**
 * The hub's periodic jobs: pings for each node's clock offset, the nodes' figures saved for
 * `vigil node list` (another process), revocations made there closing the sockets here, and
 * with several centrals, the nodes connected to the others read back.
 */
export function nodeSweeps(deps: NodeSweepsDeps): ScopedJob[] {
  const { sessions } = deps;
  const elsewhere: ScopedJob[] = deps.shared
    ? [{
      name: 'node-elsewhere',
      scope: 'every-central',
      everyMs: ELSEWHERE_EVERY_MS,
      run: async () => {
        const now = deps.clock.now();
        deps.assignment.seenElsewhere(await deps.nodes.connectedSince(now - liveWindowMs(deps.config)));
      },
    }]
    : [];
  return [
    ...elsewhere,
    {
      name: 'node-ping',
      scope: 'every-central',
      everyMs: deps.config.nodes.pingMs,
      wakeOn: [whenANodeConnects(deps, deps.config.nodes.pingMs)],
      run: () => {
        if (!sessions.anyConnected()) return WHEN_WOKEN;
        const t0 = deps.clock.now();
        for (const n of sessions.readyNodes()) n.session!.send({ type: 'ping', t0 });
        return undefined;
      },
    },
    // Once a node has been known, its figures are saved connected or not (it shows as gone).
    { name: 'node-live', scope: 'every-central', everyMs: LIVE_EVERY_MS, wakeOn: [whenANodeConnects(deps, LIVE_EVERY_MS)], run: () => (sessions.size === 0 ? WHEN_WOKEN : saveLive(deps)) },
    {
      name: 'node-revocations',
      scope: 'every-central',
      everyMs: REVOCATION_EVERY_MS,
      wakeOn: [whenANodeConnects(deps, REVOCATION_EVERY_MS)],
      run: async () => {
        const connected = [...sessions.all()].filter((n) => n.session).map((n) => n.id);
        if (connected.length === 0) return WHEN_WOKEN;
        for (const id of (await deps.nodes.revokedAmong(connected))) {
          deps.log.warn({ nodeId: id }, 'node revoked; disconnecting');
          sessions.get(id)?.session?.close(4001, 'node revoked');
        }
        return undefined;
      },
    },
  ];
}

/** A node sweep sleeps while no node is connected; a node connecting wakes it one interval later, as its cadence would. */
function whenANodeConnects({ sessions, clock }: NodeSweepsDeps, everyMs: number): (wake: Wake) => void {
  return (wake) => sessions.onOpen(() => wake(clock.now() + everyMs));
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
