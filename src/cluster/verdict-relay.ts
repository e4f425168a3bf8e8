import type { MonitorStatus } from '../domain/events.js';
import type { ChangeBus } from '../store/change-bus.js';

interface Ask {
  from: string;
  rid: number;
  id: string;
}

interface Answer {
  to: string;
  rid: number;
  status: MonitorStatus | null;
}

/** Asks the central that owns a check for its verdict now, resolving null when none answers by `limitMs`. */
export type AskOwner = (checkId: string, limitMs: number) => Promise<MonitorStatus | null>;

/**
 * Verdicts of checks another central owns (several centrals, issue 35 item 1): a dependant's
 * alert waits for its parents' fresh status, and a parent owned elsewhere is asked for on the
 * bus (`verdict`). Its owner probes it now (`probeNow`, null on every central that does not own
 * it, which stays silent) and answers once its status has settled (`verdicted`), or at once with
 * null when it is no probe check or none settled it in time.
 */
export function relayVerdicts(bus: ChangeBus, name: string, probeNow: (checkId: string) => Promise<MonitorStatus | null> | null): AskOwner {
  const pending = new Map<number, (status: MonitorStatus | null) => void>();
  let nextRid = 1;
  bus.subscribe('verdict', (payload) => {
    const ask = JSON.parse(payload) as Ask;
    if (ask.from === name) return;
    void probeNow(ask.id)?.then((status) => bus.publish('verdicted', JSON.stringify({ to: ask.from, rid: ask.rid, status } satisfies Answer)));
  });
  bus.subscribe('verdicted', (payload) => {
    const answer = JSON.parse(payload) as Answer;
    if (answer.to === name) pending.get(answer.rid)?.(answer.status);
  });
  return (checkId, limitMs) => {
    const rid = nextRid++;
    return new Promise((resolve) => {
      const done = (status: MonitorStatus | null) => {
        clearTimeout(timer);
        pending.delete(rid);
        resolve(status);
      };
      const timer = setTimeout(() => done(null), limitMs);
      pending.set(rid, done);
      bus.publish('verdict', JSON.stringify({ from: name, rid, id: checkId } satisfies Ask));
    });
  };
}
