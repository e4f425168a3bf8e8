import type { Timing } from '../../domain/check-types.js';
import type { ProbeResult } from '../../domain/probe-types.js';

export const SNIPPET_BYTES = 4096;

/** A result with nothing seen yet; probes spread what they learned over it. */
export function emptyResult(startedAt: number): ProbeResult {
  return {
    ok: false,
    statusCode: null,
    responseTime: null,
    timing: null,
    error: null,
    snippet: null,
    ssl: null,
    location: null,
    startedAt,
  };
}

/** Milliseconds to two decimals: enough for loopback, small to store. */
export function roundMs(ms: number): number {
  return Math.max(0, Math.round(ms * 100) / 100);
}

/** Builds a Timing; phases a protocol lacks are 0. */
export function timingOf(phases: Partial<Timing> & { total: number }): Timing {
  return {
    dns: roundMs(phases.dns ?? 0),
    connect: roundMs(phases.connect ?? 0),
    tls: roundMs(phases.tls ?? 0),
    ttfb: roundMs(phases.ttfb ?? 0),
    total: roundMs(phases.total),
  };
}

/** First 4 KiB as UTF-8 text, never ending in half a character. */
export function snippetOf(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes.subarray(0, SNIPPET_BYTES), { stream: true });
}
