import type { ProbeResult, ProbeTask } from '../domain/probe-types.js';

/** A second region's look at a target the primary region saw failing. */
export interface PeerVerdict {
  region: string;
  result: ProbeResult;
}

/**
 * The seam for regional prober nodes: after a failed probe the scheduler asks a peer to probe
 * again and hands the verdict to the state machine (input `peer`). Null means no peer exists or
 * none answered in time; the spec says an unreachable peer does not count.
 */
export interface PeerRechecker {
  /** `primaryRegion` ran the failing probe; the peer must be another region. */
  recheck(task: ProbeTask, primaryRegion: string): Promise<PeerVerdict | null>;
}

/** One node, no peers: every failure stands on the primary's word. */
export class NoPeer implements PeerRechecker {
  recheck(_task: ProbeTask, _primaryRegion: string): Promise<PeerVerdict | null> {
    return Promise.resolve(null);
  }
}
