import type { ProbeTask } from '../domain/probe-types.js';
import type { PeerVerdict } from '../monitor/peer.js';
import type { ChangeBus } from '../store/change-bus.js';

/** Messages stay well under PostgreSQL's NOTIFY limit (store/postgres/notify-bus.ts). */
const MESSAGE_BYTES = 6_000;

interface Ask {
  from: string;
  rid: number;
  nodeId: string;
  task: ProbeTask;
}

interface Answer {
  to: string;
  rid: number;
  verdict: PeerVerdict;
}

/** Asks a prober node connected to another central for a peer re-check, resolving null when none answers by `limitMs`. */
export type AskElsewhere = (nodeId: string, task: ProbeTask, limitMs: number) => Promise<PeerVerdict | null>;

/**
 * Peer re-checks by prober nodes connected to other centrals (several centrals): a failure
 * seen from this central's region, on a central with no node of another region, is re-checked
 * by such a node connected to another central. The asking central names the node on the bus
 * (`recheck`); the central it is connected to has it probe (`recheckOn`, null when the node is
 * not connected there) and answers (`rechecked`). A task or an answer too large for a
 * notification is not sent (an answer first without its snippet): no answer counts as no peer.
 */
export function relayPeerRechecks(
  bus: ChangeBus, name: string, recheckOn: (nodeId: string, task: ProbeTask) => Promise<PeerVerdict | null> | null,
): AskElsewhere {
  const pending = new Map<number, (verdict: PeerVerdict | null) => void>();
  let nextRid = 1;
  bus.subscribe('recheck', (payload) => {
    const ask = JSON.parse(payload) as Ask;
    if (ask.from === name) return;
    void recheckOn(ask.nodeId, ask.task)?.then((verdict) => {
      const message = verdict ? answerMessage({ to: ask.from, rid: ask.rid, verdict }) : null;
      if (message) bus.publish('rechecked', message);
    });
  });
  bus.subscribe('rechecked', (payload) => {
    const answer = JSON.parse(payload) as Answer;
    if (answer.to === name) pending.get(answer.rid)?.(answer.verdict);
  });
  return (nodeId, task, limitMs) => {
    const rid = nextRid++;
    const message = JSON.stringify({ from: name, rid, nodeId, task } satisfies Ask);
    if (Buffer.byteLength(message) > MESSAGE_BYTES) return Promise.resolve(null);
    return new Promise((resolve) => {
      const done = (verdict: PeerVerdict | null) => {
        clearTimeout(timer);
        pending.delete(rid);
        resolve(verdict);
      };
      const timer = setTimeout(() => done(null), limitMs);
      pending.set(rid, done);
      bus.publish('recheck', message);
    });
  };
}

function answerMessage(answer: Answer): string | null {
  const whole = JSON.stringify(answer);
  if (Buffer.byteLength(whole) <= MESSAGE_BYTES) return whole;
  const cut = JSON.stringify({ ...answer, verdict: { ...answer.verdict, result: { ...answer.verdict.result, snippet: null } } });
  return Buffer.byteLength(cut) <= MESSAGE_BYTES ? cut : null;
}
