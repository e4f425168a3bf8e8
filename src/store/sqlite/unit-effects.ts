/**
 * The effects of the unit of work open now, one list per nesting level
 * (docs/architecture.md#transactions): a level that succeeds hands its effects to the level
 * around it, the outermost runs them once it has committed, and a level that throws (its
 * savepoint or transaction rolled back) drops them.
 */
export class UnitEffects {
  private readonly levels: Array<Array<() => void>> = [];

  constructor(private readonly failed: (err: unknown) => void) {}

  /** Runs one level of a unit of work: `work` opens, runs and commits (or releases) it. */
  run<T>(work: () => T): T {
    const level: Array<() => void> = [];
    this.levels.push(level);
    let result: T;
    try {
      result = work();
    } finally {
      this.levels.pop();
    }
    const outer = this.levels.at(-1);
    if (outer) outer.push(...level);
    else this.runAll(level);
    return result;
  }

  add(effect: () => void): void {
    const level = this.levels.at(-1);
    if (level) level.push(effect);
    else this.runAll([effect]);
  }

  /** The unit has committed: an effect that throws is reported, and the others still run. */
  private runAll(effects: Array<() => void>): void {
    for (const effect of effects) {
      try {
        effect();
      } catch (err) {
        this.failed(err);
      }
    }
  }
}
