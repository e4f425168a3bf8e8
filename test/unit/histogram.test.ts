import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Histogram,
  MAX_BUCKET,
  MAX_TRACKABLE_MS,
  MIN_TRACKABLE_MS,
  RELATIVE_ACCURACY,
  bucketIndex,
  bucketValue,
  exactPercentile,
  nearestRank,
} from '../../src/domain/histogram.js';
import { prng } from '../helpers/prng.js';


function gaussian(rand: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}

type Generator = (rand: () => number) => number[];
const sample = (n: number, draw: () => number): number[] => Array.from({ length: n }, draw);
const GENERATORS: Record<string, Generator> = {
  uniform: (r) => sample(1 + Math.floor(r() * 3000), () => r() * 2000),
  logNormal: (r) => sample(1 + Math.floor(r() * 3000), () => Math.exp(Math.log(180) + gaussian(r))),
  outliers: (r) => sample(1 + Math.floor(r() * 3000), () => (r() < 0.03 ? 5000 + r() * 55000 : 40 + r() * 20)),
  tiny: (r) => sample(1 + Math.floor(r() * 3), () => r() * 500),
  subMillisecond: (r) => sample(1 + Math.floor(r() * 200), () => (r() < 0.1 ? 0 : r() * r() * 2)),
  integerMs: (r) => sample(1 + Math.floor(r() * 1000), () => Math.floor(r() * 300)),
  nearCap: (r) => sample(1 + Math.floor(r() * 100), () => MAX_TRACKABLE_MS * (0.5 + r() * 0.5)),
};

const PERCENTILES = [0, 1, 50, 90, 95, 99, 99.9, 100];

function relativeError(estimate: number, exact: number): number {
  return exact === 0 ? Math.abs(estimate) : Math.abs(estimate - exact) / exact;
}

function histogramOf(values: readonly number[]): Histogram {
  const h = new Histogram();
  for (const v of values) h.record(v);
  return h;
}

test('percentiles stay within 1% of the exact nearest-rank percentile', (t) => {
  let worst = 0;
  let checked = 0;
  for (const [name, generate] of Object.entries(GENERATORS)) {
    const rand = prng(name.length * 7919 + 17);
    for (let round = 0; round < 60; round++) {
      const values = generate(rand);
      const sorted = Float64Array.from(values).sort();
      const h = histogramOf(values);
      assert.equal(h.count, values.length);
      for (const p of PERCENTILES) {
        const exact = exactPercentile(sorted, p) as number;
        const estimate = h.percentile(p) as number;
        if (exact < MIN_TRACKABLE_MS) {
          assert.equal(estimate, 0, `${name} p${p}: sub-trackable reads back as 0`);
          continue;
        }
        const err = relativeError(estimate, exact);
        worst = Math.max(worst, err);
        checked++;
        assert.ok(err <= 0.01, `${name} p${p}: ${estimate} vs exact ${exact} (${(err * 100).toFixed(3)}%)`);
      }
    }
  }
  t.diagnostic(`worst relative error ${(worst * 100).toFixed(4)}% over ${checked} percentiles`);
});

test('every bucket edge reads back within the accuracy bound', () => {
  for (let k = 1; k < MAX_BUCKET; k++) {
    const value = bucketValue(k);
    for (const edge of [value / (1 + RELATIVE_ACCURACY), value / (1 - RELATIVE_ACCURACY)]) {
      for (const v of [edge * (1 - 1e-12), edge, edge * (1 + 1e-12)]) {
        if (v < MIN_TRACKABLE_MS || v >= MAX_TRACKABLE_MS) continue;
        assert.ok(relativeError(bucketValue(bucketIndex(v)), v) <= RELATIVE_ACCURACY + 1e-9, `value ${v}`);
      }
    }
  }
});

test('zero, sub-trackable and over-cap values', () => {
  const h = new Histogram().record(0).record(MIN_TRACKABLE_MS / 2).record(MAX_TRACKABLE_MS * 10);
  assert.deepEqual(h.buckets(), [
    [0, 2],
    [MAX_BUCKET, 1],
  ]);
  assert.equal(h.percentile(50), 0);
  assert.ok(relativeError(h.percentile(100) as number, MAX_TRACKABLE_MS) <= 0.01);
  assert.throws(() => h.record(-1), RangeError);
  assert.throws(() => h.record(Number.NaN), RangeError);
  assert.throws(() => h.record(Number.POSITIVE_INFINITY), RangeError);
});

test('empty histogram and bad percentiles', () => {
  const h = new Histogram();
  assert.equal(h.count, 0);
  assert.equal(h.percentile(50), null);
  assert.equal(exactPercentile([], 50), null);
  assert.throws(() => h.percentile(101), RangeError);
  assert.throws(() => h.percentile(-0.1), RangeError);
  assert.throws(() => h.percentile(Number.NaN), RangeError);
});

test('nearest rank definition', () => {
  assert.equal(nearestRank(0, 10), 1);
  assert.equal(nearestRank(50, 10), 5);
  assert.equal(nearestRank(51, 10), 6);
  assert.equal(nearestRank(100, 10), 10);
  assert.equal(nearestRank(99.9, 1000), 999);
  assert.equal(nearestRank(29, 100), 29);
  assert.equal(exactPercentile([1, 2, 3, 4], 50), 2);
  assert.equal(exactPercentile([1, 2, 3, 4], 75), 3);
  assert.equal(exactPercentile([7], 99), 7);
});

test('merge(a, b) equals recording both', () => {
  const rand = prng(42);
  for (let round = 0; round < 100; round++) {
    const a = Array.from({ length: Math.floor(rand() * 300) }, () => Math.exp(gaussian(rand) * 2 + 4));
    const b = Array.from({ length: Math.floor(rand() * 300) }, () => rand() * 900);
    const merged = histogramOf(a).merge(histogramOf(b));
    const both = histogramOf([...a, ...b]);
    assert.deepEqual(merged.buckets(), both.buckets());
    assert.equal(merged.count, both.count);
    assert.deepEqual(merged.serialize(), both.serialize());
    const viaBlobs = Histogram.mergeSerialized([histogramOf(a).serialize(), histogramOf(b).serialize()]);
    assert.deepEqual(viaBlobs.buckets(), both.buckets());
  }
});

test('merge does not alias the source', () => {
  const a = new Histogram().record(5);
  const b = new Histogram().merge(a);
  b.record(5);
  assert.equal(a.count, 1);
  assert.deepEqual(a.buckets(), [[bucketIndex(5), 1]]);
  const wide = histogramOf([1, 2, 3]);
  const narrow = histogramOf([2]);
  wide.merge(narrow).merge(narrow);
  assert.deepEqual(wide.buckets(), [[bucketIndex(1), 1], [bucketIndex(2), 3], [bucketIndex(3), 1]]);
  assert.equal(wide.count, 5);
  assert.deepEqual(narrow.buckets(), [[bucketIndex(2), 1]]);
});

test('serialize -> deserialize round-trips exactly', () => {
  const rand = prng(7);
  for (let round = 0; round < 200; round++) {
    const h = new Histogram();
    const n = Math.floor(rand() * 500);
    for (let i = 0; i < n; i++) {
      h.record(rand() < 0.05 ? 0 : Math.exp(rand() * 13) / 100, 1 + Math.floor(rand() * 3));
    }
    if (rand() < 0.1) h.record(1, 2 ** 40); // counts past 2^31 keep their value
    const bytes = h.serialize();
    const back = Histogram.deserialize(bytes);
    assert.deepEqual(back.buckets(), h.buckets());
    assert.equal(back.count, h.count);
    assert.deepEqual(back.serialize(), bytes);
    for (const p of PERCENTILES) assert.equal(back.percentile(p), h.percentile(p));
  }
});

test('serialized form is compact and versioned', () => {
  assert.deepEqual([...new Histogram().serialize()], [1, 0]);
  assert.equal(Histogram.deserialize(new Uint8Array(0)).count, 0);
  const h = new Histogram().record(0).record(1).record(1).record(3);
  const bytes = h.serialize();
  const i1 = bucketIndex(1), i3 = bucketIndex(3);
  assert.ok(i1 >= 128 && i3 - i1 < 128);
  assert.deepEqual([...bytes], [1, 3, 0, 1, (i1 & 127) | 128, i1 >> 7, 2, i3 - i1, 1]);
  // A minute of steady probes: a handful of buckets, a few bytes.
  const minute = new Histogram();
  for (let i = 0; i < 60; i++) minute.record(120 + (i % 7));
  assert.ok(minute.serialize().length < 24, `size ${minute.serialize().length}`);
});

test('malformed blobs are refused', () => {
  const good = new Histogram().record(3).record(40).serialize();
  assert.throws(() => Histogram.deserialize(Uint8Array.from([2, 0])), /format/);
  assert.throws(() => Histogram.deserialize(good.subarray(0, good.length - 1)), /truncated/);
  assert.throws(() => Histogram.deserialize(Uint8Array.from([...good, 0])), /trailing/);
  assert.throws(() => Histogram.deserialize(Uint8Array.from([1, 2, 5, 1, 0, 1])), /ascend/);
  assert.throws(() => Histogram.deserialize(Uint8Array.from([1, 1, 5, 0])), /malformed/);
  assert.throws(() => Histogram.deserialize(Uint8Array.from([1, 1, 0xff, 0x7f, 1])), /malformed/);
  assert.throws(() => Histogram.mergeSerialized([good, Uint8Array.from([9])]), /format/);
});

test('mergeSerialized of many hourly blobs equals recording everything', () => {
  const rand = prng(99);
  const all = new Histogram();
  const blobs: Uint8Array[] = [];
  for (let hour = 0; hour < 24 * 10; hour++) {
    const h = new Histogram();
    for (let i = 0; i < 60; i++) {
      const v = Math.exp(Math.log(150) + gaussian(rand) * 0.4);
      h.record(v);
      all.record(v);
    }
    blobs.push(h.serialize());
  }
  blobs.push(new Uint8Array(0));
  const merged = Histogram.mergeSerialized(blobs);
  assert.deepEqual(merged.buckets(), all.buckets());
  assert.equal(merged.count, 24 * 10 * 60);
});
