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

export interface Job {
  /** Unique; the `job` label in /metrics. */
  name: string;
  scope?: JobScope;
  everyMs: number;
  /** Up to this much is added to each wait, drawn anew each time, so jobs of many processes spread out. */
  jitterMs?: number;
  /** Runs once as the runner starts, then every `everyMs`. */
  atStart?: boolean;
  /** A promise holds the job: the next run starts only once it settles. */
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
 * previous one and a slow job falls behind rather than piling up. A failing run is logged and
 * counted; the job keeps its schedule.
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
    };
    this.jobs.set(job.name, entry);
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
      if (entry.timer !== null) this.timers.clearTimeout(entry.timer);
      entry.timer = null;
    }
  }

  /**
   * Runs a job now rather than at its next turn (another process asked: a central handing its
   * checks over). Nothing happens while it runs; its interval counts from this run.
   */
  runNow(name: string): void {
    const entry = this.jobs.get(name);
    if (!entry || !this.started || entry.reading.running) return;
    if (entry.timer !== null) this.timers.clearTimeout(entry.timer);
    entry.timer = null;
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
    entry.timer = this.timers.setTimeout(() => {
      entry.timer = null;
      this.run(entry);
    }, ms + jitter);
  }

  private run(entry: Entry): void {
    if (!this.started) return;
    const r = entry.reading;
    const startedAt = this.deps.clock.now();
    r.lastRunAt = startedAt;
    r.running = true;
    const finish = (err?: unknown) => {
      const now = this.deps.clock.now();
      r.running = false;
      r.runs++;
      r.lastDurationMs = now - startedAt;
      if (err !== undefined) {
        r.failures++;
        this.deps.log.error({ err, job: r.name }, 'periodic job failed');
      }
      if (this.started && entry.timer === null) this.wait(entry, Math.max(0, startedAt + entry.job.everyMs - now));
    };
    let result: unknown;
    try {
      result = entry.job.run();
    } catch (err) {
      finish(err ?? new Error('job threw'));
      return;
    }
    if (result instanceof Promise) result.then(() => finish(), (err: unknown) => finish(err ?? new Error('job rejected')));
    else finish();
  }
}
