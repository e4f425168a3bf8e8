import type { Logger } from 'pino';
import type { NodeRepo } from '../store/node-repo.js';
import type { Store } from '../store/store.js';
import type { Assignment } from './assignment.js';
import type { NodeRegistry } from './node-registry.js';
import type { NodeIdentity, NodeSession, NodeSessions, NodeState } from './node-sessions.js';
import type { PeerRechecks } from './peer-rechecks.js';
import { asProbeResult, parseNodeMessage, type NodeMessage } from './protocol.js';
import type { ResultIntake } from './result-intake.js';

export interface NodeHubDeps {
  registry: Pick<NodeRegistry, 'authenticate'>;
  nodes: Pick<NodeRepo, 'markDisconnected'>;
  checks: Pick<Store['checks'], 'forEachEnabled'>;
  sessions: NodeSessions;
  assignment: Assignment;
  intake: ResultIntake;
  peers: PeerRechecks;
  log: Logger;
}

/**
 * The central's end of the node protocol's sockets: authenticates a node, and hands each frame
 * to the module whose job it is (sessions and clocks, assignment, result intake, peer
 * re-checks). The periodic sweeps are jobs of their own (`node-sweeps.ts`).
 */
export class NodeHub {
  constructor(private readonly deps: NodeHubDeps) {}

  /** `seenBefore`: nodes last heard from before it are not connected now (see `nodeSweeps`' `seenBefore`). */
  async start(seenBefore: number): Promise<void> {
    // What the last run of the server saved as connected is not, now.
    await this.deps.nodes.markDisconnected(seenBefore);
    this.deps.assignment.load((visit) => this.deps.checks.forEachEnabled(visit));
  }

  stop(): void {
    this.deps.sessions.closeAll(1001, 'central stopping');
    this.deps.peers.stop();
  }

  authenticate(token: string): Promise<NodeIdentity | null> {
    return this.deps.registry.authenticate(token);
  }

  open(identity: NodeIdentity, session: NodeSession): void {
    this.deps.sessions.open(identity, session);
  }

  message(identity: NodeIdentity, session: NodeSession, text: string): void {
    const node = this.deps.sessions.current(identity.id, session, true);
    if (!node) return;
    const m = parseNodeMessage(text);
    if (!m) {
      this.deps.log.warn({ nodeId: node.id }, 'node sent a malformed frame; closing');
      session.close(1008, 'malformed frame');
      return;
    }
    if (m.type === 'hello') this.hello(node, m);
    else if (!node.ready) session.close(1008, 'hello first');
    else if (m.type === 'results') this.deps.intake.results(node, m);
    else if (m.type === 'recheckResult') this.deps.peers.answered(node, m.rid, asProbeResult(m.result));
    else this.deps.sessions.pong(node, m);
  }

  closed(identity: NodeIdentity, session: NodeSession): void {
    const node = this.deps.sessions.current(identity.id, session);
    if (!node) return;
    this.deps.sessions.closed(node);
    this.deps.peers.forget(node.id);
    this.deps.log.info({ nodeId: node.id, region: node.region }, 'node disconnected');
    this.deps.assignment.disconnected(node.region);
  }

  /** Welcomed once its cursor is read: a node sends its results only after its welcome. */
  private hello(node: NodeState, m: Extract<NodeMessage, { type: 'hello' }>): void {
    this.deps.intake.resume(node.id, m.epoch).then((cursor) => this.welcome(node, m, cursor), (err: unknown) => {
      this.deps.log.error({ err, nodeId: node.id }, 'node hello failed');
      node.session?.close(1011, 'hello failed');
    });
  }

  private welcome(node: NodeState, m: Extract<NodeMessage, { type: 'hello' }>, cursor: { epoch: string; seq: number }): void {
    if (!node.session) return;
    this.deps.sessions.ready(node, m.version);
    node.session!.send({ type: 'welcome', nodeId: node.id, region: node.region, epoch: cursor.epoch, seq: cursor.seq });
    this.deps.log.info({ nodeId: node.id, region: node.region, version: m.version }, 'node connected');
    this.deps.assignment.connected(node.id, node.region);
  }
}
