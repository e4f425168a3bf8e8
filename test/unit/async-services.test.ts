import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Issue 36 item 3: the services stand on one asynchronous store seam. Every store call answers
 * with a promise, so nothing above the store tells a value from a promise: a branch on one is
 * a second code path that only one of the two stores takes.
 */
const SRC = fileURLToPath(new URL('../../../src', import.meta.url));
/** The service layer and the routes over it (people/ once the sign-in code lives there). */
const SERVICE_FOLDERS = ['core', 'api', 'status-pages', 'as-code', 'people'];
/** Anywhere in src/: the value-or-promise helpers of the old seam. */
const GONE_EVERYWHERE = [/\bwhenAnswered\b/, /\bAnswer<\w/];

function sources(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** `file:line: text` of every line matching one of the patterns. */
function hits(files: readonly string[], patterns: readonly RegExp[]): string[] {
  return files.flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, i) => (patterns.some((p) => p.test(line)) ? [`${file.slice(SRC.length + 1)}:${i + 1}: ${line.trim()}`] : [])),
  );
}

test('the service layer never tells a value from a promise: no instanceof Promise in core/, api/, status-pages/, as-code/, people/', () => {
  const files = SERVICE_FOLDERS.flatMap((folder) => sources(join(SRC, folder)));
  assert.ok(files.length > 50, `the folders were found (${files.length} files under ${SRC})`);
  assert.deepEqual(hits(files, [/instanceof Promise\b/]), []);
});

test('the value-or-promise type of the old store seam is gone from src/', () => {
  assert.equal(existsSync(join(SRC, 'store', 'answer.ts')), false, 'src/store/answer.ts');
  assert.deepEqual(hits(sources(SRC), GONE_EVERYWHERE), []);
});
