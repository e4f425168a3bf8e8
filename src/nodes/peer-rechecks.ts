import type { Clock } from '../domain/clock.js';
import type { ProbeResult, ProbeTask } from '../domain/probe-types.js';
import { failedResult, type ProbeDispatcher } from '../engine/dispatcher.js';
import type { PeerRechecker, PeerVerdict } from '../monitor/peer.js';
import type { NodeSessions, NodeState } from './node-sessions.js';

/** A peer that has not answered this long after the probe's own timeout does not count. */
const PEER_SLACK_MS = 2_000;

interface PendingRecheck {
  nodeId: string;
  resolve: (verdict: PeerVerdict | null) => void;
  timer: NodeJS.Timeout;
}

export interface PeerRechecksDeps {
  sessions: NodeSessions;
  /** The central's own probes, for re-checks of a node's failures. */
  dispatcher: Pick<ProbeDispatcher, 'run'>;
  region: string;
  clock: Clock;
  /** Several centrals: nodes connected to the others (of regions other than `region`), asked when none of another region is connected here. */
  elsewhere?: {
    nodes(): string[];
    ask(nodeId: string, task: ProbeTask, limitMs: number): Promise<PeerVerdict | null>;
  };
}

/**
 * Peer re-checks in both directions: a failure seen by a node is probed again here; one seen
 * here is probed again by a connected node of another region (round robin). No answer within
 * the probe's timeout and a little slack counts as no peer.
 */
export class PeerRechecks implements PeerRechecker {
  private readonly pending = new Map<number, PendingRecheck>();
  private nextRid = 1;

  constructor(private readonly deps: PeerRechecksDeps) {}

  recheck(task: ProbeTask, primaryRegion: string): Promise<PeerVerdict | null> {
    const limit = task.timeoutMs + PEER_SLACK_MS;
    if (primaryRegion !== this.deps.region) return this.recheckHere(task, limit);
    const candidates = this.deps.sessions.readyNodes().filter((n) => n.region !== primaryRegion);
    if (candidates.length === 0) return this.recheckElsewhere(task, limit);
    return this.ask(candidates[this.nextRid % candidates.length]!, task, limit);
  }

  /**
   * Another central's ask (several centrals): a peer re-check by this node, if it is connected
   * here; null when it is not.
   */
  recheckOn(nodeId: string, task: ProbeTask): Promise<PeerVerdict | null> | null {
    const node = this.deps.sessions.get(nodeId);
    if (!node?.ready || !node.session) return null;
    return this.ask(node, task, task.timeoutMs + PEER_SLACK_MS);
  }

  private recheckElsewhere(task: ProbeTask, limit: number): Promise<PeerVerdict | null> {
    const nodes = this.deps.elsewhere?.nodes() ?? [];
    if (nodes.length === 0) return Promise.resolve(null);
    return this.deps.elsewhere!.ask(nodes[this.nextRid++ % nodes.length]!, task, limit);
  }

  private ask(node: NodeState, task: ProbeTask, limit: number): Promise<PeerVerdict | null> {
    const rid = this.nextRid++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(rid);
        resolve(null);
      }, limit);
      this.pending.set(rid, { nodeId: node.id, resolve, timer });
      node.session!.send({ type: 'recheck', rid, task });
    });
  }

  /** A node's `recheckResult`: its verdict, on the central's clock. */
  answered(node: NodeState, rid: number, result: ProbeResult): void {
    const pending = this.pending.get(rid);
    if (!pending || pending.nodeId !== node.id) return;
    clearTimeout(pending.timer);
    this.pending.delete(rid);
    pending.resolve({ region: node.region, result: { ...result, startedAt: this.deps.sessions.local(node, result.startedAt) } });
  }

  /** A node went away: what it was asked counts as no answer. */
  forget(nodeId: string): void {
    for (const [rid, r] of this.pending) {
      if (r.nodeId !== nodeId) continue;
      clearTimeout(r.timer);
      this.pending.delete(rid);
      r.resolve(null);
    }
  }

  stop(): void {
    for (const r of this.pending.values()) {
      clearTimeout(r.timer);
      r.resolve(null);
    }
    this.pending.clear();
  }

  private recheckHere(task: ProbeTask, limit: number): Promise<PeerVerdict | null> {
    const region = this.deps.region;
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(null), limit);
      void this.deps.dispatcher.run(task).then((result) => {
        clearTimeout(timer);
        resolve({ region, result });
      }, () => resolve({ region, result: failedResult(this.deps.clock.now(), 'Peer probe failed') }));
    });
  }
}
