import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Turns the bench report into docs/performance.md: every `<!-- bench:NAME -->` …
 * `<!-- /bench:NAME -->` block there is replaced by the report's section of the bench
 * `NAME.bench` (its markdown as printed). Prose outside the blocks is kept, so the figures are
 * never typed by hand. A bench missing from the report (a subset run, a failure, a bench that
 * skipped itself) leaves its block as it was. Run by `npm run bench`; `node dist/bench/docs.js [report]` redoes it.
 */
const here = dirname(fileURLToPath(import.meta.url));
const ROOT = join(here, '..', '..');
export const REPORT = join(ROOT, 'bench-results.md');
export const DOC = join(ROOT, 'docs', 'performance.md');
export const README = join(ROOT, 'README.md');
/** Other pages with bench blocks of their own (their headlines stay out of the README's summary). */
export const PAGES = [join(ROOT, 'docs', 'high-availability.md')];

/** The report's sections by bench name, as run.ts writes them. */
export function sections(report: string): Map<string, string> {
  const out = new Map<string, string>();
  const re = /<!-- report:([\w-]+) -->\n([\s\S]*?)\n<!-- \/report:\1 -->/g;
  for (const m of report.matchAll(re)) out.set(m[1]!, m[2]!.trim());
  return out;
}

export function fill(doc: string, found: Map<string, string>, stamp: string): { doc: string; filled: string[] } {
  const filled: string[] = [];
  const next = doc.replace(/(<!-- bench:([\w-]+) -->\n)[\s\S]*?(\n<!-- \/bench:\2 -->)/g, (all, open: string, name: string, close: string) => {
    const section = found.get(name);
    // A bench that failed or skipped itself (nothing to compare with) leaves the last figures.
    if (section === undefined || section.startsWith('FAILED') || section.startsWith('SKIPPED')) return all;
    filled.push(name);
    // The report's ### headings become this page's ##; each block says when it was measured.
    return `${open}${section.replace(/^### /gm, '## ')}\n\n_${stamp}_${close}`;
  });
  return { doc: next, filled };
}

/**
 * The README's summary: every headline the benches left in the page's blocks (HTML comments,
 * see bench/lib/harness.ts), in page order, as one table. Each block keeps its own, so a
 * subset run refreshes only its rows.
 */
export function summary(doc: string): string {
  const rows = [...doc.matchAll(/<!-- headline: (\{.*\}) -->/g)].map((m) => JSON.parse(m[1]!) as Record<string, string>);
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [
    line(['measure', 'Vigil', 'baseline, same run', 'ratio', 'target']),
    line(['---', '---', '---', '---', '---']),
    ...rows.map((r) => line([r.measure!, r.figure!, r.baseline!, r.ratio!, r.target!])),
  ].join('\n');
}

export function generateDocs(reportPath = REPORT, docPath = DOC, readmePath = README, pages = PAGES): string[] {
  const report = readFileSync(reportPath, 'utf8');
  const stamp = /^# Vigil benchmarks \((.*)\)$/m.exec(report)?.[1] ?? 'unknown run';
  const { doc, filled } = fill(readFileSync(docPath, 'utf8'), sections(report), `Generated from the bench report of ${stamp}.`);
  writeFileSync(docPath, doc);
  for (const page of pages) {
    const other = fill(readFileSync(page, 'utf8'), sections(report), `Generated from the bench report of ${stamp}.`);
    if (other.filled.length === 0) continue;
    writeFileSync(page, other.doc);
    filled.push(...other.filled);
  }
  const readme = fill(readFileSync(readmePath, 'utf8'), new Map([['summary', summary(doc)]]), 'Generated from the bench blocks of docs/performance.md.');
  writeFileSync(readmePath, readme.doc);
  return filled;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const filled = generateDocs(process.argv[2]);
  process.stderr.write(`docs/performance.md: ${filled.length ? filled.join(', ') : 'nothing'} regenerated\n`);
}
