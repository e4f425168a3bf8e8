import type { Check } from '../domain/records.js';
import type { Logger } from '../log.js';
import type { LiveChecks } from '../monitor/live-checks.js';
import type { CheckRepo } from '../store/store.js';

export interface TakeoverDeps {
  live: LiveChecks;
  checks: Pick<CheckRepo, 'byId' | 'forEachEnabled'>;
  /** The checks service's observers hear of the check as stored (engine, domains, feeds). */
  announce: (check: Check) => void;
  /** Heartbeats re-arm their deadline from the last ping stored. */
  heartbeats: { adopt(check: Check): Promise<void> };
  log: Logger;
}

/**
 * Checks this central has just taken over from another: what it held of them in memory is
 * older than what their previous owner wrote, so their live entries are dropped and rebuilt
 * from the store (state, counters, the heartbeat's last ping).
 */
export async function takeOver(deps: TakeoverDeps, owns: (checkId: string) => boolean): Promise<number> {
  const ids = new Set([...deps.live.ids()].filter(owns));
  for (const id of ids) deps.live.delete(id);
  // One read of the enabled checks rather than one per check: a central gaining thousands of
  // checks probes them again within a second, not as fast as it can read them one by one.
  const found: Check[] = [];
  await deps.checks.forEachEnabled((check) => {
    if (ids.delete(check.id)) found.push(check);
  });
  // The rest: paused heartbeats (their pings are still recorded), or checks deleted meanwhile.
  for (const id of ids) {
    const check = await deps.checks.byId(id);
    if (check) found.push(check);
  }
  let adopted = 0;
  for (const check of found) {
    deps.announce(check);
    await deps.heartbeats.adopt(check);
    adopted++;
  }
  if (adopted > 0) deps.log.info({ checks: adopted }, 'took checks over');
  return adopted;
}
