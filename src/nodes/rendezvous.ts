import { createHash } from 'node:crypto';

/**
 * Rendezvous (highest-random-weight) hashing: each check goes to the node whose hash of
 * (node, check) is highest. A node joining takes only the checks it now wins; a node leaving
 * gives only its own checks to the others.
 */
export function ownerOf(checkId: string, nodeIds: readonly string[]): string | null {
  let best: string | null = null;
  let bestWeight = -1n;
  for (const node of nodeIds) {
    const weight = createHash('sha1').update(node).update('\0').update(checkId).digest().readBigUInt64BE(0);
    if (weight > bestWeight || (weight === bestWeight && best !== null && node < best)) {
      best = node;
      bestWeight = weight;
    }
  }
  return best;
}
