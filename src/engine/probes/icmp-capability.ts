import { readFileSync } from 'node:fs';

const CAP_NET_RAW = 13n;

/**
 * Whether this process may open the raw sockets ICMP echo needs: root, or CAP_NET_RAW in its
 * effective set (Linux). Without it ping checks fail with that reason and everything else runs.
 */
export function hasRawSocketCapability(status = readProcStatus()): boolean {
  if (status === null) return true; // not Linux: nothing to tell; a ping will say it if it fails
  const capEff = /^CapEff:\s*([0-9a-f]+)$/m.exec(status)?.[1];
  return capEff !== undefined && ((BigInt(`0x${capEff}`) >> CAP_NET_RAW) & 1n) === 1n;
}

function readProcStatus(): string | null {
  try {
    return readFileSync('/proc/self/status', 'utf8');
  } catch {
    return null;
  }
}
