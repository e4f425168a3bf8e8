import type { Db } from '../db.js';
import type { CheckRowDb } from '../rows/checks.js';

/**
 * How far back `updated_at` is read again: another process stamps a change when it makes it
 * and commits it later (an import's transaction takes a while), so a change may arrive stamped
 * before one already seen.
 */
const OVERLAP_MS = 10_000;

/**
 * The checks another process (the CLI) created or changed on the same database, found the way
 * credential caches find its key changes (store index.ts): SQLite's data_version moves when
 * another connection commits, read at most once per turn of the event loop. Then the rows with
 * a newer sequence number or a recent `updated_at` (both indexed) are read, less the ones this
 * process wrote itself (`wrote`) or has reported already.
 */
export function checksWrittenElsewhere(db: Db): { wrote(id: string, updatedAt: number): void; poll(): CheckRowDb[] } {
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  // Two indexed reads: an OR of both scanned the table, and `+seq` keeps the second on updated_at.
  const newerStmt = db.prepare('SELECT * FROM checks WHERE seq > ? UNION ALL SELECT * FROM checks WHERE updated_at >= ? AND +seq <= ?');
  const newer = (seq: number, updated: number) => newerStmt.all(seq, updated, seq) as CheckRowDb[];
  let version = dataVersion.get() as number;
  let seqMark = (db.prepare('SELECT coalesce(max(seq), 0) FROM checks').pluck().get() as number);
  let updatedMark = (db.prepare('SELECT coalesce(max(updated_at), 0) FROM checks').pluck().get() as number);
  /** id -> updated_at of the rows known within the overlap. */
  const known = new Map<string, number>();
  for (const r of newer(seqMark, updatedMark - OVERLAP_MS)) known.set(r.id, r.updated_at);
  let polledThisTurn = false;
  const nextTurn = () => void (polledThisTurn = false);

  return {
    wrote(id, updatedAt) {
      known.set(id, updatedAt);
    },
    poll() {
      if (polledThisTurn) return [];
      polledThisTurn = true;
      setImmediate(nextTurn);
      const now = dataVersion.get() as number;
      if (now === version) return [];
      version = now;
      const out: CheckRowDb[] = [];
      for (const r of newer(seqMark, updatedMark - OVERLAP_MS)) {
        seqMark = Math.max(seqMark, r.seq);
        updatedMark = Math.max(updatedMark, r.updated_at);
        if (known.get(r.id) === r.updated_at) continue;
        known.set(r.id, r.updated_at);
        out.push(r);
      }
      for (const [id, at] of known) if (at < updatedMark - OVERLAP_MS) known.delete(id);
      return out;
    },
  };
}
