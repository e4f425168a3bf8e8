import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ThreadDispatcher } from '../src/engine/dispatcher.js';
import { Engine } from '../src/engine/engine.js';
import { systemClock } from '../src/domain/clock.js';
import { createLogger } from '../src/log.js';
import { BatchWriter } from '../src/store/batch-writer.js';
import { Recorder } from '../src/monitor/recorder.js';
import { LiveChecks } from '../src/monitor/live-checks.js';
import { openSqliteStore } from '../src/store/sqlite/index.js';
import { benchConfig, seedChecks } from './lib/seed.js';
import { fmt, runIfMain, table, tempDir } from './lib/harness.js';

/**
 * Issue 3 target: RSS per scheduled check at 100,000 checks (<= 2 KiB). Measured in a fresh
 * process (with --expose-gc): memory after opening the store, then after the engine has loaded
 * and scheduled every check, with SQLite's page cache released so only the engine's share counts.
 */
const CHECKS = Number(process.env.BENCH_MEMORY_CHECKS ?? 100_000);
const SELF = fileURLToPath(import.meta.url);

interface Measured {
  rssBytes: number;
  heapBytes: number;
  scheduled: number;
}

async function measure(dataDir: string): Promise<Measured> {
  const gc = (globalThis as { gc?: () => void }).gc!;
  const store = openSqliteStore(dataDir);
  const log = createLogger('warn');
  // The pool's threads are part of Vigil's footprint, but not of the per-check share.
  const dispatcher = new ThreadDispatcher();
  await new Promise((r) => setTimeout(r, 500));
  gc();
  const before = process.memoryUsage();
  const engine = new Engine({
    store, recorder: new Recorder({ writer: new BatchWriter(store, log) }), live: new LiveChecks(), dispatcher, clock: systemClock, config: benchConfig(dataDir), log, autoStart: false,
  });
  await engine.start();
  store.db.pragma('shrink_memory');
  gc();
  await new Promise((r) => setTimeout(r, 200));
  gc();
  const after = process.memoryUsage();
  const scheduled = engine.wheel.size;
  await dispatcher.close();
  await store.close();
  return { rssBytes: after.rss - before.rss, heapBytes: after.heapUsed - before.heapUsed, scheduled };
}

export async function runEngineMemoryBench(): Promise<string> {
  const dir = tempDir('memory');
  try {
    await seedChecks(dir.path, CHECKS, (i) => ({ url: `https://site-${i}.example.com/health`, checkFrequency: 5, requestHeaders: { 'user-agent-extra': 'x' } }));
    const out = execFileSync(process.execPath, ['--expose-gc', SELF, '--measure', dir.path], { encoding: 'utf8' });
    const m = JSON.parse(out) as Measured;
    return [
      `### Memory per scheduled check (${fmt(m.scheduled)} checks on the wheel)`,
      '',
      table(['measure', 'per check', 'target'], [
        ['RSS', `${fmt(m.rssBytes / m.scheduled)} bytes`, '<= 2,048 bytes'],
        ['JS heap', `${fmt(m.heapBytes / m.scheduled)} bytes`, '-'],
      ]),
    ].join('\n');
  } finally {
    dir.remove();
  }
}

if (process.argv[2] === '--measure') {
  measure(process.argv[3]!).then((m) => {
    process.stdout.write(JSON.stringify(m));
    process.exit(0);
  });
} else runIfMain(import.meta.url, runEngineMemoryBench);
