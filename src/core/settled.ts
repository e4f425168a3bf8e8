import type { Answer } from '../store/store.js';

/**
 * The value of a store answer inside code that is still synchronous (a `store.transaction` fn,
 * the session check of every request) until the store becomes asynchronous (issue 24): the
 * SQLite store answers with values, and a promise here is a bug to be told loudly.
 */
export function settled<T>(answer: Answer<T>): T {
  if (answer instanceof Promise) throw new Error('a synchronous unit of work was answered with a promise');
  return answer;
}
