import { AsyncLocalStorage } from 'node:async_hooks';
import type { Db } from '../db.js';

/** A synchronous repository as the services see it: every method answers with a promise. */
export type Promised<R> = {
  [K in keyof R]: R[K] extends (...args: infer A) => infer T ? (...args: A) => Promise<Awaited<T>> : R[K];
};

/** One level of a unit of work: the outermost, or a nested one in a savepoint. */
interface Frame {
  unit: Unit;
  parent: Frame | null;
  /** Effects to run once the outermost unit commits (handed to the parent when this one succeeds). */
  effects: Array<() => void> | null;
}

interface Unit {
  /** The frame whose fn is running now: a nested unit may start only from it. */
  innermost: Frame | null;
  savepoints: number;
}

export interface UnitsOptions {
  /** After a rollback: caches that may hold what the unit read or wrote are dropped. */
  rolledBack: () => void;
  /** An effect that threw after its unit committed (the unit stays committed). */
  effectFailed: (err: unknown) => void;
  /** Runs inside the outermost unit right before its COMMIT (tests make a commit fail with it). */
  beforeCommit?: () => void;
}

/**
 * The asynchronous units of work over the one better-sqlite3 connection
 * (docs/architecture.md#transactions). better-sqlite3's own transactions cannot span an await,
 * so a unit issues `BEGIN IMMEDIATE` and `COMMIT` itself and is bound to the async context:
 * store calls made from inside its fn run at once, on the open transaction. Everything else
 * that reaches the connection while a unit is open (another unit, a batch of the writer, a
 * repository call of another request) waits in one FIFO line, the single writer's, and runs
 * once the unit has finished: two units never interleave on the connection, and nothing
 * outside a unit reads what it has not committed yet (on one connection it would).
 *
 * A unit's fn awaits store calls only, which resolve at once here, so a unit is open for a run
 * of the microtask queue: the line is almost always empty, and outside a unit a call costs one
 * comparison and a settled promise. The async context (AsyncLocalStorage) is enabled only while a unit is open or
 * waiting: on Node 20 an enabled context hooks every promise of the process.
 */
export class SqliteUnits {
  private readonly context = new AsyncLocalStorage<Frame>();
  private open: Unit | null = null;
  /** Calls and units waiting for the open unit to finish, in arrival order. */
  private readonly line: Array<() => void> = [];
  private unitsWaiting = 0;

  constructor(private readonly db: Db, private readonly options: UnitsOptions) {}

  /**
   * Runs a repository call now (its answer a settled promise), or once the open unit (not the
   * caller's) has finished.
   */
  call<T>(work: () => T): Promise<T> {
    return this.readsNow() ? settled(work) : this.later(work);
  }

  /**
   * Whether a read may run now, without waiting in the line: no unit is open, or the caller's
   * is. The reads that answer at once (CheckRepo.byIdNow, writtenElsewhere) ask it first.
   */
  readsNow(): boolean {
    return this.open === null || this.context.getStore()?.unit === this.open;
  }

  /**
   * The writer's batch (its own transaction): now when no unit is open, else in the line, even
   * from inside a unit (a batch never joins one).
   */
  exclusive<T>(work: () => T): Promise<T> {
    return this.open === null ? settled(work) : this.later(work);
  }

  /**
   * Wraps a repository's methods in `call`, the services' promise API (store.ts), but those that
   * touch no table (`except`).
   */
  gate<R extends object>(repo: R): Promised<R>;
  gate<R extends object, K extends keyof R>(repo: R, except: readonly K[]): Promised<Omit<R, K>> & Pick<R, K>;
  gate<R extends object>(repo: R, except: ReadonlyArray<keyof R> = []): unknown {
    const gated: Record<string, unknown> = {};
    for (const name of Object.keys(repo) as Array<keyof R & string>) {
      const value = repo[name];
      if (typeof value !== 'function' || except.includes(name)) {
        gated[name] = value;
        continue;
      }
      const method = value as (...a: unknown[]) => unknown;
      gated[name] = (...args: unknown[]) =>
        this.open === null ? settled(() => method.apply(repo, args)) : this.call(() => method.apply(repo, args));
    }
    return gated;
  }

  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    const frame = this.open === null ? undefined : this.context.getStore();
    if (frame !== undefined && frame.unit === this.open) return this.nested(frame, fn);
    if (this.open !== null || this.line.length > 0) await this.turn();
    else this.begin();
    const unit = this.open!;
    const root: Frame = { unit, parent: null, effects: null };
    unit.innermost = root;
    let result: T;
    try {
      result = await this.context.run(root, fn);
      this.options.beforeCommit?.();
      this.db.exec('COMMIT');
    } catch (err) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      this.options.rolledBack();
      this.finish();
      throw err;
    }
    this.finish();
    if (root.effects !== null) this.runEffects(root.effects);
    return result;
  }

  afterCommit(effect: () => void): void {
    const frame = this.open === null ? undefined : this.context.getStore();
    if (frame === undefined || frame.unit !== this.open) this.runEffects([effect]);
    else (frame.effects ??= []).push(effect);
  }

  private async nested<T>(parent: Frame, fn: () => Promise<T>): Promise<T> {
    const unit = parent.unit;
    if (unit.innermost !== parent) throw new Error('a nested unit of work started while another nested unit of the same unit runs: await the first');
    const name = `unit_${++unit.savepoints}`;
    this.db.exec(`SAVEPOINT ${name}`);
    const frame: Frame = { unit, parent, effects: null };
    unit.innermost = frame;
    try {
      const result = await this.context.run(frame, fn);
      this.db.exec(`RELEASE ${name}`);
      if (frame.effects !== null) (parent.effects ??= []).push(...frame.effects);
      return result;
    } catch (err) {
      this.db.exec(`ROLLBACK TO ${name}`);
      this.db.exec(`RELEASE ${name}`);
      // Records read or written inside the savepoint may have been cached.
      this.options.rolledBack();
      throw err;
    } finally {
      unit.innermost = parent;
    }
  }

  private later<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.line.push(() => {
        try {
          resolve(work());
        } catch (err) {
          reject(err);
        }
      });
    });
  }

  /** Waits in line; when its turn comes the unit is opened before anything after it can run. */
  private turn(): Promise<void> {
    this.unitsWaiting++;
    return new Promise<void>((resolve, reject) => {
      this.line.push(() => {
        this.unitsWaiting--;
        try {
          this.begin();
          resolve();
        } catch (err) {
          reject(err);
        }
      });
    });
  }

  private begin(): void {
    this.db.exec('BEGIN IMMEDIATE');
    this.open = { innermost: null, savepoints: 0 };
  }

  /** Lets the line through: calls run at once, until a unit opens (it lets the rest through when it finishes). */
  private finish(): void {
    this.open = null;
    while (this.open === null && this.line.length > 0) this.line.shift()!();
    // Nothing is bound to a context any more: stop hooking every promise (see the class comment).
    if (this.open === null && this.unitsWaiting === 0) this.context.disable();
  }

  private runEffects(effects: Array<() => void>): void {
    for (const effect of effects) {
      try {
        effect();
      } catch (err) {
        this.options.effectFailed(err);
      }
    }
  }
}

/** The answer of work done now, as the promise the services await (a throw is a rejection). */
function settled<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (err) {
    return Promise.reject(err);
  }
}
