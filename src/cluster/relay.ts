import type { CheckObserver } from '../domain/check-observer.js';
import type { Check } from '../domain/records.js';
import type { Logger } from '../log.js';
import type { StatusChange, StatusFeed } from '../core/status-feed.js';
import type { ChecksService } from '../core/checks-service.js';
import type { ChangeBus } from '../store/change-bus.js';
import type { CheckRepo } from '../store/store.js';

export interface RelayDeps {
  bus: ChangeBus;
  /** This central's name: what it publishes carries it, and it ignores its own. */
  name: string;
  checks: Pick<ChecksService, 'observe' | 'announce' | 'announceDeleted'>;
  repo: Pick<CheckRepo, 'byId'>;
  feed: StatusFeed;
  log: Logger;
}

interface CheckMessage {
  from: string;
  id: string;
  runNow?: boolean;
  deleted?: { accountId: string; folder: string | null };
}

interface StatusMessage {
  from: string;
  change: StatusChange;
}

/**
 * What one central does that the others must learn of within a second (several centrals):
 * checks created, changed or deleted reach their engines, heartbeat and domain monitors and
 * node assignment; status changes reach their live dashboards and status-page caches. Each
 * goes out on the change bus and comes back in on every other central as if it had happened
 * there; what comes in is not sent out again.
 */
export function relayChanges(deps: RelayDeps): void {
  const { bus, name, checks, repo, feed, log } = deps;
  let relaying = false;
  const relayed = new WeakSet<StatusChange>();
  announceCheckChanges(bus, name, checks, () => relaying);
  bus.subscribe('checks', (payload) => {
    const message = JSON.parse(payload) as CheckMessage;
    if (message.from === name) return;
    void (async () => {
      const check = message.deleted ? null : await repo.byId(message.id);
      relaying = true;
      try {
        if (check) checks.announce(check, message.runNow ?? false);
        else if (message.deleted) checks.announceDeleted({ id: message.id, ...message.deleted });
      } finally {
        relaying = false;
      }
    })().catch((err: unknown) => log.error({ err, checkId: message.id }, 'a change made on another central was not applied here'));
  });
  feed.subscribe((change) => {
    // Edits reach the other centrals as check messages, which publish their own.
    if (change.type === 'saved' || change.type === 'deleted') return;
    if (!relayed.has(change)) bus.publish('status', JSON.stringify({ from: name, change } satisfies StatusMessage));
  });
  bus.subscribe('status', (payload) => {
    const message = JSON.parse(payload) as StatusMessage;
    if (message.from === name) return;
    relayed.add(message.change);
    feed.publish(message.change);
  });
}

/**
 * Tells the centrals on the bus of every check `checks` saves or deletes (the `checks` topic),
 * except while `quiet` says the change came from the bus itself. The CLI on a PostgreSQL store
 * uses it alone: running centrals drop the checks it deletes, which no poll would tell them.
 */
export function announceCheckChanges(bus: ChangeBus, name: string, checks: Pick<ChecksService, 'observe'>, quiet: () => boolean = () => false): void {
  const send = (message: CheckMessage) => {
    if (!quiet()) bus.publish('checks', JSON.stringify(message));
  };
  const observer: CheckObserver = {
    checkSaved: (check: Check, runNow: boolean) => send({ from: name, id: check.id, runNow }),
    checkDeleted: (check: Check) => send({ from: name, id: check.id, deleted: { accountId: check.accountId, folder: check.folder } }),
  };
  checks.observe(observer);
}
