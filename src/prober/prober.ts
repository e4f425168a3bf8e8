import { join } from 'node:path';
import type { Logger } from 'pino';
import type { ConfigInput } from '../config.js';
import { systemClock } from '../domain/clock.js';
import { ThreadDispatcher, type ProbeDispatcher } from '../engine/dispatcher.js';
import type { ProbeTask } from '../domain/probe-types.js';
import { strictest } from '../domain/outbound-policy.js';
import { followingDue, nextDue, TimingWheel } from '../engine/timing-wheel.js';
import { startWheelDriver, type WheelDriver } from '../engine/wheel-driver.js';
import { MAX_BATCH, MAX_BATCH_BYTES, type AssignedCheck, type CentralMessage } from '../nodes/protocol.js';
import { VERSION } from '../version.js';
import { NodeLink } from './link.js';
import { Outbox } from './outbox.js';

export interface ProberOptions {
  /** The centrals it may connect to (several on one store): the first, then the next after a loss. */
  servers: readonly string[];
  token: string;
  config: ConfigInput;
  log: Logger;
  dispatcher?: ProbeDispatcher;
  /** Called when the central refuses the token: the process has nothing left to do. */
  onRefused?: (reason: string) => void;
}

/** Batches sent and not yet acknowledged before the node waits (flow control over one socket). */
const MAX_IN_FLIGHT = 50 * MAX_BATCH;
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

interface Assigned extends AssignedCheck {
  inFlight: boolean;
}

/**
 * A regional prober node (`vigil prober`): the central's timing wheel and probe workers with
 * no database. It probes what the central assigns to it, on the same phases, and keeps every
 * result in its outbox until the central acknowledges it, so a lost connection or a central
 * restart loses nothing: probing goes on and the backlog is replayed in order.
 */
export class Prober {
  private readonly wheel = new TimingWheel({ clock: systemClock, tickMs: 100 });
  private readonly checks = new Map<string, Assigned>();
  private readonly dispatcher: ProbeDispatcher;
  private readonly outbox: Outbox;
  private readonly link: NodeLink;
  private driver: WheelDriver | null = null;
  private welcomed = false;
  /** Set by stop(): probes the closing pool fails are not the targets' fault and are not recorded. */
  private stopping = false;
  private completed: number[] = [];
  /** The backlog found at the last connect and when that was, until it is acknowledged. */
  private replay: { results: number; since: number } | null = null;
  readonly log: Logger;

  constructor(private readonly opts: ProberOptions) {
    this.log = opts.log;
    this.dispatcher = opts.dispatcher ?? new ThreadDispatcher({ threads: opts.config.probes.threads, dnsServers: opts.config.probes.dnsServers });
    this.outbox = new Outbox({ dir: join(opts.config.dataDir, 'outbox'), max: opts.config.nodes.outboxMax });
    this.link = new NodeLink({
      servers: opts.servers,
      token: opts.token,
      onOpen: () => this.link.send({ type: 'hello', version: VERSION, epoch: this.outbox.epoch }),
      onMessage: (m) => this.receive(m),
      onClose: (reason, refused) => this.disconnected(reason, refused),
      maxDelayMs: opts.config.nodes.reconnectMaxMs,
      minDelayMs: Math.min(500, opts.config.nodes.reconnectMaxMs),
    });
  }

  start(): void {
    this.driver = startWheelDriver({
      wheel: this.wheel,
      clock: systemClock,
      fire: (id, dueAt) => this.fire(id, dueAt),
      onError: (err) => this.log.error({ err }, 'scheduler error'),
      onTick: () => this.pump(),
    });
    this.link.start();
    this.log.info({ servers: this.link.allUrls, epoch: this.outbox.epoch, backlog: this.outbox.depth }, 'prober started');
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.driver?.stop();
    this.link.stop();
    await this.dispatcher.close();
    this.outbox.close();
  }

  private receive(m: CentralMessage): void {
    switch (m.type) {
      case 'welcome':
        this.welcomed = true;
        this.link.established();
        this.outbox.ack(m.epoch ?? '', m.seq);
        this.outbox.rewind();
        if (this.outbox.depth > 0) this.replay = { results: this.outbox.depth, since: Date.now() };
        this.log.info({ server: this.link.url, nodeId: m.nodeId, region: m.region, backlog: this.outbox.depth }, 'connected to the central');
        this.pump();
        return;
      case 'assign':
        if (m.reset) this.unassign([...this.checks.keys()].filter((id) => !m.checks.some((c) => c.id === id)));
        for (const c of m.checks) this.assign(c);
        for (const id of m.runNow) this.wheel.schedule(id, Date.now());
        return;
      case 'unassign':
        this.unassign(m.ids);
        return;
      case 'run':
        if (this.checks.has(m.id)) this.wheel.schedule(m.id, Date.now());
        return;
      case 'recheck':
        void this.dispatcher.run(this.guarded(m.task)).then((result) => this.link.send({ type: 'recheckResult', rid: m.rid, result }));
        return;
      case 'ack':
        this.outbox.ack(m.epoch, m.seq);
        if (this.replay && this.outbox.depth === 0) {
          const ms = Date.now() - this.replay.since;
          this.log.info({ replayed: this.replay.results, ms, perSecond: Math.round((this.replay.results / Math.max(1, ms)) * 1000) }, 'backlog replayed');
          this.replay = null;
        }
        this.pump();
        return;
      case 'ping': {
        const now = Date.now();
        this.link.send({
          type: 'pong', t0: m.t0, t1: now, t2: now,
          outboxDepth: this.outbox.depth, dropped: this.outbox.dropped, probesPerSecond: this.probesPerSecond(now),
        });
        return;
      }
    }
  }

  private assign(c: AssignedCheck): void {
    const previous = this.checks.get(c.id);
    this.checks.set(c.id, { ...c, task: this.guarded(c.task), inFlight: previous?.inFlight ?? false });
    if (!previous || previous.intervalMs !== c.intervalMs) this.wheel.schedule(c.id, nextDue(c.id, c.intervalMs, Date.now()));
  }

  private unassign(ids: string[]): void {
    for (const id of ids) {
      this.checks.delete(id);
      this.wheel.cancel(id);
    }
  }

  private guarded(task: ProbeTask): ProbeTask {
    return nodeTask(task, this.opts.config.probes.blockPrivateAddresses);
  }

  private fire(id: string, dueAt: number): void {
    const check = this.checks.get(id);
    if (!check) return;
    const now = Date.now();
    this.wheel.schedule(id, followingDue(id, check.intervalMs, dueAt, now));
    if (check.inFlight) return; // never pile up probes of one check
    check.inFlight = true;
    void this.dispatcher.run(check.task).then((result) => {
      check.inFlight = false;
      if (this.stopping) return;
      // Unassigned while probing: the result still describes the target at that time.
      this.outbox.add(id, result);
      this.completed.push(Date.now());
    });
  }

  /** Every tick: results to disk, then as many batches as the window allows. */
  private pump(): void {
    this.outbox.persist();
    if (!this.welcomed || !this.link.open) return;
    while (this.outbox.inFlight < MAX_IN_FLIGHT && this.link.buffered < MAX_BUFFERED_BYTES) {
      const items = this.outbox.takeUnsent(MAX_BATCH, MAX_BATCH_BYTES);
      if (items.length === 0) break;
      this.link.send({ type: 'results', epoch: this.outbox.epoch, items });
    }
  }

  private disconnected(reason: string, refused: boolean): void {
    const wasWelcomed = this.welcomed;
    this.welcomed = false;
    this.outbox.rewind();
    if (refused) {
      this.log.error({ reason }, 'the central refused this node token (unknown or revoked)');
      this.opts.onRefused?.(reason);
    } else if (wasWelcomed) this.log.warn({ reason, backlog: this.outbox.depth }, 'lost the central; probing on and queueing results');
  }

  private probesPerSecond(now: number): number {
    const since = now - 10_000;
    let drop = 0;
    while (drop < this.completed.length && this.completed[drop]! < since) drop++;
    if (drop) this.completed = this.completed.slice(drop);
    return this.completed.length / 10;
  }
}

/**
 * The task's own rule (its account's, set by the central) and the node's `probes.blockPrivateAddresses`
 * both apply: either one refuses private targets, and the node cannot lift the central's.
 */
export function nodeTask(task: ProbeTask, blockPrivateAddresses: boolean): ProbeTask {
  // A central from before the outbound policy sends only `blockPrivateAddresses`.
  const legacy = (task as { blockPrivateAddresses?: boolean }).blockPrivateAddresses ? 'operator' : null;
  const rule = strictest(task.refusePrivate ?? legacy, blockPrivateAddresses ? 'operator' : null);
  return rule === task.refusePrivate ? task : { ...task, refusePrivate: rule };
}
