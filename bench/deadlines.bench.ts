import { Bench } from 'tinybench';
import { ManualClock } from '../src/domain/clock.js';
import { TimingWheel } from '../src/engine/timing-wheel.js';
import { fmt, runIfMain, table } from './lib/harness.js';

/**
 * Issue 5: the wheel's cost at 100,000 heartbeat deadlines re-armed by a steady ping stream,
 * against the obvious baseline of one timer per check (clearTimeout + setTimeout per ping).
 */
const CHECKS = 100_000;
const INTERVAL = 5 * 60_000;

export async function runDeadlineBench(): Promise<string> {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const wheel = new TimingWheel({ clock, tickMs: 100 });
  const ids = Array.from({ length: CHECKS }, (_, i) => `deadline:chk_${i.toString(16).padStart(20, '0')}`);
  for (const id of ids) wheel.schedule(id, clock.now() + Math.floor(Math.random() * INTERVAL));
  const timers = new Map<string, NodeJS.Timeout>();
  for (const id of ids) timers.set(id, setTimeout(() => {}, INTERVAL + Math.random() * INTERVAL));

  let i = 0;
  let fired = 0;
  const bench = new Bench({ time: 1500 });
  bench
    .add('wheel: re-arm a deadline (ping)', () => {
      clock.advance(1);
      wheel.schedule(ids[i++ % CHECKS]!, clock.now() + INTERVAL);
    })
    .add('wheel: tick of 100 ms with due deadlines', () => {
      clock.advance(100);
      fired += wheel.advance(clock.now(), (id) => wheel.schedule(id, clock.now() + INTERVAL));
    })
    .add('baseline: clearTimeout + setTimeout per ping', () => {
      const id = ids[i++ % CHECKS]!;
      clearTimeout(timers.get(id));
      timers.set(id, setTimeout(() => {}, INTERVAL));
    });
  await bench.run();
  for (const t of timers.values()) clearTimeout(t);

  const ns = (name: string) => {
    const task = bench.tasks.find((t) => t.name === name)!;
    const r = task.result as unknown as { latency?: { mean: number }; mean?: number };
    return (r.latency?.mean ?? r.mean ?? NaN) * 1e6;
  };
  const rearm = ns('wheel: re-arm a deadline (ping)');
  const base = ns('baseline: clearTimeout + setTimeout per ping');
  return [
    `### Heartbeat deadlines (${fmt(CHECKS)} deadlines on the wheel, tinybench)`,
    '',
    table(['operation', 'ns/op', 'vs baseline'], [
      ['wheel: re-arm a deadline (ping)', fmt(rearm), `${fmt(base / rearm, 1)}x faster`],
      ['wheel: 100 ms tick, firing and re-arming what is due', fmt(ns('wheel: tick of 100 ms with due deadlines')), '-'],
      ['baseline: clearTimeout + setTimeout per ping', fmt(base), '1x'],
    ]),
    '',
    `Deadlines fired during the run: ${fmt(fired)}.`,
  ].join('\n');
}

runIfMain(import.meta.url, runDeadlineBench);
