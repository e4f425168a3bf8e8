import type { BatchWriter } from '../store/batch-writer.js';
import type { ChangeBus } from '../store/change-bus.js';
import type { InboxPing, InboxResult, NewInboxPing, PingInboxRepo } from '../store/ping-inbox.js';
import type { HandOver } from '../engine/engine.js';
import type { Recorder } from '../monitor/recorder.js';
import { slotOf } from '../domain/leases.js';
import type { ScopedJob } from '../util/job-runner.js';

/** Entries taken per run: the oldest first. */
const TAKE = 500;

export interface InboxDeps {
  inbox: Pick<PingInboxRepo, 'take'>;
  /** The slots this central holds now. */
  held: () => number[];
  /** Records pings, each leaving the inbox with its write; resolves once they are durable. */
  pings: (pings: InboxPing[]) => Promise<void>;
  /** Records prober-node results, the same way. */
  results: (results: InboxResult[]) => Promise<void>;
}

/**
 * The owner's side of the inbox (several centrals): every second, and at once when another
 * central says it put something there, the entries of the slots this central holds are
 * recorded, each removed by the write that records it. A run ends only once its writes are
 * durable (the job never overlaps itself), so the next run does not take them again; an entry
 * whose write failed is still there and is.
 */
export function inboxJob(deps: InboxDeps): ScopedJob {
  return {
    name: 'inbox',
    scope: 'check-owner',
    everyMs: 1_000,
    run: async () => {
      const pings: InboxPing[] = [];
      const results: InboxResult[] = [];
      for (const item of await deps.inbox.take(deps.held(), TAKE)) {
        if (item.signal === 'result') results.push(item);
        else pings.push(item);
      }
      await Promise.all([deps.pings(pings), deps.results(results)]);
    },
  };
}

/** Tells the others once per committed batch that held an inbox entry (one NOTIFY, not one per entry). */
export function announceInbox(writer: Pick<BatchWriter, 'afterEachCommit'>, bus: ChangeBus, name: string): void {
  writer.afterEachCommit((batch, failed) => {
    if (failed === 'all') return;
    for (const record of batch) {
      if (record.kind === 'ping-inbox' && !failed.has(record)) {
        bus.publish('inbox', name);
        return;
      }
    }
  });
}

/**
 * The receiving side for a prober node's result of a check another central owns: into the
 * store's inbox for that central, in the write that moves the node's cursor.
 */
export function handOverToInbox(recorder: Pick<Recorder, 'write'>, central: string): HandOver {
  return (checkId, result, region, cursor) => recorder.write({
    kind: 'ping-inbox', item: { checkId, slot: slotOf(checkId), at: result.startedAt, signal: 'result', result, region, receivedBy: central }, nodeCursor: cursor,
  });
}

/** The receiving side for a heartbeat ping of a check another central owns: into the inbox, marked with this central. */
export function forwardToInbox(writer: Pick<BatchWriter, 'commit'>, central: string): (ping: Omit<NewInboxPing, 'receivedBy'>) => Promise<void> {
  return (ping) => writer.commit({ kind: 'ping-inbox', item: { ...ping, details: { ...ping.details, central }, receivedBy: central } });
}
