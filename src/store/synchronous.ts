/**
 * A repository whose methods answer at once: the SQLite store's repositories, which its units of
 * work (sqlite/units.ts) wrap in promises for the services, and call directly inside a batch.
 */
export type Synchronous<R> = {
  [K in keyof R]: R[K] extends (...args: infer A) => infer T ? (...args: A) => Awaited<T> : R[K];
};
