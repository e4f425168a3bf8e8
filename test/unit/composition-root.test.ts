import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Features, Parts, type FeatureModule, type Root } from '../../src/features/feature.js';
import { JobRunner } from '../../src/util/job-runner.js';
import { systemClock } from '../../src/domain/clock.js';
import { createLogger } from '../../src/log.js';

/*
 * Issue 36 item 4: app.ts lists the feature modules and nothing else. It stays short, holds no
 * logic (no loops, no helper functions) and no late references (no `let`, no definite-assignment
 * `!:` fields filled in later), and every feature module in src/ is on its list.
 */

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const APP = readFileSync(join(REPO, 'src/app.ts'), 'utf8');
/** The source without comments and string contents, so prose cannot trip the checks. */
const CODE = APP.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '').replace(/'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`/g, "''");

test('app.ts is at most 200 lines', () => {
  const lines = APP.split('\n').length - (APP.endsWith('\n') ? 1 : 0);
  assert.ok(lines <= 200, `src/app.ts has ${lines} lines: move what grew into the feature's module`);
});

test('app.ts binds nothing late and holds no logic: no let or var, no field filled in later, no loop, no helper function', () => {
  for (const [pattern, what] of [
    [/\b(let|var)\s/, 'a variable assigned later (`let`/`var`)'],
    [/\w!:/, 'a definite-assignment field (`x!: T`) filled in later'],
    [/\b(for|while|do)\s*[({]/, 'a loop'],
    [/^\s*(async\s+)?function\s/m, 'a helper function (it belongs in a feature or below)'],
    [/\bas\s+\{/, 'a cast to reach a field a type does not declare'],
  ] as const) {
    const found = pattern.exec(CODE);
    assert.equal(found, null, `src/app.ts has ${what}: ${found?.[0]}`);
  }
});

test('every feature module in src/ is on the module list, and only app.ts imports one', () => {
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
  const features = files(join(REPO, 'src')).filter((f) => f.endsWith('-feature.ts')).map((f) => relative(join(REPO, 'src'), f));
  assert.ok(features.length >= 10, `feature modules found: ${features.join(', ')}`);
  const listed = /const FEATURES[^=]*=\s*\[([\s\S]*?)\];/.exec(CODE)?.[1]?.split(',').map((s) => s.trim()).filter(Boolean) ?? [];
  for (const file of features) {
    const imported = new RegExp(`import \\{ (\\w+) \\} from '\\./${file.replace(/\.ts$/, '\\.js')}';`).exec(APP);
    assert.ok(imported, `${file} is not imported by app.ts`);
    assert.ok(listed.includes(imported[1]!), `${imported[1]} (${file}) is not on the module list`);
  }
  assert.equal(listed.length, features.length, 'the module list names only feature modules');
});

function root(): Root {
  // Only what the features below read; the rest of a node is not needed to walk a module list.
  return { jobs: new JobRunner({ clock: systemClock, log: createLogger('silent') }) } as unknown as Root;
}

test('the walk builds in list order, registers routes and jobs, starts in order and stops upstream first', async () => {
  const seen: string[] = [];
  const module = (name: string, gives: boolean): FeatureModule => ({
    name,
    build(_root, parts) {
      seen.push(`build ${name}`);
      if (gives) parts.give('engine', {} as never);
      else parts.need('engine');
      return {
        routes: [{ method: 'GET', path: `/${name}` } as never],
        jobs: [{ name: `${name}-job`, scope: 'one-central', everyMs: 60_000, run: () => {} }],
        start: () => void seen.push(`start ${name}`),
        leave: () => void seen.push(`leave ${name}`),
        stop: () => void seen.push(`stop ${name}`),
      };
    },
  });
  const r = root();
  const features = await Features.build([module('engine', true), module('alerts', false)], r);
  await features.start(r.jobs);
  await features.leave();
  await features.stop();
  r.jobs.stop();
  assert.deepEqual(seen, ['build engine', 'build alerts', 'start engine', 'start alerts', 'leave engine', 'leave alerts', 'stop engine', 'stop alerts']);
  assert.deepEqual(r.jobs.readings().map((j) => j.name), ['engine-job', 'alerts-job']);
  await assert.rejects(Features.build([module('alerts', false), module('engine', true)], root()), /engine is needed before a feature gave it \(by alerts\)/);
});

test('a part needed before any feature gave it fails the start, naming the part; a part given twice too', () => {
  const parts = new Parts();
  assert.throws(() => parts.need('engine'), /engine is needed before a feature gave it/);
  parts.give('engine', {} as never);
  assert.throws(() => parts.give('engine', {} as never), /engine is given twice/);
});
