import { minuteKey, Rollup, type RollupSample } from '../../domain/rollup.js';

/**
 * The open minute buckets of every check, the only rollups held in memory (hours and days are
 * built from written rows: rollups.ts). A check has one open minute almost always (a second only
 * when a late result reopens an older one), so a short list per check, not a Map.
 *
 * A bucket keeps its results as numbers, six per result, and becomes a Rollup (five histograms)
 * only past MAX_SAMPLES results: at 20 s a minute has three results, and three results as
 * numbers take ~150 bytes where a Rollup takes ~2 KB.
 */
const SLOTS = 6;
const MAX_SAMPLES = 8;

interface OpenBucket {
  key: number;
  /** Unique per opened bucket: a reader can tell a bucket written and reopened from the one it saw. */
  id: number;
  /** ok (1/0), response time, dns, connect, tls, ttfb per result; NaN for none. */
  samples: number[] | null;
  rollup: Rollup | null;
  next: OpenBucket | null;
}

export class OpenMinutes {
  private readonly open = new Map<number, OpenBucket>();
  private nextId = 1;
  /** Mirrors the persisted "open from": at or below every open bucket's start. */
  private mark: number | null;

  /**
   * @param write writes one closed bucket (inside the caller's transaction)
   * @param persistMark persists the "open from" mark (null: nothing open)
   */
  constructor(
    mark: number | null,
    private readonly write: (seq: number, key: number, rollup: Rollup) => void,
    private readonly persistMark: (at: number | null) => void,
  ) {
    this.mark = mark;
  }

  get openFrom(): number | null {
    return this.mark;
  }

  add(seq: number, at: number, sample: RollupSample): void {
    const b = this.bucket(seq, minuteKey(at));
    if (b.rollup !== null) {
      b.rollup.add(sample);
      return;
    }
    const t = sample.timing;
    const values = [sample.ok ? 1 : 0, sample.responseTime ?? Number.NaN, t?.dns ?? Number.NaN, t?.connect ?? Number.NaN, t?.tls ?? Number.NaN, t?.ttfb ?? Number.NaN];
    if (b.samples === null) b.samples = values;
    else if (b.samples.length < MAX_SAMPLES * SLOTS) b.samples = b.samples.concat(values);
    else {
      b.rollup = rollupOf(b.samples).add(sample);
      b.samples = null;
    }
  }

  /** The check's buffered minutes starting in [from, to), with their starts. */
  buffered(seq: number, from: number, to: number): Array<[number, Rollup]> {
    const out: Array<[number, Rollup]> = [];
    for (let b = this.open.get(seq) ?? null; b !== null; b = b.next) if (b.key >= from && b.key < to) out.push([b.key, contentOf(b)]);
    return out;
  }

  /** Ids of the check's open buckets: one missing from an earlier answer has been written since. */
  ids(seq: number): number[] {
    const out: number[] = [];
    for (let b = this.open.get(seq) ?? null; b !== null; b = b.next) out.push(b.id);
    return out;
  }

  /** Writes the buckets older than the minute holding `now` (all of them for +Infinity). */
  flushBefore(now: number): void {
    const cutoff = now === Number.POSITIVE_INFINITY ? now : minuteKey(now);
    let oldestLeft = Number.POSITIVE_INFINITY;
    for (const [seq, head] of this.open) {
      const kept = this.closeOlder(seq, head, cutoff);
      if (kept === null) this.open.delete(seq);
      else if (kept !== head) this.open.set(seq, kept);
      for (let b = kept; b !== null; b = b.next) oldestLeft = Math.min(oldestLeft, b.key);
    }
    const openFrom = oldestLeft === Number.POSITIVE_INFINITY ? null : oldestLeft;
    if (openFrom !== this.mark) this.setMark(openFrom);
  }

  /** The open bucket starting at `key`, opened (and the mark lowered) if needed. */
  private bucket(seq: number, key: number): OpenBucket {
    // One check's results arrive in start order, so an older bucket of it has closed.
    let head = this.open.get(seq) ?? null;
    const kept = this.closeOlder(seq, head, key);
    if (kept !== head) {
      head = kept;
      if (head === null) this.open.delete(seq);
      else this.open.set(seq, head);
    }
    for (let b = head; b !== null; b = b.next) if (b.key === key) return b;
    if (this.mark === null || key < this.mark) this.setMark(key);
    const opened: OpenBucket = { key, id: this.nextId++, samples: null, rollup: null, next: head };
    this.open.set(seq, opened);
    return opened;
  }

  /** Writes the check's buckets older than `cutoff`; returns the list of those left. */
  private closeOlder(seq: number, head: OpenBucket | null, cutoff: number): OpenBucket | null {
    let changed = false;
    for (let b = head; b !== null; b = b.next) {
      if (b.key < cutoff) {
        this.write(seq, b.key, contentOf(b));
        changed = true;
      }
    }
    if (!changed) return head;
    let kept: OpenBucket | null = null;
    for (let b = head; b !== null; b = b.next) if (b.key >= cutoff) kept = { ...b, next: kept };
    return kept;
  }

  private setMark(at: number | null): void {
    this.persistMark(at);
    this.mark = at;
  }
}

function contentOf(b: OpenBucket): Rollup {
  return b.rollup ?? rollupOf(b.samples ?? []);
}

function rollupOf(samples: readonly number[]): Rollup {
  const r = new Rollup();
  for (let i = 0; i < samples.length; i += SLOTS) {
    const rt = samples[i + 1] as number;
    const dns = samples[i + 2] as number;
    r.add({
      ok: samples[i] === 1,
      responseTime: Number.isNaN(rt) ? null : rt,
      timing: Number.isNaN(dns)
        ? null
        : { dns, connect: samples[i + 3] as number, tls: samples[i + 4] as number, ttfb: samples[i + 5] as number },
    });
  }
  return r;
}
