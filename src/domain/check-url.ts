import type { Check } from './records.js';

/** A check's `url` as the API shows it: a heartbeat's is its ping URL. */
export function checkUrl(check: Pick<Check, 'type' | 'url' | 'heartbeatToken'>, addresses: { heartbeatUrl: string }): string {
  return check.type === 'heartbeat' ? `${addresses.heartbeatUrl}/heartbeat/${check.heartbeatToken}` : check.url;
}
