/**
 * What a repository method answers: its value, or the promise of it (a store over the network).
 * Callers await it; the SQLite store answers with the value itself.
 */
export type Answer<T> = T | Promise<T>;

/**
 * `then` without the microtask when the answer is already there: for hot paths (GET /checks,
 * authentication) that stay synchronous over a store that answers synchronously.
 */
export function whenAnswered<T, R>(answer: Answer<T> | T, next: (value: T) => R | Promise<R>): R | Promise<R> {
  return answer instanceof Promise ? answer.then(next) : next(answer as T);
}

/** A repository whose methods answer at once (the SQLite store's, used inside its own transactions). */
export type Synchronous<R> = {
  [K in keyof R]: R[K] extends (...args: infer A) => infer T ? (...args: A) => Awaited<T> : R[K];
};
