import { minuteKey, Rollup, type RollupSample } from '../../domain/rollup.js';

/**
 * The minutes of a guest store (openSqliteStore's `guest`): a process such as the CLI beside a
 * server that may be running on the same data directory. That server holds its open minutes in
 * memory and writes them when they close, so a guest buffers nothing: each result is merged
 * into its minute row at once, in the writer's transaction, with the server's latest persisted
 * hour and day marks (`refreshMarks`) saying which coarser rows are built and need it too.
 * Nothing stays open, so there is nothing to recover, flush or mark.
 */
export class DirectMinutes {
  readonly openFrom = null;

  constructor(
    private readonly write: (seq: number, key: number, rollup: Rollup) => void,
    private readonly refreshMarks: () => void,
  ) {}

  add(seq: number, at: number, sample: RollupSample): void {
    this.refreshMarks();
    this.write(seq, minuteKey(at), new Rollup().add(sample));
  }

  buffered(_seq: number, _from: number, _to: number): Array<[number, Rollup]> {
    return [];
  }

  ids(_seq: number): number[] {
    return [];
  }

  flushBefore(_now: number): void {}
}
