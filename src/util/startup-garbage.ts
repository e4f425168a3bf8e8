import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Runs one full garbage collection now: call it once, when a server has finished starting.
 *
 * Starting leaves the main heap full of garbage (every check record read to schedule it, the
 * modules' compile-time objects), and until its first full collection V8 sizes the old
 * generation on a start-up guess, not on what the process holds: at 40,000 checks it grew to
 * about 200 MB before that first collection, and only then settled near 110 MB. One collection
 * at the end of starting (a pause of a few tens of milliseconds, just after it listens) sets
 * V8's limits from the live heap instead. `gc` is exposed for that one call (as Jest's leak
 * detector does): `--expose-gc` only affects contexts created after it is set.
 */
export function collectStartupGarbage(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  setFlagsFromString('--no-expose-gc');
  gc();
}
