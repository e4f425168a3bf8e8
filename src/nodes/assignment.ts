import type { Config } from '../config.js';
import type { CheckEvents, CheckObserver } from '../domain/check-observer.js';
import type { Clock } from '../domain/clock.js';
import type { Check } from '../domain/records.js';
import { intervalMs, isProbeType, probeTask } from '../engine/check-task.js';
import type { Placement } from '../engine/engine.js';
import type { NodeRepo } from '../store/node-repo.js';
import type { OutboundRules } from '../store/outbound-rules.js';
import type { PrivateRefusal } from '../domain/outbound-policy.js';
import type { NodeSessions } from './node-sessions.js';
import type { AssignedCheck } from './protocol.js';
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

const ASSIGN_CHUNK = 500;
const ASSIGN_BYTES = 1024 * 1024;

interface RemoteCheck {
  region: string;
  assigned: AssignedCheck;
  owner: string | null;
}

export interface AssignmentDeps {
  sessions: NodeSessions;
  nodes: Pick<NodeRepo, 'regions'>;
  /** The checks service, whose mutations assignment follows. */
  checks: CheckEvents;
  config: Config;
  clock: Clock;
  /** Each task carries its account's outbound rule: the node applies it, and its own config's, at connect. */
  outbound: Pick<OutboundRules, 'knownFor' | 'forAccount'>;
  /** Several centrals: has the central a check's node is connected to run it now (`runHere` there). */
  runElsewhere?: (checkId: string) => void;
}

/**
 * Which node probes which check: rendezvous hashing among a region's connected nodes, and the
 * failover of a region dark for `nodes.failoverMs` to the central's own wheel (`Placement`).
 * With several centrals a region's nodes may be connected to different centrals: each central
 * hashes among all of them (those connected here, and those the store says are connected to the
 * others), gives its own nodes their share, and counts a region lit while any central has a node
 * of it; the results of checks another central owns reach that owner through the store's inbox.
 */
export class Assignment implements CheckObserver, Placement {
  private readonly checks = new Map<string, RemoteCheck>();
  private readonly regionChecks = new Map<string, Set<string>>();
  /** When each region last had a connected node (the start for regions never seen). */
  private readonly darkSince = new Map<string, number>();
  /** Several centrals: nodes connected to the others, by region (sorted), as the store last said. */
  private elsewhere = new Map<string, string[]>();
  /** Checks each node was ever given while the central ran: results for others are refused. */
  private readonly given = new Map<string, Set<string>>();
  /** Checks waiting for the store to say which outbound rule their account follows (the latest save wins). */
  private readonly waiting = new Map<string, object>();
  private readonly region: string;
  private readonly startedAt: number;

  constructor(private readonly deps: AssignmentDeps) {
    this.region = deps.config.region;
    this.startedAt = deps.clock.now();
    deps.checks.observe(this);
  }

  /** Follows the checks the central starts with. */
  load(checks: (visit: (check: Check) => void) => void): void {
    checks((check) => {
      const rule = this.ruleOf(check, false);
      if (rule !== undefined) this.track(check, rule);
    });
  }

  /**
   * The outbound rule of a check's account when known now; otherwise undefined, and the check
   * is saved again once the store has answered (unless a later save or a delete came first).
   */
  private ruleOf(check: Check, runNow: boolean): PrivateRefusal | null | undefined {
    const rule = this.deps.outbound.knownFor(check.accountId);
    if (rule !== undefined) return rule;
    const mark = {};
    this.waiting.set(check.id, mark);
    this.deps.outbound.forAccount(check.accountId).then(() => {
      if (this.waiting.get(check.id) !== mark) return;
      this.waiting.delete(check.id);
      this.checkSaved(check, runNow);
    }, () => this.waiting.delete(check.id)); // the engine logs the same failure; the next save tries again
    return undefined;
  }

  probesHere(region: string): boolean {
    if (region === this.region) return true;
    if (this.deps.sessions.connectedIn(region).length > 0) return false;
    const since = this.darkSince.get(region) ?? this.startedAt;
    return this.deps.clock.now() - since >= this.deps.config.nodes.failoverMs;
  }

  /**
   * Several centrals: the nodes the store says are connected, heard from lately. A region with
   * one connected to another central is lit here too; a node this central heard from last is
   * left out (the store's word on it is this central's own, or older).
   */
  seenElsewhere(nodes: ReadonlyArray<{ id: string; region: string; lastSeenAt: number }>): void {
    const now = this.deps.clock.now();
    const next = new Map<string, string[]>();
    for (const n of nodes) {
      const here = this.deps.sessions.get(n.id);
      if (n.region === this.region || (here && (here.session || (here.lastSeenAt ?? 0) >= n.lastSeenAt))) continue;
      const ids = next.get(n.region);
      if (ids) ids.push(n.id);
      else next.set(n.region, [n.id]);
    }
    const before = this.elsewhere;
    this.elsewhere = next;
    for (const [region, ids] of next) {
      ids.sort();
      if (this.deps.sessions.connectedIn(region).length === 0) this.darkSince.set(region, now);
    }
    for (const region of new Set([...before.keys(), ...next.keys()])) {
      if ((before.get(region) ?? []).join() !== (next.get(region) ?? []).join()) this.rebalance(region);
    }
  }

  /** Several centrals: the nodes connected to the others (none is of this central's region). */
  nodesElsewhere(): string[] {
    return [...this.elsewhere.values()].flat();
  }

  /** The nodes that share a region's checks: connected here, and with several centrals to the others. */
  private nodesIn(region: string): string[] {
    const here = this.deps.sessions.connectedIn(region);
    const there = this.elsewhere.get(region);
    return there ? [...new Set([...here, ...there])].sort() : here;
  }

  /** An immediate re-check of a check probed on a node goes to that node, wherever it is connected. */
  runNow(checkId: string): void {
    if (!this.runHere(checkId)) this.deps.runElsewhere?.(checkId);
  }

  /** The same when the check's node is connected here; false when it is not. */
  runHere(checkId: string): boolean {
    const owner = this.checks.get(checkId)?.owner;
    const session = owner ? this.deps.sessions.get(owner)?.session : null;
    if (!session) return false;
    session.send({ type: 'run', id: checkId });
    return true;
  }

  wasGiven(nodeId: string, checkId: string): boolean {
    return this.given.get(nodeId)?.has(checkId) ?? false;
  }

  /** Checks owned per node, for the node list's figures. */
  owned(): Map<string, number> {
    const owned = new Map<string, number>();
    for (const c of this.checks.values()) if (c.owner) owned.set(c.owner, (owned.get(c.owner) ?? 0) + 1);
    return owned;
  }

  async regions(): Promise<RegionView[]> {
    const { sessions } = this.deps;
    const registered = await this.deps.nodes.regions();
    const central = registered.find((r) => r.region === this.region);
    const views: RegionView[] = [{ id: this.region, nodes: central?.nodes ?? 0, connected: sessions.connectedIn(this.region).length, online: true }];
    for (const r of registered) {
      if (r.region === this.region) continue;
      const connected = this.nodesIn(r.region).length;
      views.push({ id: r.region, nodes: r.nodes, connected, online: connected > 0 });
    }
    return views;
  }

  checkSaved(check: Check, runNow: boolean): void {
    const region = check.regionOverride ?? this.region;
    if (check.disabled || !isProbeType(check.type) || region === this.region) {
      this.checkDeleted(check);
      return;
    }
    this.waiting.delete(check.id);
    const rule = this.ruleOf(check, runNow);
    if (rule === undefined) return;
    const previous = this.checks.get(check.id);
    if (previous && previous.region !== region) this.checkDeleted(check);
    const entry = this.track(check, rule)!;
    const owner = ownerOf(check.id, this.nodesIn(region));
    if (previous?.owner && previous.owner !== owner) this.deps.sessions.sendTo(previous.owner, { type: 'unassign', ids: [check.id] });
    entry.owner = owner;
    if (owner) this.give(owner, [entry.assigned], runNow ? [check.id] : [], false);
  }

  checkDeleted(check: Pick<Check, 'id'>): void {
    this.waiting.delete(check.id);
    const entry = this.checks.get(check.id);
    if (!entry) return;
    this.checks.delete(check.id);
    this.regionChecks.get(entry.region)?.delete(check.id);
    if (entry.owner) this.deps.sessions.sendTo(entry.owner, { type: 'unassign', ids: [check.id] });
    for (const given of this.given.values()) given.delete(check.id);
  }

  /** A node said hello: its region is lit, and it gets its whole share as a reset. */
  connected(nodeId: string, region: string): void {
    this.darkSince.delete(region);
    this.rebalance(region, nodeId);
  }

  disconnected(region: string): void {
    if (this.deps.sessions.connectedIn(region).length === 0) this.darkSince.set(region, this.deps.clock.now());
    this.rebalance(region);
  }

  /** Adds or refreshes a check whose primary region is not the central's. */
  private track(check: Check, rule: PrivateRefusal | null): RemoteCheck | null {
    const region = check.regionOverride ?? this.region;
    if (check.disabled || !isProbeType(check.type) || region === this.region) return null;
    const entry: RemoteCheck = {
      region,
      assigned: { id: check.id, intervalMs: intervalMs(check), task: probeTask(check, rule) },
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
    const nodes = this.nodesIn(region);
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
    for (const [nodeId, ids] of removes) this.deps.sessions.sendTo(nodeId, { type: 'unassign', ids });
    for (const [nodeId, checks] of adds) {
      if (checks.length > 0 || nodeId === fresh) this.give(nodeId, checks, [], nodeId === fresh);
    }
  }

  private give(nodeId: string, checks: AssignedCheck[], runNow: string[], reset: boolean): void {
    const session = this.deps.sessions.get(nodeId)?.session;
    if (!session) return;
    let given = this.given.get(nodeId);
    if (!given) this.given.set(nodeId, (given = new Set()));
    for (const c of checks) given.add(c.id);
    // Frames of at most ASSIGN_CHUNK checks and about ASSIGN_BYTES (a check may carry a 64 KB body).
    let chunk: AssignedCheck[] = [];
    let bytes = 0;
    let first = true;
    const flush = () => {
      session.send({ type: 'assign', reset: reset && first, checks: chunk, runNow: first ? runNow : [] });
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
}
