import { isIP } from 'node:net';
import type { ProbeResult, ProbeTask } from '../../domain/probe-types.js';
import { sendEchoes } from './icmp-client.js';
import type { EchoOutcome } from './icmp-echo.js';
import { ProbeError } from './probe-errors.js';
import { bareHost, resolveTarget } from './resolve-target.js';
import { emptyResult, roundMs, timingOf } from './result.js';
import { runScoped } from './run-scoped.js';

const MAX_PACKETS = 10;

/** A bare host name or IP, or `icmp://host`. */
export function pingHost(raw: string): string {
  const text = raw.trim();
  if (isIP(text) !== 0) return text;
  if (/^icmp:\/\//i.test(text)) return bareHost(new URL(text).hostname);
  if (text.includes('/')) throw new ProbeError(`Not a host name: ${raw}`);
  return bareHost(text);
}

export type EchoSummary = { ok: true; meanRtt: number; snippet: string } | { ok: false; error: string };

/** Up when any reply came; the mean covers the replies only. */
export function summarizeEchoes(outcomes: EchoOutcome[], address: string): EchoSummary {
  const rtts = outcomes.flatMap((o) => ('rtt' in o ? [o.rtt] : []));
  if (rtts.length === 0) {
    const reasons = [...new Set(outcomes.flatMap((o) => ('lost' in o && o.lost !== 'timeout' ? [o.lost] : [])))];
    const why = reasons.length > 0 ? ` (${reasons.join('; ')})` : '';
    return { ok: false, error: `All ${outcomes.length} packets lost${why}` };
  }
  const meanRtt = rtts.reduce((sum, rtt) => sum + rtt, 0) / rtts.length;
  const snippet =
    `${rtts.length}/${outcomes.length} replies from ${address}, ` +
    `rtt min/avg/max ${roundMs(Math.min(...rtts))}/${roundMs(meanRtt)}/${roundMs(Math.max(...rtts))} ms`;
  return { ok: true, meanRtt, snippet };
}

/**
 * `ping` checks: `pingPackets` echo requests sent together; up when at least one reply
 * arrives. responseTime is the mean round trip of the replies. Timing: dns, ttfb (the mean
 * round trip), total.
 */
export function probePing(task: ProbeTask): Promise<ProbeResult> {
  return runScoped(task, async (scope) => {
    const host = pingHost(task.url);
    const packets = Math.min(MAX_PACKETS, Math.max(1, Math.floor(task.pingPackets) || 1));
    const [target] = await scope.race(resolveTarget(host, task.refusePrivate));
    const resolved = scope.now();
    // Packets give up a little before the deadline, so silence reads "packets lost", not a timeout.
    const remaining = scope.remaining();
    const timeoutMs = Math.max(1, remaining - Math.min(250, remaining / 10));
    const outcomes = await scope.race(sendEchoes({ address: target.address, family: target.family, packets, timeoutMs }));
    const summary = summarizeEchoes(outcomes, target.address);
    if (!summary.ok) return { ...emptyResult(scope.startedAt), error: summary.error };
    const timing = timingOf({ dns: resolved, ttfb: summary.meanRtt, total: scope.now() });
    return { ...emptyResult(scope.startedAt), ok: true, responseTime: roundMs(summary.meanRtt), timing, snippet: summary.snippet };
  });
}
