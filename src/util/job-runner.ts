import type { Clock } from '../domain/clock.js';
import type { Logger } from '../log.js';

/** How the runner waits: real timers in production, a manual clock's in tests. */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Node's timers, unref'd: a periodic job never keeps the process alive. */
export const systemTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * Where a job must run when several centrals share one store: on every central (each works on
 * what it holds in memory), on the central that owns the checks concerned, or on one central at
 * a time (store-wide work any one of them can do). Declared with the job; today every central
 * runs every job, so the runner only records it.
 */
export type JobScope = 'every-central' | 'check-owner' | 'one-central';

/**
 * A run's word on when the job is next due, returned (or resolved) by `run`: at `at` (epoch ms),
 * or with `at` null not until something wakes it. A job with nothing to do sleeps instead of
 * waking every `everyMs` to find so.
 */
export class NextRun {
  constructor(readonly at: number | null) {}
}

export const nextRunAt = (at: number | null): NextRun => new NextRun(at);

/** Nothing to do until a `wakeOn` event (or `runNow`). */
export const WHEN_WOKEN = new NextRun(null);

/** Asks for a run at `at` (epoch ms), or at once; an earlier run already due stands. */
export type Wake = (at?: number) => void;

export interface Job {
  /** Unique; the `job` label in /metrics. */
  name: string;
  scope?: JobScope;
  /** How far apart runs go when a run does not say when the next is due. */
  everyMs: number;
  /** Up to this much is added to each such wait, drawn anew each time, so jobs of many processes spread out. */
  jitterMs?: number;
  /** Runs once as the runner starts, then every `everyMs`. */
  atStart?: boolean;
  /**
   * What gives the job work before its time: each is handed the job's `wake` when the job is
   * added (a change-bus subscription, an observer of what the job sweeps). A wake during a run
   * is kept for after it. Wakes while the runner is stopped are dropped.
   */
  wakeOn?: ReadonlyArray<(wake: Wake) => unknown>;
  /** A promise holds the job: the next run starts only once it settles. A NextRun it returns sets the next. */
  run(): unknown;
}

/** A job that says where it runs: every job a feature declares. */
export type ScopedJob = Job & { scope: JobScope };

/** What /metrics shows of a job. */
export interface JobReading {
  name: string;
  runs: number;
  failures: number;
  /** When the latest run started (epoch ms), null before the first. */
  lastRunAt: number | null;
  /** How long the latest finished run took, ms. */
  lastDurationMs: number | null;
  running: boolean;
}

interface Entry {
  job: Job;
  reading: JobReading;
  timer: unknown;
  /** When the armed timer fires (epoch ms); null while none is armed. */
  dueAt: number | null;
  /** The earliest wake asked for during a run, for after it. */
  wokenAt: number | null;
}

export interface JobRunnerDeps {
  clock: Clock;
  log: Logger;
  timers?: Timers;
  /** [0, 1), for the jitter (tests fix it). */
  random?: () => number;
}

/**
 * Every periodic job of the process, by name: each waits its interval (plus jitter) after its
 * previous run *started*, or at once if that run took longer, so a run never overlaps the
 * previous one and a slow job falls behind rather than piling up. A run may instead name its
 * next due time or sleep until woken (NextRun, `wakeOn`): a quiet instance then has no timer
 * for work that is not there. A failing run is logged and counted; the job keeps its schedule
 * (a failed run's next is `everyMs` away).
 */
export class JobRunner {
  private readonly jobs = new Map<string, Entry>();
  private readonly timers: Timers;
  private readonly random: () => number;
  private started = false;

  constructor(private readonly deps: JobRunnerDeps) {
    this.timers = deps.timers ?? systemTimers;
    this.random = deps.random ?? Math.random;
  }

  /** Adds a job; once the runner has started, it is scheduled at once. */
  add(job: Job): void {
    if (this.jobs.has(job.name)) throw new Error(`job ${job.name} is already registered`);
    if (!(job.everyMs > 0)) throw new Error(`job ${job.name} needs a positive interval`);
    const entry: Entry = {
      job,
      reading: { name: job.name, runs: 0, failures: 0, lastRunAt: null, lastDurationMs: null, running: false },
      timer: null,
      dueAt: null,
      wokenAt: null,
    };
    this.jobs.set(job.name, entry);
    for (const on of job.wakeOn ?? []) on((at) => this.wake(entry, at));
    if (this.started) this.begin(entry);
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    for (const entry of this.jobs.values()) this.begin(entry);
  }

  /** No run starts after this; one in progress finishes on its own. */
  stop(): void {
    this.started = false;
    for (const entry of this.jobs.values()) {
      this.disarm(entry);
      entry.wokenAt = null;
    }
  }

  /**
   * Runs a job now rather than at its next turn (another process asked: a central handing its
   * checks over). Nothing happens while it runs; its interval counts from this run.
   */
  runNow(name: string): void {
    const entry = this.jobs.get(name);
    if (!entry || !this.started || entry.reading.running) return;
    this.disarm(entry);
    this.run(entry);
  }

  readings(): JobReading[] {
    return [...this.jobs.values()].map((e) => ({ ...e.reading }));
  }

  private begin(entry: Entry): void {
    if (entry.reading.running) return; // a run from before a stop: it schedules the next itself
    if (entry.job.atStart) this.run(entry);
    else this.wait(entry, entry.job.everyMs);
  }

  private wait(entry: Entry, ms: number): void {
    const jitter = entry.job.jitterMs ? Math.floor(this.random() * entry.job.jitterMs) : 0;
    this.arm(entry, this.deps.clock.now() + ms + jitter);
  }

  private wake(entry: Entry, at = this.deps.clock.now()): void {
    if (!this.started) return;
    if (entry.reading.running) entry.wokenAt = Math.min(entry.wokenAt ?? at, at);
    else if (entry.dueAt === null || at < entry.dueAt) this.arm(entry, at);
  }

  /** One timer per job, for its next run. */
  private arm(entry: Entry, at: number): void {
    this.disarm(entry);
    entry.dueAt = at;
    entry.timer = this.timers.setTimeout(() => {
      entry.timer = null;
      entry.dueAt = null;
      this.run(entry);
    }, Math.max(0, at - this.deps.clock.now()));
  }

  private disarm(entry: Entry): void {
    if (entry.timer !== null) this.timers.clearTimeout(entry.timer);
    entry.timer = null;
    entry.dueAt = null;
  }

  /** After a run: what it said of its next, or its interval; a wake during the run brings it forward. */
  private next(entry: Entry, startedAt: number, now: number, said: unknown): void {
    const woken = entry.wokenAt;
    entry.wokenAt = null;
    if (said instanceof NextRun) {
      const at = said.at === null ? woken : Math.min(said.at, woken ?? said.at);
      if (at !== null) this.arm(entry, at);
      return;
    }
    if (woken !== null && woken < startedAt + entry.job.everyMs) this.arm(entry, woken);
    else this.wait(entry, Math.max(0, startedAt + entry.job.everyMs - now));
  }

  private run(entry: Entry): void {
    if (!this.started) return;
    const r = entry.reading;
    const startedAt = this.deps.clock.now();
    r.lastRunAt = startedAt;
    r.running = true;
    const finish = (err?: unknown, said?: unknown) => {
      const now = this.deps.clock.now();
      r.running = false;
      r.runs++;
      r.lastDurationMs = now - startedAt;
      if (err !== undefined) {
        r.failures++;
        this.deps.log.error({ err, job: r.name }, 'periodic job failed');
      }
      if (this.started && entry.timer === null) this.next(entry, startedAt, now, said);
    };
    let result: unknown;
    try {
      result = entry.job.run();
    } catch (err) {
      finish(err ?? new Error('job threw'));
      return;
    }
    if (result instanceof Promise) result.then((said: unknown) => finish(undefined, said), (err: unknown) => finish(err ?? new Error('job rejected')));
    else finish(undefined, result);
  }
}
