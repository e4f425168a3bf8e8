/**
 * Log-bucket histogram of response times (DESIGN 7, decisions 6).
 *
 * Bucket 0 holds [0, MIN_TRACKABLE_MS) and reads back as 0. Bucket k >= 1 holds
 * [MIN * γ^(k-1), MIN * γ^k) and reads back as 2·lo·hi/(lo+hi), the point whose relative
 * distance to both edges is (γ-1)/(γ+1) = RELATIVE_ACCURACY. Any value in the bucket is
 * therefore within that bound of what is read back, and since percentile() uses the same
 * nearest-rank definition as exactPercentile(), so is every percentile.
 * Values at or above MAX_TRACKABLE_MS share the last bucket.
 */

/** 0.95%: under the 1% the spec asks, with room for float rounding at bucket edges. */
export const RELATIVE_ACCURACY = 0.0095;
export const MIN_TRACKABLE_MS = 0.01;
export const MAX_TRACKABLE_MS = 600_000;

const GAMMA = (1 + RELATIVE_ACCURACY) / (1 - RELATIVE_ACCURACY);
const LOG_GAMMA = Math.log(GAMMA);

/** Bumped whenever the bucket layout or the byte layout changes. */
const FORMAT_VERSION = 1;

/** Index of the last bucket, which also takes everything above MAX_TRACKABLE_MS. */
export const MAX_BUCKET: number = Math.floor(Math.log(MAX_TRACKABLE_MS / MIN_TRACKABLE_MS) / LOG_GAMMA) + 1;

/** The bucket a value lands in. */
export function bucketIndex(value: number): number {
  if (value < MIN_TRACKABLE_MS) return 0;
  if (value >= MAX_TRACKABLE_MS) return MAX_BUCKET;
  return Math.floor(Math.log(value / MIN_TRACKABLE_MS) / LOG_GAMMA) + 1;
}

const REPRESENTATIVE = new Float64Array(MAX_BUCKET + 1);
for (let k = 1; k <= MAX_BUCKET; k++) {
  const lo = MIN_TRACKABLE_MS * GAMMA ** (k - 1);
  REPRESENTATIVE[k] = (2 * lo * GAMMA) / (1 + GAMMA);
}

/** What record() accepts: a finite number of milliseconds, >= 0. */
export function isRecordable(value: number): boolean {
  return value >= 0 && value !== Number.POSITIVE_INFINITY;
}

/** The value a bucket reads back as. */
export function bucketValue(index: number): number {
  return REPRESENTATIVE[index] ?? Number.NaN;
}

/**
 * Nearest rank: the smallest rank r (1-based) with r >= p% of n. p = 0 gives the minimum.
 * The epsilon keeps decimal p (99.9) from rounding one rank up through float error.
 */
export function nearestRank(p: number, n: number): number {
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be within 0..100, got ${p}`);
  const rank = Math.ceil((p * n) / 100 - 1e-9);
  return Math.min(n, Math.max(1, rank));
}

/** The exact nearest-rank percentile of ascending values; null when there are none. */
export function exactPercentile(sortedValues: ArrayLike<number>, p: number): number | null {
  const n = sortedValues.length;
  if (n === 0) return null;
  return sortedValues[nearestRank(p, n) - 1] as number;
}

export class Histogram {
  /** Ascending bucket indexes with a non-zero count; counts[i] belongs to indexes[i]. */
  private indexes: number[] = [];
  private counts: number[] = [];
  private total = 0;

  get count(): number {
    return this.total;
  }

  /** Number of non-empty buckets (what the serialized size grows with). */
  get bucketCount(): number {
    return this.indexes.length;
  }

  record(value: number, times = 1): this {
    if (!isRecordable(value)) throw new RangeError(`response time must be a finite number >= 0, got ${value}`);
    if (!(Number.isSafeInteger(times) && times > 0)) throw new RangeError(`bad count ${times}`);
    this.addToBucket(bucketIndex(value), times);
    return this;
  }

  /** Adds other's counts into this histogram. */
  merge(other: Histogram): this {
    if (other.total === 0) return this;
    if (this.total === 0) {
      this.indexes = other.indexes.slice();
      this.counts = other.counts.slice();
      this.total = other.total;
      return this;
    }
    const a = this.indexes, ac = this.counts, b = other.indexes, bc = other.counts;
    if (this.addInPlace(b, bc)) {
      this.total += other.total;
      return this;
    }
    const indexes: number[] = [];
    const counts: number[] = [];
    let i = 0, j = 0;
    while (i < a.length || j < b.length) {
      const ai = i < a.length ? (a[i] as number) : Infinity;
      const bj = j < b.length ? (b[j] as number) : Infinity;
      if (ai === bj) {
        indexes.push(ai);
        counts.push((ac[i++] as number) + (bc[j++] as number));
      } else if (ai < bj) {
        indexes.push(ai);
        counts.push(ac[i++] as number);
      } else {
        indexes.push(bj);
        counts.push(bc[j++] as number);
      }
    }
    this.indexes = indexes;
    this.counts = counts;
    this.total += other.total;
    return this;
  }

  /** Nearest-rank percentile, p in 0..100; null when nothing was recorded. */
  percentile(p: number): number | null {
    if (this.total === 0) {
      nearestRank(p, 1); // still reject a bad p
      return null;
    }
    const rank = nearestRank(p, this.total);
    let seen = 0;
    for (let i = 0; i < this.indexes.length; i++) {
      seen += this.counts[i] as number;
      if (seen >= rank) return bucketValue(this.indexes[i] as number);
    }
    return bucketValue(this.indexes[this.indexes.length - 1] as number);
  }

  /** The sum of what was recorded, each value read back as its bucket's (so within RELATIVE_ACCURACY). */
  approximateSum(): number {
    let sum = 0;
    for (let i = 0; i < this.indexes.length; i++) sum += bucketValue(this.indexes[i] as number) * (this.counts[i] as number);
    return sum;
  }

  /** [bucketIndex, count] pairs, ascending. */
  buckets(): Array<[number, number]> {
    return this.indexes.map((index, i) => [index, this.counts[i] as number]);
  }

  /**
   * Layout (version 1): byte version, varint n, then n pairs of varint index delta and varint
   * count. The first delta is the index itself; later deltas are >= 1. Varints are unsigned
   * LEB128 (7 bits a byte, low group first), so a typical rollup row is a few dozen bytes.
   */
  serialize(): Buffer {
    const n = this.indexes.length;
    let size = 1 + varintSize(n);
    let prev = 0;
    for (let i = 0; i < n; i++) {
      const index = this.indexes[i] as number;
      size += varintSize(index - prev) + varintSize(this.counts[i] as number);
      prev = index;
    }
    const out = Buffer.allocUnsafe(size);
    out[0] = FORMAT_VERSION;
    let pos = writeVarint(out, 1, n);
    prev = 0;
    for (let i = 0; i < n; i++) {
      const index = this.indexes[i] as number;
      pos = writeVarint(out, pos, index - prev);
      pos = writeVarint(out, pos, this.counts[i] as number);
      prev = index;
    }
    return out;
  }

  /** Reads serialize() output; an empty blob is an empty histogram. Throws on malformed input. */
  static deserialize(bytes: Uint8Array): Histogram {
    const h = new Histogram();
    decodeInto(bytes, (index, count) => {
      h.indexes.push(index);
      h.counts.push(count);
      h.total += count;
    });
    return h;
  }

  /** Merges many serialized histograms straight into one dense tally, skipping per-blob objects. */
  static mergeSerialized(blobs: Iterable<Uint8Array>): Histogram {
    const dense = new Float64Array(MAX_BUCKET + 1);
    for (const blob of blobs) {
      decodeInto(blob, (index, count) => {
        dense[index] = (dense[index] as number) + count;
      });
    }
    const h = new Histogram();
    for (let k = 0; k <= MAX_BUCKET; k++) {
      const c = dense[k] as number;
      if (c > 0) {
        h.indexes.push(k);
        h.counts.push(c);
        h.total += c;
      }
    }
    return h;
  }

  /**
   * Adds counts whose buckets this histogram already has, without allocating (a check pass,
   * then an add pass): the usual case once a long-range merge has seen the common buckets.
   * False, with nothing changed, when some bucket is new.
   */
  private addInPlace(b: readonly number[], bc: readonly number[]): boolean {
    const a = this.indexes;
    for (let pass = 0; pass < 2; pass++) {
      let i = 0;
      for (let j = 0; j < b.length; j++) {
        const index = b[j] as number;
        while (i < a.length && (a[i] as number) < index) i++;
        if (a[i] !== index) return false;
        if (pass === 1) this.counts[i] = (this.counts[i] as number) + (bc[j] as number);
      }
    }
    return true;
  }

  private addToBucket(index: number, times: number): void {
    const idx = this.indexes;
    let lo = 0, hi = idx.length;
    // Appends dominate when values climb, so test the end before searching.
    if (hi > 0 && (idx[hi - 1] as number) < index) lo = hi;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((idx[mid] as number) < index) lo = mid + 1;
      else hi = mid;
    }
    if (idx[lo] === index) this.counts[lo] = (this.counts[lo] as number) + times;
    else {
      this.indexes = insertAt(idx, lo, index);
      this.counts = insertAt(this.counts, lo, times);
    }
    this.total += times;
  }
}

/**
 * A copy of `a` with `value` at `at`, allocated to its exact length. Open rollups keep five
 * histograms per check per level, mostly of a few buckets; an array grown by push or splice
 * carries about 16 spare slots, which was most of an open rollup's memory (heap profile,
 * docs/performance.md). A new bucket is rare once a bucket's values have been seen.
 */
function insertAt(a: readonly number[], at: number, value: number): number[] {
  const out = new Array<number>(a.length + 1);
  for (let i = 0; i < at; i++) out[i] = a[i] as number;
  out[at] = value;
  for (let i = at; i < a.length; i++) out[i + 1] = a[i] as number;
  return out;
}

function decodeInto(bytes: Uint8Array, onBucket: (index: number, count: number) => void): void {
  if (bytes.length === 0) return;
  if (bytes[0] !== FORMAT_VERSION) throw new RangeError(`unknown histogram format ${bytes[0]}`);
  const reader = new VarintReader(bytes, 1);
  const n = reader.next();
  let index = 0;
  for (let i = 0; i < n; i++) {
    const delta = reader.next();
    if (i > 0 && delta === 0) throw new RangeError('histogram bucket indexes must ascend');
    index += delta;
    const count = reader.next();
    if (index > MAX_BUCKET || count === 0) throw new RangeError('malformed histogram bucket');
    onBucket(index, count);
  }
  if (reader.pos !== bytes.length) throw new RangeError('trailing bytes after histogram');
}

function varintSize(value: number): number {
  let size = 1;
  while (value >= 128) {
    value = Math.floor(value / 128);
    size++;
  }
  return size;
}

// Arithmetic rather than bitwise so counts past 2^31 survive.
function writeVarint(out: Uint8Array, pos: number, value: number): number {
  while (value >= 128) {
    out[pos++] = (value % 128) | 128;
    value = Math.floor(value / 128);
  }
  out[pos++] = value;
  return pos;
}

class VarintReader {
  constructor(
    private readonly bytes: Uint8Array,
    public pos: number,
  ) {}

  next(): number {
    const first = this.bytes[this.pos];
    if (first !== undefined && first < 128) {
      this.pos++;
      return first;
    }
    let value = 0;
    let scale = 1;
    for (let shift = 0; shift < 8; shift++) {
      if (this.pos >= this.bytes.length) throw new RangeError('truncated histogram');
      const byte = this.bytes[this.pos++] as number;
      value += (byte & 127) * scale;
      if (byte < 128) {
        if (!Number.isSafeInteger(value)) break;
        return value;
      }
      scale *= 128;
    }
    throw new RangeError('histogram varint too long');
  }
}
