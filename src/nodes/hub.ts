import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { CheckObserver } from '../domain/check-observer.js';
import type { Clock } from '../domain/clock.js';
import type { Check } from '../domain/records.js';
import { intervalMs, isProbeType, probeTask } from '../engine/check-task.js';
import type { ProbeDispatcher } from '../engine/dispatcher.js';
import { failedResult } from '../engine/dispatcher.js';
import type { Engine, Placement } from '../engine/engine.js';
import type { ProbeResult, ProbeTask } from '../domain/probe-types.js';
import type { PeerRechecker, PeerVerdict } from '../monitor/peer.js';
import type { BatchWriter } from '../store/batch-writer.js';
import type { NodeCursorWrite } from '../store/writes.js';
import type { Store } from '../store/store.js';
import { CLOCK_WARNING_MS, type NodeRegistry } from './node-registry.js';
import { asProbeResult, parseNodeMessage, type AssignedCheck, type CentralMessage, type NodeMessage } from './protocol.js';
import { ownerOf } from './rendezvous.js';

/** `GET /v1/public/regions`: where a check can be pinned. */
export interface RegionView {
  id: string;
  /** Registered nodes (not revoked). */
  nodes: number;
  /** Nodes connected now. */
  connected: number;
  /** Probes run there now: the central's region always; another while a node of it is connected. */
  online: boolean;
}

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

export interface NodeHubDeps {
  store: Store;
  writer: BatchWriter;
  registry: NodeRegistry;
  engine: Engine;
  /** The central's own probes, for peer re-checks of a node's failures. */
  dispatcher: ProbeDispatcher;
  config: Config;
  clock: Clock;
  log: Logger;
}

/** A peer that has not answered this long after the probe's own timeout does not count. */
const PEER_SLACK_MS = 2_000;
/** Results this much older than now are replays: they are not re-checked by a peer. */
const FRESH_MS = 45_000;
const ASSIGN_CHUNK = 500;
const ASSIGN_BYTES = 1024 * 1024;
const LIVE_EVERY_MS = 2_000;
const REVOCATION_EVERY_MS = 1_000;

interface NodeState extends NodeIdentity {
  session: NodeSession | null;
  /** Hello received: the node takes checks and results are accepted. */
  ready: boolean;
  version: string | null;
  lastSeenAt: number | null;
  epoch: string | null;
  /** Highest sequence received from this epoch (in processing or recorded). */
  received: number;
  /** Sequences received and not yet submitted for writing, in order; `done` holds those finished out of order. */
  pending: number[];
  /** Index of the first entry of `pending` not yet passed by the watermark. */
  pendingHead: number;
  done: Set<number>;
  /** Highest sequence whose write (and every earlier one's) has been submitted. */
  watermark: number;
  acking: boolean;
  /** Checks this node was ever given while the central ran: results for others are refused. */
  given: Set<string>;
  offsetMs: number | null;
  outboxDepth: number;
  dropped: number;
  probesPerSecond: number;
  rejected: number;
  warnedClock: boolean;
}

interface RemoteCheck {
  region: string;
  assigned: AssignedCheck;
  owner: string | null;
}

interface PendingRecheck {
  nodeId: string;
  resolve: (verdict: PeerVerdict | null) => void;
  timer: NodeJS.Timeout;
}

/**
 * The central's side of the node protocol: which node probes which check (rendezvous hashing
 * among a region's connected nodes), the failover of a dark region to the central, peer
 * re-checks in both directions, and results recorded exactly once through the engine.
 */
export class NodeHub implements CheckObserver, Placement, PeerRechecker {
  private readonly nodes = new Map<string, NodeState>();
  private readonly checks = new Map<string, RemoteCheck>();
  private readonly regionChecks = new Map<string, Set<string>>();
  /** When each region last had a connected node (the hub's start for regions never seen). */
  private readonly darkSince = new Map<string, number>();
  private readonly rechecks = new Map<number, PendingRecheck>();
  private nextRid = 1;
  private readonly startedAt: number;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly region: string;

  constructor(private readonly deps: NodeHubDeps) {
    this.region = deps.config.region;
    this.startedAt = deps.clock.now();
  }

  start(): void {
    this.deps.store.nodes.markAllDisconnected();
    this.deps.store.checks.forEachEnabled((check) => this.track(check));
    this.deps.engine.onRemoteRecheck((id) => this.runNow(id));
    this.every(LIVE_EVERY_MS, () => this.saveLive());
    this.every(REVOCATION_EVERY_MS, () => this.closeRevoked());
    this.every(this.deps.config.nodes.pingMs, () => this.pingAll());
  }

  stop(): void {
    for (const t of this.timers) clearInterval(t);
    for (const node of this.nodes.values()) node.session?.close(1001, 'central stopping');
    for (const r of this.rechecks.values()) {
      clearTimeout(r.timer);
      r.resolve(null);
    }
    this.rechecks.clear();
  }

  authenticate(token: string): NodeIdentity | null {
    return this.deps.registry.authenticate(token);
  }

  // --- Sessions -------------------------------------------------------------------------

  open(identity: NodeIdentity, session: NodeSession): void {
    const node = this.stateOf(identity);
    if (node.session) node.session.close(4000, 'replaced by a newer connection');
    node.session = session;
    node.ready = false;
    node.lastSeenAt = this.deps.clock.now();
  }

  message(identity: NodeIdentity, session: NodeSession, text: string): void {
    const node = this.nodes.get(identity.id);
    if (!node || node.session !== session) return;
    node.lastSeenAt = this.deps.clock.now();
    const m = parseNodeMessage(text);
    if (!m) {
      this.deps.log.warn({ nodeId: node.id }, 'node sent a malformed frame; closing');
      session.close(1008, 'malformed frame');
      return;
    }
    if (m.type === 'hello') this.hello(node, m);
    else if (!node.ready) session.close(1008, 'hello first');
    else if (m.type === 'results') this.results(node, m);
    else if (m.type === 'recheckResult') this.recheckAnswered(node, m.rid, asProbeResult(m.result));
    else this.pong(node, m);
  }

  closed(identity: NodeIdentity, session: NodeSession): void {
    const node = this.nodes.get(identity.id);
    if (!node || node.session !== session) return;
    node.session = null;
    node.ready = false;
    for (const [rid, r] of this.rechecks) {
      if (r.nodeId !== node.id) continue;
      clearTimeout(r.timer);
      this.rechecks.delete(rid);
      r.resolve(null);
    }
    this.deps.log.info({ nodeId: node.id, region: node.region }, 'node disconnected');
    if (this.connectedIn(node.region).length === 0) this.darkSince.set(node.region, this.deps.clock.now());
    this.rebalance(node.region);
  }

  private hello(node: NodeState, m: Extract<NodeMessage, { type: 'hello' }>): void {
    node.version = m.version;
    if (node.epoch === null) {
      const cursor = this.deps.store.nodes.cursor(node.id);
      node.epoch = cursor.epoch;
      node.received = node.watermark = cursor.seq;
    }
    if (node.epoch !== m.epoch) {
      // A new outbox (a fresh data directory): its sequence starts again.
      node.epoch = m.epoch;
      node.received = node.watermark = 0;
      node.pending = [];
      node.pendingHead = 0;
      node.done.clear();
    }
    node.ready = true;
    // The ping first: the node answers it before it starts sending results, so those are
    // already corrected for its clock.
    node.session!.send({ type: 'ping', t0: this.deps.clock.now() });
    node.session!.send({ type: 'welcome', nodeId: node.id, region: node.region, epoch: node.epoch, seq: node.watermark });
    this.darkSince.delete(node.region);
    this.deps.log.info({ nodeId: node.id, region: node.region, version: m.version }, 'node connected');
    this.rebalance(node.region, node.id);
  }

  regions(): RegionView[] {
    const registered = this.deps.store.nodes.regions();
    const central = registered.find((r) => r.region === this.region);
    const views: RegionView[] = [{ id: this.region, nodes: central?.nodes ?? 0, connected: this.connectedIn(this.region).length, online: true }];
    for (const r of registered) {
      if (r.region === this.region) continue;
      const connected = this.connectedIn(r.region).length;
      views.push({ id: r.region, nodes: r.nodes, connected, online: connected > 0 });
    }
    return views;
  }

  // --- Assignment -----------------------------------------------------------------------

  probesHere(region: string): boolean {
    if (region === this.region) return true;
    if (this.connectedIn(region).length > 0) return false;
    const since = this.darkSince.get(region) ?? this.startedAt;
    return this.deps.clock.now() - since >= this.deps.config.nodes.failoverMs;
  }

  checkSaved(check: Check, runNow: boolean): void {
    const region = check.regionOverride ?? this.region;
    if (check.disabled || !isProbeType(check.type) || region === this.region) {
      this.checkDeleted(check);
      return;
    }
    const previous = this.checks.get(check.id);
    if (previous && previous.region !== region) this.checkDeleted(check);
    const entry = this.track(check)!;
    const owner = ownerOf(check.id, this.connectedIn(region));
    if (previous?.owner && previous.owner !== owner) this.sendTo(previous.owner, { type: 'unassign', ids: [check.id] });
    entry.owner = owner;
    if (owner) this.give(owner, [entry.assigned], runNow ? [check.id] : [], false);
  }

  checkDeleted(check: Pick<Check, 'id'>): void {
    const entry = this.checks.get(check.id);
    if (!entry) return;
    this.checks.delete(check.id);
    this.regionChecks.get(entry.region)?.delete(check.id);
    if (entry.owner) this.sendTo(entry.owner, { type: 'unassign', ids: [check.id] });
    for (const node of this.nodes.values()) node.given.delete(check.id);
  }

  /** Adds or refreshes a check whose primary region is not the central's. */
  private track(check: Check): RemoteCheck | null {
    const region = check.regionOverride ?? this.region;
    if (check.disabled || !isProbeType(check.type) || region === this.region) return null;
    const entry: RemoteCheck = {
      region,
      assigned: { id: check.id, intervalMs: intervalMs(check), task: probeTask(check, this.deps.config) },
      owner: this.checks.get(check.id)?.owner ?? null,
    };
    this.checks.set(check.id, entry);
    let set = this.regionChecks.get(region);
    if (!set) this.regionChecks.set(region, (set = new Set()));
    set.add(check.id);
    return entry;
  }

  /** Recomputes owners in a region; `fresh` (a node just said hello) gets its whole share as a reset. */
  private rebalance(region: string, fresh?: string): void {
    const nodes = this.connectedIn(region);
    const adds = new Map<string, AssignedCheck[]>(nodes.map((n) => [n, []]));
    const removes = new Map<string, string[]>();
    for (const id of this.regionChecks.get(region) ?? []) {
      const entry = this.checks.get(id)!;
      const owner = ownerOf(id, nodes);
      if (owner === entry.owner && owner !== fresh) continue;
      if (entry.owner && entry.owner !== owner) {
        const list = removes.get(entry.owner) ?? [];
        list.push(id);
        removes.set(entry.owner, list);
      }
      entry.owner = owner;
      if (owner) adds.get(owner)!.push(entry.assigned);
    }
    for (const [nodeId, ids] of removes) this.sendTo(nodeId, { type: 'unassign', ids });
    for (const [nodeId, checks] of adds) {
      if (checks.length > 0 || nodeId === fresh) this.give(nodeId, checks, [], nodeId === fresh);
    }
  }

  private give(nodeId: string, checks: AssignedCheck[], runNow: string[], reset: boolean): void {
    const node = this.nodes.get(nodeId);
    if (!node?.session) return;
    for (const c of checks) node.given.add(c.id);
    // Frames of at most ASSIGN_CHUNK checks and about ASSIGN_BYTES (a check may carry a 64 KB body).
    let chunk: AssignedCheck[] = [];
    let bytes = 0;
    let first = true;
    const flush = () => {
      node.session!.send({ type: 'assign', reset: reset && first, checks: chunk, runNow: first ? runNow : [] });
      first = false;
      chunk = [];
      bytes = 0;
    };
    for (const c of checks) {
      const size = JSON.stringify(c).length;
      if (chunk.length > 0 && (chunk.length >= ASSIGN_CHUNK || bytes + size > ASSIGN_BYTES)) flush();
      chunk.push(c);
      bytes += size;
    }
    if (first || chunk.length > 0) flush();
  }

  private runNow(checkId: string): void {
    const owner = this.checks.get(checkId)?.owner;
    if (owner) this.sendTo(owner, { type: 'run', id: checkId });
  }

  private connectedIn(region: string): string[] {
    const out: string[] = [];
    for (const n of this.nodes.values()) if (n.region === region && n.ready && n.session) out.push(n.id);
    return out.sort();
  }

  // --- Results --------------------------------------------------------------------------

  private results(node: NodeState, m: Extract<NodeMessage, { type: 'results' }>): void {
    if (m.epoch !== node.epoch) return;
    const now = this.deps.clock.now();
    for (const item of m.items) {
      if (item.seq <= node.received) continue; // a replay of something already in hand
      node.received = item.seq;
      node.pending.push(item.seq);
      const epoch = node.epoch;
      const cursor = () => this.cursorWrite(node, epoch, item.seq);
      if (!node.given.has(item.checkId)) {
        node.rejected++;
        this.deps.log.warn({ nodeId: node.id, checkId: item.checkId }, 'node sent a result for a check not given to it; dropped');
        this.deps.writer.submit(cursor());
        continue;
      }
      const result = asProbeResult(item.result);
      const corrected: ProbeResult = node.offsetMs ? { ...result, startedAt: Math.round(result.startedAt - node.offsetMs) } : result;
      const fresh = now - corrected.startedAt <= FRESH_MS;
      this.deps.engine.recordRemote(item.checkId, corrected, node.region, fresh, cursor)?.then(
        () => this.acknowledge(node),
        (err: unknown) => this.deps.log.error({ err, nodeId: node.id }, 'recording a node result failed'),
      );
    }
    this.acknowledge(node);
  }

  /**
   * Marks `seq` recorded and returns the write that moves the node's durable cursor with it:
   * the highest sequence below which every result has been handed to the writer (results
   * re-checked by a peer finish out of order).
   */
  private cursorWrite(node: NodeState, epoch: string, seq: number): NodeCursorWrite {
    if (epoch === node.epoch) {
      node.done.add(seq);
      while (node.pendingHead < node.pending.length && node.done.has(node.pending[node.pendingHead]!)) {
        node.watermark = node.pending[node.pendingHead++]!;
        node.done.delete(node.watermark);
      }
      if (node.pendingHead > 1024 && node.pendingHead * 2 > node.pending.length) {
        node.pending = node.pending.slice(node.pendingHead);
        node.pendingHead = 0;
      }
    }
    return { kind: 'node-cursor', nodeId: node.id, cursor: { epoch: node.epoch ?? epoch, seq: node.watermark } };
  }

  /** Once what is submitted is durable, tells the node it may drop it (one commit at a time). */
  private acknowledge(node: NodeState): void {
    if (node.acking) return;
    node.acking = true;
    const epoch = node.epoch;
    const seq = node.watermark;
    if (epoch === null) {
      node.acking = false;
      return;
    }
    // The cursor once more, durably: everything submitted before it is durable with it.
    this.deps.writer.commit({ kind: 'node-cursor', nodeId: node.id, cursor: { epoch, seq } }).then(
      () => {
        node.acking = false;
        if (epoch === node.epoch) node.session?.send({ type: 'ack', epoch, seq });
        if (node.watermark > seq) this.acknowledge(node);
      },
      () => {
        node.acking = false;
      },
    );
  }

  // --- Peer re-checks -------------------------------------------------------------------

  recheck(task: ProbeTask, primaryRegion: string): Promise<PeerVerdict | null> {
    const limit = task.timeoutMs + PEER_SLACK_MS;
    if (primaryRegion !== this.region) return this.recheckHere(task, limit);
    const candidates = [...this.nodes.values()].filter((n) => n.ready && n.session && n.region !== primaryRegion);
    if (candidates.length === 0) return Promise.resolve(null);
    const node = candidates[this.nextRid % candidates.length]!;
    const rid = this.nextRid++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.rechecks.delete(rid);
        resolve(null);
      }, limit);
      this.rechecks.set(rid, { nodeId: node.id, resolve, timer });
      node.session!.send({ type: 'recheck', rid, task });
    });
  }

  private recheckHere(task: ProbeTask, limit: number): Promise<PeerVerdict | null> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(null), limit);
      void this.deps.dispatcher.run(task).then((result) => {
        clearTimeout(timer);
        resolve({ region: this.region, result });
      }, () => resolve({ region: this.region, result: failedResult(this.deps.clock.now(), 'Peer probe failed') }));
    });
  }

  private recheckAnswered(node: NodeState, rid: number, result: ProbeResult): void {
    const pending = this.rechecks.get(rid);
    if (!pending || pending.nodeId !== node.id) return;
    clearTimeout(pending.timer);
    this.rechecks.delete(rid);
    const startedAt = node.offsetMs ? Math.round(result.startedAt - node.offsetMs) : result.startedAt;
    pending.resolve({ region: node.region, result: { ...result, startedAt } });
  }

  // --- Clock and figures ----------------------------------------------------------------

  private pong(node: NodeState, m: Extract<NodeMessage, { type: 'pong' }>): void {
    const t3 = this.deps.clock.now();
    node.offsetMs = (m.t1 - m.t0 + (m.t2 - t3)) / 2;
    node.outboxDepth = m.outboxDepth;
    node.dropped = m.dropped;
    node.probesPerSecond = m.probesPerSecond;
    const off = Math.abs(node.offsetMs) > CLOCK_WARNING_MS;
    if (off && !node.warnedClock) this.deps.log.warn({ nodeId: node.id, offsetMs: Math.round(node.offsetMs) }, 'node clock is off by more than 2 s; result times are corrected');
    node.warnedClock = off;
  }

  private pingAll(): void {
    const t0 = this.deps.clock.now();
    for (const n of this.nodes.values()) if (n.ready) n.session?.send({ type: 'ping', t0 });
  }

  private saveLive(): void {
    if (this.nodes.size === 0) return;
    const owned = new Map<string, number>();
    for (const c of this.checks.values()) if (c.owner) owned.set(c.owner, (owned.get(c.owner) ?? 0) + 1);
    this.deps.writer.submit({
      kind: 'node-live',
      nodes: [...this.nodes.values()].map((n) => ({
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

  /** `vigil node revoke` runs in another process: connected nodes are looked up every second. */
  private closeRevoked(): void {
    const connected = [...this.nodes.values()].filter((n) => n.session).map((n) => n.id);
    for (const id of this.deps.store.nodes.revokedAmong(connected)) {
      const node = this.nodes.get(id)!;
      this.deps.log.warn({ nodeId: id }, 'node revoked; disconnecting');
      node.session?.close(4001, 'node revoked');
    }
  }

  private stateOf(identity: NodeIdentity): NodeState {
    let node = this.nodes.get(identity.id);
    if (!node) {
      node = {
        ...identity, session: null, ready: false, version: null, lastSeenAt: null, epoch: null, received: 0,
        pending: [], pendingHead: 0, done: new Set(), watermark: 0, acking: false, given: new Set(), offsetMs: null,
        outboxDepth: 0, dropped: 0, probesPerSecond: 0, rejected: 0, warnedClock: false,
      };
      this.nodes.set(identity.id, node);
    }
    return node;
  }

  private sendTo(nodeId: string, message: CentralMessage): void {
    this.nodes.get(nodeId)?.session?.send(message);
  }

  private every(ms: number, job: () => void): void {
    const timer = setInterval(() => {
      try {
        job();
      } catch (err) {
        this.deps.log.error({ err }, 'node hub job failed');
      }
    }, ms);
    timer.unref();
    this.timers.push(timer);
  }
}
