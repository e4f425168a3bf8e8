import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import { CLOCK_WARNING_MS } from './node-registry.js';
import type { CentralMessage, NodeMessage } from './protocol.js';

/** One open socket to a node, as the front's WebSocket adapter hands it over. */
export interface NodeSession {
  send(message: CentralMessage): void;
  close(code: number, reason: string): void;
}

export interface NodeIdentity {
  id: string;
  name: string;
  region: string;
}

/** A node the central has heard from since it started: its socket and what it last reported. */
export interface NodeState extends NodeIdentity {
  session: NodeSession | null;
  /** Hello received: the node takes checks and results are accepted. */
  ready: boolean;
  version: string | null;
  lastSeenAt: number | null;
  offsetMs: number | null;
  outboxDepth: number;
  dropped: number;
  probesPerSecond: number;
  rejected: number;
  warnedClock: boolean;
}

/**
 * The central's table of prober nodes: one socket per node (a newer connection replaces an
 * older one), which are ready, and each node's clock offset and figures from its pongs.
 */
export class NodeSessions {
  private readonly nodes = new Map<string, NodeState>();
  private readonly openListeners: Array<() => void> = [];

  constructor(private readonly deps: { clock: Clock; log: Logger }) {}

  /** Called when a node opens a socket (the node sweeps sleep while none has). */
  onOpen(listener: () => void): void {
    this.openListeners.push(listener);
  }

  /** Whether any node has a socket open now. */
  anyConnected(): boolean {
    for (const node of this.nodes.values()) if (node.session) return true;
    return false;
  }

  /** A new socket for the node; an older one is closed. Not ready until its hello. */
  open(identity: NodeIdentity, session: NodeSession): void {
    let node = this.nodes.get(identity.id);
    if (!node) {
      node = {
        ...identity, session: null, ready: false, version: null, lastSeenAt: null, offsetMs: null,
        outboxDepth: 0, dropped: 0, probesPerSecond: 0, rejected: 0, warnedClock: false,
      };
      this.nodes.set(identity.id, node);
    }
    if (node.session) node.session.close(4000, 'replaced by a newer connection');
    node.session = session;
    node.ready = false;
    node.lastSeenAt = this.deps.clock.now();
    for (const listener of this.openListeners) listener();
  }

  /** The node whose current socket this is (null for a replaced one); `heard`: a frame came, it is seen now. */
  current(id: string, session: NodeSession, heard = false): NodeState | null {
    const node = this.nodes.get(id);
    if (!node || node.session !== session) return null;
    if (heard) node.lastSeenAt = this.deps.clock.now();
    return node;
  }

  /** Hello received: pinged at once, so the results that follow are already corrected for its clock. */
  ready(node: NodeState, version: string): void {
    node.version = version;
    node.ready = true;
    node.session!.send({ type: 'ping', t0: this.deps.clock.now() });
  }

  closed(node: NodeState): void {
    node.session = null;
    node.ready = false;
  }

  /** Ready nodes of a region, by id (the order rendezvous hashing ties break on). */
  connectedIn(region: string): string[] {
    const out: string[] = [];
    for (const n of this.nodes.values()) if (n.region === region && n.ready && n.session) out.push(n.id);
    return out.sort();
  }

  readyNodes(): NodeState[] {
    return [...this.nodes.values()].filter((n) => n.ready && n.session !== null);
  }

  all(): IterableIterator<NodeState> {
    return this.nodes.values();
  }

  get size(): number {
    return this.nodes.size;
  }

  get(id: string): NodeState | undefined {
    return this.nodes.get(id);
  }

  sendTo(id: string, message: CentralMessage): void {
    this.nodes.get(id)?.session?.send(message);
  }

  /** A time the node reported, on the central's clock. */
  local(node: NodeState, at: number): number {
    return node.offsetMs ? Math.round(at - node.offsetMs) : at;
  }

  /** The clock offset (NTP's four timestamps) and the node's figures. */
  pong(node: NodeState, m: Extract<NodeMessage, { type: 'pong' }>): void {
    const t3 = this.deps.clock.now();
    node.offsetMs = (m.t1 - m.t0 + (m.t2 - t3)) / 2;
    node.outboxDepth = m.outboxDepth;
    node.dropped = m.dropped;
    node.probesPerSecond = m.probesPerSecond;
    const off = Math.abs(node.offsetMs) > CLOCK_WARNING_MS;
    if (off && !node.warnedClock) this.deps.log.warn({ nodeId: node.id, offsetMs: Math.round(node.offsetMs) }, 'node clock is off by more than 2 s; result times are corrected');
    node.warnedClock = off;
  }

  /** Closes every socket (the central stopping). */
  closeAll(code: number, reason: string): void {
    for (const node of this.nodes.values()) node.session?.close(code, reason);
  }
}
