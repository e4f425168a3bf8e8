import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import pg from 'pg';
import { StartupError } from '../../util/startup-error.js';
import { migrateSchema } from './schema.js';

/**
 * The connection pool and units of work of the PostgreSQL store. A unit of work holds one pooled
 * client from BEGIN to COMMIT, bound to the async context (AsyncLocalStorage): every query made
 * in the unit's async chain runs on that client, without a handle passed around. A nested unit
 * is a savepoint. Effects (afterCommit) wait for the outermost commit. The async context is
 * enabled only while a unit is open (as in store/sqlite/units.ts): on Node 20 an enabled
 * AsyncLocalStorage hooks every promise of the process, the ping path's included.
 */

/** int8 and numeric as JavaScript numbers: epoch milliseconds, counts and sums all fit in 2^53. */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20 || oid === 1700) return (v: string) => Number(v);
    if (oid === 1016) {
      const strings = (pg.types.getTypeParser as (oid: number, format?: string) => unknown)(oid, format) as (v: string) => Array<string | null>;
      return (v: string) => strings(v).map((x) => (x === null ? null : Number(x)));
    }
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

export type Row = Record<string, unknown>;

interface Unit {
  client: pg.PoolClient;
  /** One list of effects per nesting level; the outermost runs after COMMIT. */
  levels: Array<Array<() => void>>;
  /** Set once the unit has committed or rolled back: a callback that outlived it uses the pool. */
  closed: boolean;
  savepoints: number;
}

/** The COMMIT of a unit of work failed: nothing of it is durable (the database, not a record, failed). */
export class CommitFailed extends Error {
  constructor(readonly reason: unknown) {
    super((reason as Error).message);
  }
}

/** A savepoint could not be rolled back: the whole unit of work is lost (the connection, most likely). */
export class BrokenUnit extends Error {
  constructor(readonly reason: unknown) {
    super(`the unit of work is broken: ${(reason as Error).message}`);
  }
}

/** How long taking a connection may wait (connect, or a free one in the pool) before it fails. */
const CONNECT_TIMEOUT_MS = 10_000;
/**
 * A transaction left open by a client that stopped (a paused process, a machine gone without
 * closing its sockets) is ended by PostgreSQL after this long, so the row locks it held (a
 * lease renewal's, a batch's fence) cannot keep the other centrals from taking its checks over
 * (within cluster.leaseMs + 5 s). A unit of work does store work only: its client is never idle
 * inside it for anywhere near this long.
 */
const IDLE_IN_TRANSACTION_MS = 5_000;

/** A well-known key for pg_advisory_lock: one schema migration at a time across processes. */
const MIGRATE_LOCK = '7320537162440011776';

export class PgDb {
  readonly pool: pg.Pool;
  private readonly units = new AsyncLocalStorage<Unit>();
  /** Outermost units open now (several may be, each on its own client); at 0 the context is disabled. */
  private unitsOpen = 0;

  constructor(url: string, options: { max?: number; effectFailed?: (err: unknown) => void } = {}) {
    this.pool = new pg.Pool({
      connectionString: url, max: options.max ?? 20, types, application_name: 'vigil',
      // A database that cannot be reached fails a request (503) within seconds instead of holding it.
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true, keepAliveInitialDelayMillis: 5_000,
      idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
    });
    // An idle client whose server went away must not take the process down with it.
    this.pool.on('error', () => undefined);
    this.effectFailed = options.effectFailed ?? ((err) => queueMicrotask(() => { throw err; }));
  }

  private readonly effectFailed: (err: unknown) => void;

  private commitFails = false;

  /** Tests: the next outermost COMMIT fails (the unit rolls back), as a database that cannot write would. */
  failNextCommit(): void {
    this.commitFails = true;
  }

  /** Whether the next commit is set to fail: a batch then takes the transaction path, where it does. */
  get commitFailureArmed(): boolean {
    return this.commitFails;
  }

  /** Whether a unit of work is open in the calling async context. */
  inUnit(): boolean {
    if (this.unitsOpen === 0) return false;
    const unit = this.units.getStore();
    return unit !== undefined && !unit.closed;
  }

  /** Runs one statement: on the unit's client inside a unit of work, else on any pooled client. */
  async query<T extends Row = Row>(text: string, params: readonly unknown[] = [], name?: string): Promise<T[]> {
    return (await this.send<T>(text, params, name)).rows;
  }

  /**
   * Statements with parameters are prepared once per connection (named by a hash of their text,
   * when not named by the caller): the hot ones are parsed and planned once.
   */
  private send<T extends Row>(text: string, params: readonly unknown[], name: string | undefined): Promise<pg.QueryResult<T>> {
    const unit = this.unitsOpen === 0 ? undefined : this.units.getStore();
    const on = unit && !unit.closed ? unit.client : this.pool;
    const config: pg.QueryConfig = { text, values: params as unknown[] };
    if (name) config.name = name;
    else if (params.length > 0) config.name = this.nameOf(text);
    return on.query<T>(config);
  }

  private readonly names = new Map<string, string>();
  private nameOf(text: string): string {
    let name = this.names.get(text);
    if (!name) {
      name = `v_${createHash('sha1').update(text).digest('base64url').slice(0, 20)}`;
      if (this.names.size < 2000) this.names.set(text, name);
    }
    return name;
  }

  async one<T extends Row = Row>(text: string, params: readonly unknown[] = [], name?: string): Promise<T | null> {
    return (await this.query<T>(text, params, name))[0] ?? null;
  }

  /** A statement's affected row count. */
  async run(text: string, params: readonly unknown[] = [], name?: string): Promise<number> {
    return (await this.send(text, params, name)).rowCount ?? 0;
  }

  /** fn in one transaction; nested calls run in a savepoint of the outer one. */
  async transaction<T>(fn: () => T | Promise<T>): Promise<T> {
    const outer = this.unitsOpen === 0 ? undefined : this.units.getStore();
    if (outer && !outer.closed) return this.savepoint(outer, fn);
    this.unitsOpen++;
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      this.closed();
      throw err;
    }
    const unit: Unit = { client, levels: [[]], closed: false, savepoints: 0 };
    let broken: unknown = undefined;
    // The connection may end between two statements of the unit (the server ended an idle
    // transaction, a restart): the pool listens only to idle clients, and an unheard 'error'
    // would end the process. The unit's next statement fails, and the client is not reused.
    const lost = (err: Error) => void (broken = err);
    client.on('error', lost);
    try {
      await client.query('BEGIN');
      const result = await this.units.run(unit, fn);
      if (this.commitFails) {
        this.commitFails = false;
        throw new CommitFailed(new Error('COMMIT failed (failNextCommit)'));
      }
      try {
        await client.query('COMMIT');
      } catch (err) {
        throw new CommitFailed(err);
      }
      unit.closed = true;
      this.runAll(unit.levels[0]!);
      return result;
    } catch (err) {
      if (!unit.closed) {
        unit.closed = true;
        try {
          await client.query('ROLLBACK');
        } catch (rollbackFailed) {
          broken = rollbackFailed;
        }
      }
      throw err;
    } finally {
      unit.closed = true;
      this.closed();
      // A client whose ROLLBACK failed is in an unknown state: it is closed, not reused.
      client.removeListener('error', lost);
      client.release(broken instanceof Error ? broken : undefined);
    }
  }

  /** The last service unit in line (Store.transaction): this process runs one at a time. */
  private unitLine: Promise<unknown> = Promise.resolve();

  /**
   * A service's unit of work (Store.transaction). Outermost ones take turns, as the Store
   * contract has it (units never interleave), so a unit that reads before it writes (a limit
   * checked before an insert) is not raced by another of this process; a nested one is a
   * savepoint of the open unit. The writer's batches and a repository's own transactions do not
   * wait in this line: they are single statements or touch rows only their caller owns.
   */
  serviceUnit<T>(fn: () => T | Promise<T>): Promise<T> {
    if (this.inUnit()) return this.transaction(fn);
    const turn = this.unitLine.then(() => this.transaction(fn));
    this.unitLine = turn.catch(() => undefined);
    return turn;
  }

  /** An outermost unit has ended: with none left open, stop hooking every promise (see the header). */
  private closed(): void {
    if (--this.unitsOpen === 0) this.units.disable();
  }

  private async savepoint<T>(unit: Unit, fn: () => T | Promise<T>): Promise<T> {
    const name = `vigil_${++unit.savepoints}`;
    await unit.client.query(`SAVEPOINT ${name}`);
    const level: Array<() => void> = [];
    unit.levels.push(level);
    try {
      const result = await fn();
      await unit.client.query(`RELEASE SAVEPOINT ${name}`);
      unit.levels.pop();
      unit.levels.at(-1)!.push(...level);
      return result;
    } catch (err) {
      unit.levels.pop();
      try {
        await unit.client.query(`ROLLBACK TO SAVEPOINT ${name}`);
      } catch (rollbackFailed) {
        throw new BrokenUnit(rollbackFailed);
      }
      throw err;
    }
  }

  /** Runs effect once the unit open in this context commits; at once outside any. */
  afterCommit(effect: () => void): void {
    const unit = this.unitsOpen === 0 ? undefined : this.units.getStore();
    if (unit && !unit.closed) unit.levels.at(-1)!.push(effect);
    else this.runAll([effect]);
  }

  private runAll(effects: Array<() => void>): void {
    for (const effect of effects) {
      try {
        effect();
      } catch (err) {
        this.effectFailed(err);
      }
    }
  }

  /**
   * Brings the schema up to date. Under a session advisory lock: when several centrals start at
   * once, one migrates and the others wait for it, then find nothing left to do.
   */
  async migrate(): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query(`SELECT pg_advisory_lock(${MIGRATE_LOCK})`);
      try {
        await migrateSchema(client);
      } finally {
        await client.query(`SELECT pg_advisory_unlock(${MIGRATE_LOCK})`);
      }
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/** Says what to do when the database cannot be reached at start. */
export function unreachable(url: string, err: unknown): StartupError {
  let where = url;
  try {
    const u = new URL(url);
    u.password = u.password ? '***' : '';
    where = u.toString();
  } catch {
    // Config validated it; keep it as written.
  }
  return new StartupError(`cannot open the PostgreSQL store at ${where}: ${(err as Error).message}`);
}
