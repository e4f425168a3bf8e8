/**
 * The known names closest to a mistyped one, for "did you mean …?": the same name in another
 * case, else in another place (`port` → `server.port`), else names within a couple of typos
 * (insertions, deletions, substitutions, swapped neighbours; case ignored). Empty when nothing
 * is close.
 */
export function suggestions(typed: string, known: readonly string[]): string[] {
  const lower = typed.toLowerCase();
  const sameName = known.filter((k) => k.toLowerCase() === lower);
  if (sameName.length > 0) return sameName;
  const leaf = lastPart(lower);
  const sameLeaf = known.filter((k) => lastPart(k.toLowerCase()) === leaf);
  if (sameLeaf.length > 0) return sameLeaf;
  // Two typos in a long name, one in a short one.
  const limit = Math.max(1, Math.min(2, Math.floor(leaf.length / 3)));
  let best = limit + 1;
  let found: string[] = [];
  for (const k of known) {
    const d = typoDistance(lower, k.toLowerCase());
    if (d < best) {
      best = d;
      found = [k];
    } else if (d === best && d <= limit) found.push(k);
  }
  return found;
}

const lastPart = (path: string): string => path.slice(path.lastIndexOf('.') + 1);

/** Optimal string alignment distance: Levenshtein plus a swap of two neighbours as one edit. */
function typoDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return Infinity;
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    rows.push([i]);
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        rows[0]!.push(j);
        continue;
      }
      const row = rows[i]!;
      const prev = rows[i - 1]!;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      row.push(d);
    }
  }
  return rows[a.length]![b.length]!;
}
