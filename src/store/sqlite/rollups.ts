import type { ProbeResult } from '../../domain/probe-types.js';
import { dayKey } from '../../domain/cover.js';
import { hourKey, minuteKey, PHASES, Rollup, type RollupSample } from '../../domain/rollup.js';
import type { Db } from '../db.js';
import { addBucket, sumTotals, type BucketSums, type RollupLevel, type RollupStore } from '../rollup-store.js';
import type { Interval } from '../../domain/ranges.js';
import { sampleOf, sqliteRollupRows, type RollupRows } from './rollup-rows.js';

/**
 * The rollup aggregator (DESIGN 7). Results are summed per check into in-memory minute, hour and
 * day buckets; a bucket is written when it closes (a result in a newer bucket of the same check,
 * flushOpen for buckets older than the current minute, hour or day, close at shutdown). Writing
 * into a row that exists merges, so a bucket reopened by a late result or a restart is fine.
 *
 * Exactness across a crash: the meta table keeps, per level, a start no open bucket is older
 * than ("open from"). It is lowered, in the writer's transaction, before a bucket that would
 * break it takes its first result, and raised only by a flush. So rows older than it are
 * complete; statistics read the next finer source from it on (raw history for minutes), and
 * opening the store after a crash rebuilds the rows from it on out of raw history.
 */
export function sqliteRollups(db: Db): RollupStore {
  const rows = sqliteRollupRows(db);
  const bucketRows = {
    minute: db.prepare(`SELECT at, ${BUCKET_COLUMNS} FROM rollup_minute WHERE check_seq = ? AND at >= ? AND at < ? ORDER BY at`),
    hour: db.prepare(`SELECT at, ${BUCKET_COLUMNS} FROM rollup_hour WHERE check_seq = ? AND at >= ? AND at < ? ORDER BY at`),
    day: db.prepare(`SELECT at, ${BUCKET_COLUMNS} FROM rollup_day WHERE check_seq = ? AND at >= ? AND at < ? ORDER BY at`),
  };
  const levels = [new OpenLevel('minute', rows), new OpenLevel('hour', rows), new OpenLevel('day', rows)];
  const byLevel: Record<RollupLevel, OpenLevel> = { minute: levels[0]!, hour: levels[1]!, day: levels[2]! };
  const flushBefore = (now: number) =>
    db.transaction(() => {
      for (const level of levels) level.flushBefore(now);
    })();
  const addSample = (seq: number, at: number, sample: RollupSample) => {
    for (const level of levels) level.add(seq, at, sample);
  };

  // Before any result can be buffered: rows from the persisted "open from" on may lack results a
  // crashed process held in memory. Minutes are rebuilt from raw history (a minute or two of it),
  // then hours from the now complete minute rows and days from the hour rows, so a restart never
  // rescans a day of raw history.
  const rebuild = (level: OpenLevel, refill: (seq: number, from: number) => void) => {
    const from = level.openFrom;
    if (from === null) return;
    rows.deleteFrom(level.level, from);
    for (const seq of rows.checkSeqs()) refill(seq, from);
    level.flushBefore(Number.POSITIVE_INFINITY);
  };
  const [minute, hour, day] = levels as [OpenLevel, OpenLevel, OpenLevel];
  db.transaction(() => {
    rebuild(minute, (seq, from) => {
      for (const [at, sample] of rows.rawSamplesSince(seq, from)) minute.add(seq, at, sample);
    });
    rebuild(hour, (seq, from) => {
      for (const [at, row] of rows.rowsSince('minute', seq, from)) hour.merge(seq, at, Rollup.fromRow(row));
    });
    rebuild(day, (seq, from) => {
      for (const [at, row] of rows.rowsSince('hour', seq, from)) day.merge(seq, at, Rollup.fromRow(row));
    });
  })();

  return {
    add: (seq: number, result: ProbeResult) => addSample(seq, result.startedAt, sampleOf(result.ok, result.responseTime, result.timing)),
    addSample: (seq, at, sample) => addSample(seq, at, sampleOf(sample.ok, sample.responseTime, sample.timing)),
    flushOpen: (now) => flushBefore(now),
    close: () => flushBefore(Number.POSITIVE_INFINITY),
    openBuckets: () => rows.openBuckets(),
    horizons: (seq) => rows.horizons(seq),
    rows: (seq, level, intervals) => rows.rows(seq, level, intervals),
    // A bucket's results are its row plus what is still buffered for it: together always
    // complete, so a busy current minute is read from memory, not from raw history.
    rollup(seq, level, intervals) {
      const rollup = rows.rollup(seq, level, intervals);
      for (const buffered of byLevel[level].buffered(seq, intervals)) rollup.merge(buffered);
      return rollup;
    },
    totals: (seq, level, intervals) => sumTotals([rows.totals(seq, level, intervals), ...byLevel[level].buffered(seq, intervals)]),
    bucketTotals(seq, level, from, to) {
      const out = new Map(rows.bucketTotals(seq, level, from, to));
      for (const [key, buffered] of byLevel[level].bufferedByStart(seq, from, to)) {
        out.set(key, sumTotals([out.get(key) ?? sumTotals([]), buffered]));
      }
      return [...out].sort((a, b) => a[0] - b[0]);
    },
    rawSamples: (seq, intervals) => rows.rawSamples(seq, intervals),
    buckets(seq, level, from, to, withBuffered = true) {
      const out = new Map<number, BucketSums>();
      for (const row of bucketRows[level].iterate(seq, from, to) as Iterable<BucketSums>) out.set(row.at, row);
      if (!withBuffered) return [...out.values()];
      for (const [at, rollup] of byLevel[level].bufferedByStart(seq, from, to)) {
        const sums = bucketSums(at, rollup);
        const row = out.get(at);
        out.set(at, row ? addBucket(row, sums) : sums);
      }
      return [...out.values()].sort((a, b) => a.at - b.at);
    },
    bufferedBucket(seq, level, at) {
      const rollup = byLevel[level].bufferedByStart(seq, at, at + 1)[0]?.[1];
      return rollup ? bucketSums(at, rollup) : null;
    },
  };
}

const BUCKET_COLUMNS = `total, success, rt_count AS rtCount, rt_sum AS rtSum, ${PHASES.map((p) => `${p}_count AS ${p}Count, ${p}_sum AS ${p}Sum`).join(', ')}`;

function bucketSums(at: number, r: Rollup): BucketSums {
  const { dns, connect, tls, ttfb } = r.phases;
  return {
    at, total: r.total, success: r.success, rtCount: r.rtCount, rtSum: r.rtSum,
    dnsCount: dns.count, dnsSum: dns.sum, connectCount: connect.count, connectSum: connect.sum,
    tlsCount: tls.count, tlsSum: tls.sum, ttfbCount: ttfb.count, ttfbSum: ttfb.sum,
  };
}


const KEY_OF: Record<RollupLevel, (t: number) => number> = { minute: minuteKey, hour: hourKey, day: dayKey };

/**
 * One open bucket of a check. A check has one open bucket per level almost always (a second only
 * when a late result reopens an older one), so a short list, not a Map per check: at tens of
 * thousands of checks, three Maps each were a tenth of the open rollups' memory.
 */
interface OpenBucket {
  key: number;
  rollup: Rollup;
  next: OpenBucket | null;
}

/** The open buckets of one level, per check and bucket start. */
class OpenLevel {
  private readonly open = new Map<number, OpenBucket>();
  private readonly keyOf: (t: number) => number;
  /** Mirrors the persisted "open from": at or below every open bucket's start. */
  private mark: number | null;

  constructor(
    readonly level: RollupLevel,
    private readonly rows: RollupRows,
  ) {
    this.keyOf = KEY_OF[level];
    const persisted = rows.openBuckets();
    this.mark = level === 'minute' ? persisted.minuteFrom : level === 'hour' ? persisted.hourFrom : persisted.dayFrom;
  }

  get openFrom(): number | null {
    return this.mark;
  }

  add(seq: number, at: number, sample: RollupSample): void {
    this.bucket(seq, at).add(sample);
  }

  /** Adds a finer level's bucket (a rebuild after a crash). */
  merge(seq: number, at: number, rollup: Rollup): void {
    this.bucket(seq, at).merge(rollup);
  }

  /** The open bucket holding `at`, opened (and the mark lowered) if needed. */
  private bucket(seq: number, at: number): Rollup {
    const key = this.keyOf(at);
    // One check's results arrive in start order, so an older bucket of it has closed.
    let head = this.open.get(seq) ?? null;
    const kept = this.closeOlder(seq, head, key);
    if (kept !== head) {
      head = kept;
      if (head === null) this.open.delete(seq);
      else this.open.set(seq, head);
    }
    for (let b = head; b !== null; b = b.next) if (b.key === key) return b.rollup;
    if (this.mark === null || key < this.mark) this.setMark(key);
    const opened: OpenBucket = { key, rollup: new Rollup(), next: head };
    this.open.set(seq, opened);
    return opened.rollup;
  }

  /** Writes the check's buckets older than `cutoff`; returns the list of those left. */
  private closeOlder(seq: number, head: OpenBucket | null, cutoff: number): OpenBucket | null {
    let kept: OpenBucket | null = null;
    let changed = false;
    for (let b = head; b !== null; b = b.next) {
      if (b.key < cutoff) {
        this.write(seq, b.key, b.rollup);
        changed = true;
      }
    }
    if (!changed) return head;
    for (let b = head; b !== null; b = b.next) if (b.key >= cutoff) kept = { key: b.key, rollup: b.rollup, next: kept };
    return kept;
  }

  /** The check's buffered buckets whose start lies in one of the half-open intervals. */
  buffered(seq: number, intervals: readonly Interval[]): Rollup[] {
    const out: Rollup[] = [];
    for (let b = this.open.get(seq) ?? null; b !== null; b = b.next) {
      const key = b.key;
      if (intervals.some(([start, end]) => key >= start && key < end)) out.push(b.rollup);
    }
    return out;
  }

  /** The check's buffered buckets starting in [from, to), with their starts. */
  bufferedByStart(seq: number, from: number, to: number): Array<[number, Rollup]> {
    const out: Array<[number, Rollup]> = [];
    for (let b = this.open.get(seq) ?? null; b !== null; b = b.next) if (b.key >= from && b.key < to) out.push([b.key, b.rollup]);
    return out;
  }

  /** Writes the buckets older than the one holding `now` (all of them for +Infinity). */
  flushBefore(now: number): void {
    const cutoff = now === Number.POSITIVE_INFINITY ? now : this.keyOf(now);
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

  private write(seq: number, key: number, rollup: Rollup): void {
    const existing = this.rows.get(this.level, seq, key);
    const merged = existing === undefined ? rollup : Rollup.fromRow(existing).merge(rollup);
    this.rows.put(this.level, seq, key, merged.toRow());
  }

  private setMark(at: number | null): void {
    this.rows.setOpenFrom(this.level, at);
    this.mark = at;
  }
}
