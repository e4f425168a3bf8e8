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

/** The status changes of a while, in order (a change per check and type). */
interface StatusMessage {
  from: string;
  changes: StatusChange[];
}

/** How long a status change may wait for company before it goes to the other centrals (who must hear of it within a second). */
export const RELAY_EVERY_MS = 200;

/** A status message's size at most: well under PostgreSQL's NOTIFY limit (store/postgres/notify-bus.ts). */
const STATUS_MESSAGE_BYTES = 6_000;

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
  // Changes go out together every RELAY_EVERY_MS, as few messages (a NOTIFY each was a query
  // per ping), a check's change of one type once, at its latest: under a ping load a check
  // pings many times in that while, and every ping was a change to encode and send.
  let outgoing = new Map<string, StatusChange>();
  const send = () => {
    const changes = [...outgoing.values()];
    outgoing = new Map();
    for (const payload of statusMessages(name, changes)) bus.publish('status', payload);
  };
  feed.subscribe((change) => {
    // Edits reach the other centrals as check messages, which publish their own.
    if (change.type === 'saved' || change.type === 'deleted' || relayed.has(change)) return;
    if (outgoing.size === 0) setTimeout(send, RELAY_EVERY_MS);
    outgoing.set(`${change.type}:${change.checkId}`, change);
  });
  // Its own messages come back too: known by their opening, they are not parsed.
  const own = statusMessageOpening(name);
  bus.subscribe('status', (payload) => {
    if (payload.startsWith(own)) return;
    const message = JSON.parse(payload) as StatusMessage;
    if (message.from === name) return;
    for (const change of message.changes) {
      relayed.add(change);
      feed.publish(change);
    }
  });
}

function statusMessageOpening(name: string): string {
  return `{"from":${JSON.stringify(name)},"changes":[`;
}

/** `changes` as status messages of at most STATUS_MESSAGE_BYTES each (JSON of StatusMessage). */
export function statusMessages(name: string, changes: readonly StatusChange[]): string[] {
  const opening = statusMessageOpening(name);
  const messages: string[] = [];
  let parts: string[] = [];
  const empty = Buffer.byteLength(opening) + 2;
  let bytes = empty;
  for (const change of changes) {
    const part = JSON.stringify(change);
    const size = Buffer.byteLength(part) + 1;
    if (parts.length > 0 && bytes + size > STATUS_MESSAGE_BYTES) {
      messages.push(`${opening}${parts.join(',')}]}`);
      parts = [];
      bytes = empty;
    }
    parts.push(part);
    bytes += size;
  }
  if (parts.length > 0) messages.push(`${opening}${parts.join(',')}]}`);
  return messages;
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

/**
 * Immediate re-checks of checks whose prober node is connected to another central (several
 * centrals): the owner asks on the bus, and the central the node is connected to has it run
 * the check now (`runHere`; the others have no such node and do nothing). Returns the asking.
 */
export function relayRunNow(bus: ChangeBus, name: string, runHere: (checkId: string) => void): (checkId: string) => void {
  bus.subscribe('run', (payload) => {
    const message = JSON.parse(payload) as { from: string; id: string };
    if (message.from !== name) runHere(message.id);
  });
  return (id) => bus.publish('run', JSON.stringify({ from: name, id }));
}
