/**
 * A repository whose every method answers with a promise: the PostgreSQL store's shape of the
 * store interfaces (src/store/store.ts), but for the few they declare synchronous.
 */
export type Async<R> = {
  [K in keyof R]: R[K] extends (...args: infer A) => infer T ? (...args: A) => Promise<Awaited<T>> : R[K];
};

/** `$from, $from+1, …` placeholders for `count` parameters. */
export const placeholders = (count: number, from = 1): string => Array.from({ length: count }, (_, i) => `$${from + i}`).join(', ');
