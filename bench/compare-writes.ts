/**
 * The group commit (Store.applyWrites) of two builds in one process, rounds taking turns, for a
 * change to the write path on a busy machine: `node dist/bench/compare-writes.js BASE CANDIDATE`,
 * each a checkout with its `dist/` built. Reports µs per probe result and the median of the
 * ratios of adjacent rounds (candidate / base), which machine load colours least.
 */
import type { Check } from '../src/domain/records.js';
import type { WriteRecord } from '../src/store/writes.js';
import type { StatsWorld } from '../test/helpers/stats-world.js';

const T = Date.UTC(2026, 6, 1, 9);
const BATCH = 250;
const ROUNDS = 120;

interface Side {
  world: StatsWorld;
  checks: Check[];
  at: number;
}

async function open(dir: string): Promise<Side> {
  const { openStatsWorld } = (await import(`${dir}/dist/test/helpers/stats-world.js`)) as typeof import('../test/helpers/stats-world.js');
  const world = openStatsWorld(T);
  const account = await world.accounts.createAccount('compare@example.com', 'pro');
  const principal = await world.principal((await world.accounts.createKey({ account: account.id, scopes: ['checks:write'] })).key);
  const checks: Check[] = [];
  for (let i = 0; i < 200; i++) {
    const { id } = await world.checks.create(principal, { url: `https://s${i}.example.com/`, checkFrequency: 1 });
    checks.push((await world.store.checks.byId(id))!);
  }
  return { world, checks, at: T };
}

/** Probe results as the recorder writes them: a history row, the check's runtime, a rollup sample. */
function results(side: Side, n: number): WriteRecord[] {
  const out: WriteRecord[] = [];
  for (let i = 0; i < n; i++) {
    const c = side.checks[i % side.checks.length]!;
    const at = (side.at += 7);
    const rt = 50 + (i % 100);
    out.push({
      kind: 'observation', checkId: c.id, checkSeq: c.seq, at,
      result: { checkSeq: c.seq, at, kind: 'probe', status: 'up', statusCode: 200, responseTime: rt, timing: null, error: null, region: 'local', snippet: null, meta: null },
      event: null, sample: { ok: true, responseTime: rt, timing: null }, sampleAt: at,
      runtime: { ...c, status: 'up', sync: { lastChecked: at, lastResponseTime: rt, lastStatusCode: 200 }, statusChanged: false },
      statusChange: null, verifyStatus: null, endMaintenance: null, domain: null, domainMemory: null,
    });
  }
  return out;
}

/** ns per record of one batch. */
function round(side: Side): number {
  const batch = results(side, BATCH);
  const started = process.hrtime.bigint();
  void side.world.store.applyWrites(batch, () => {
    throw new Error('a record failed');
  });
  return Number(process.hrtime.bigint() - started) / BATCH;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
const [baseDir, candidateDir] = process.argv.slice(2);
if (!baseDir || !candidateDir) throw new Error('usage: compare-writes BASE_CHECKOUT CANDIDATE_CHECKOUT');
const base = await open(baseDir);
const candidate = await open(candidateDir);
for (let i = 0; i < 5; i++) [round(base), round(candidate)];
const b: number[] = [];
const c: number[] = [];
const ratios: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  const [x, y] = i % 2 ? [round(candidate), round(base)].reverse() : [round(base), round(candidate)];
  b.push(x!);
  c.push(y!);
  ratios.push(y! / x!);
}
process.stdout.write(
  `applyWrites, ${BATCH} probe results a batch, ${ROUNDS} rounds each taking turns: base ${(median(b) / 1000).toFixed(2)} µs/result, ` +
    `candidate ${(median(c) / 1000).toFixed(2)} µs/result, median ratio ${median(ratios).toFixed(3)}\n`,
);
await base.world.close();
await candidate.world.close();
