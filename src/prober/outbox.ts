import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { ProbeResult } from '../domain/probe-types.js';
import type { ResultItem } from '../nodes/protocol.js';

export interface OutboxOptions {
  dir: string;
  /** Results kept while unacknowledged; past it the oldest are dropped and counted. */
  max: number;
}

interface OutboxState {
  epoch: string;
  acked: number;
  dropped: number;
  /** Highest sequence dropped for room: a reload skips it and everything before. */
  droppedThrough: number;
}

/**
 * The node's results until the central acknowledges them, in order, on disk: an append-only
 * `results.jsonl` (one result per line, written in batches at most a tick after the probe)
 * and `state.json` (the outbox's epoch, the acknowledged sequence and the drop count). A
 * restarted node reloads both and replays whatever is unacknowledged; a torn last line from
 * a crash is skipped. The file is rewritten with only the pending results once most of it is
 * acknowledged, so it stays about the size of the backlog.
 */
export class Outbox {
  readonly epoch: string;
  private acked: number;
  private droppedCount: number;
  private droppedThrough: number;
  private stateDirty = false;
  private nextSeq: number;
  /** Pending results in sequence order; `head` is the first not yet acknowledged or dropped. */
  private items: Array<ResultItem | undefined> = [];
  private head = 0;
  /** Index into `items` of the next result not sent on the current connection. */
  private sendAt = 0;
  private unwritten: string[] = [];
  private linesOnDisk = 0;
  private fd: number | undefined;
  private readonly resultsFile: string;
  private readonly stateFile: string;

  constructor(private readonly opts: OutboxOptions) {
    mkdirSync(opts.dir, { recursive: true });
    this.resultsFile = join(opts.dir, 'results.jsonl');
    this.stateFile = join(opts.dir, 'state.json');
    const state = readState(this.stateFile);
    this.epoch = state.epoch;
    this.acked = state.acked;
    this.droppedCount = state.dropped;
    this.droppedThrough = state.droppedThrough;
    this.nextSeq = Math.max(state.acked, state.droppedThrough) + 1;
    for (const item of readResults(this.resultsFile)) {
      if (item.seq < this.nextSeq) continue;
      this.items.push(item);
      this.nextSeq = item.seq + 1;
    }
    this.trimToMax();
    this.rewrite();
    this.fd = openSync(this.resultsFile, 'a');
  }

  /** Results not yet acknowledged (shown in `vigil node list`). */
  get depth(): number {
    return this.items.length - this.head;
  }

  get dropped(): number {
    return this.droppedCount;
  }

  add(checkId: string, result: ProbeResult): ResultItem {
    const item: ResultItem = { seq: this.nextSeq++, checkId, result };
    this.items.push(item);
    this.unwritten.push(JSON.stringify(item));
    this.trimToMax();
    return item;
  }

  /** Writes the results added since the last call to disk (the prober calls this every tick). */
  persist(): void {
    if (this.stateDirty) this.saveState();
    if (this.unwritten.length === 0) return;
    writeSync(this.fd!, `${this.unwritten.join('\n')}\n`);
    this.linesOnDisk += this.unwritten.length;
    this.unwritten = [];
  }

  /** The next results to send on this connection, in order: at most `max`, and `maxBytes` once serialised (at least one). */
  takeUnsent(max: number, maxBytes = Infinity): ResultItem[] {
    if (this.sendAt < this.head) this.sendAt = this.head;
    const out: ResultItem[] = [];
    let bytes = 0;
    while (this.sendAt < this.items.length && out.length < max) {
      const item = this.items[this.sendAt]!;
      bytes += JSON.stringify(item).length;
      if (out.length > 0 && bytes > maxBytes) break;
      out.push(item);
      this.sendAt++;
    }
    return out;
  }

  /** Sent but not acknowledged. */
  get inFlight(): number {
    return Math.max(0, this.sendAt - this.head);
  }

  /** A new connection starts sending again from the oldest pending result. */
  rewind(): void {
    this.sendAt = this.head;
  }

  /** The central has recorded everything up to `seq` of this epoch. */
  ack(epoch: string, seq: number): void {
    if (epoch !== this.epoch || seq <= this.acked) return;
    this.acked = seq;
    while (this.head < this.items.length && this.items[this.head]!.seq <= seq) this.items[this.head++] = undefined;
    if (this.head > 4096 && this.head * 2 > this.items.length) this.compactMemory();
    // Most of the file is acknowledged: rewrite it with the pending results only.
    if (this.linesOnDisk > 10_000 && this.linesOnDisk > 4 * this.depth) this.rewrite();
    else this.saveState();
  }

  close(): void {
    this.persist();
    this.saveState();
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private trimToMax(): void {
    while (this.items.length - this.head > this.opts.max) {
      this.droppedThrough = this.items[this.head]!.seq;
      this.items[this.head++] = undefined;
      this.droppedCount++;
      this.stateDirty = true;
    }
  }

  private compactMemory(): void {
    this.sendAt = Math.max(0, this.sendAt - this.head);
    this.items = this.items.slice(this.head);
    this.head = 0;
  }

  private rewrite(): void {
    const pending = this.items.slice(this.head) as ResultItem[];
    const tmp = `${this.resultsFile}.tmp`;
    writeFileSync(tmp, pending.length ? `${pending.map((i) => JSON.stringify(i)).join('\n')}\n` : '');
    renameSync(tmp, this.resultsFile);
    this.linesOnDisk = pending.length;
    this.unwritten = [];
    this.saveState();
    if (this.fd !== undefined) {
      closeSync(this.fd);
      this.fd = openSync(this.resultsFile, 'a');
    }
  }

  private saveState(): void {
    const state: OutboxState = { epoch: this.epoch, acked: this.acked, dropped: this.droppedCount, droppedThrough: this.droppedThrough };
    this.stateDirty = false;
    const tmp = `${this.stateFile}.tmp`;
    writeFileSync(tmp, JSON.stringify(state));
    renameSync(tmp, this.stateFile);
  }
}

function readState(file: string): OutboxState {
  if (existsSync(file)) {
    try {
      const s = JSON.parse(readFileSync(file, 'utf8')) as Partial<OutboxState>;
      if (typeof s.epoch === 'string' && typeof s.acked === 'number') {
        return { epoch: s.epoch, acked: s.acked, dropped: s.dropped ?? 0, droppedThrough: s.droppedThrough ?? 0 };
      }
    } catch {
      // A torn state file: start a new epoch; the central treats it as a new outbox.
    }
  }
  return { epoch: randomBytes(8).toString('hex'), acked: 0, dropped: 0, droppedThrough: 0 };
}

function readResults(file: string): ResultItem[] {
  if (!existsSync(file)) return [];
  const out: ResultItem[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    try {
      out.push(JSON.parse(line) as ResultItem);
    } catch {
      // The last line of a crash may be cut short.
    }
  }
  return out;
}
