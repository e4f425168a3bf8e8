import type { DomainMemory } from '../store/alert-store.js';

export const DOMAIN_WARNING_MS = 30 * 24 * 60 * 60 * 1000;

export type DomainEventType = 'domain_expiring' | 'domain_expired' | 'domain_renewed';

export interface DomainStep {
  memory: Pick<DomainMemory, 'expiresAt' | 'alerted'>;
  events: DomainEventType[];
}

const levelOf = (expiresAt: number, now: number): DomainMemory['alerted'] =>
  expiresAt <= now ? 'expired' : expiresAt - now <= DOMAIN_WARNING_MS ? 'expiring' : 'ok';

/**
 * The domain thresholds, pure (like the state machine's SSL rule): each alerts once per expiry
 * date. `domain_expiring` 30 days before, `domain_expired` once past it, and `domain_renewed`
 * when the expiry moves later after one of those two (a routine auto-renewal far from expiry
 * stays quiet). A renewal re-arms both thresholds for the new date.
 */
export function domainStep(previous: Pick<DomainMemory, 'expiresAt' | 'alerted'> | null, expiresAt: number, now: number): DomainStep {
  const level = levelOf(expiresAt, now);
  const known = previous?.expiresAt ?? null;
  if (previous === null || known === null) {
    // First sighting: what is already true is news (an expired or nearly expired domain).
    return { memory: { expiresAt, alerted: level }, events: level === 'expired' ? ['domain_expired'] : level === 'expiring' ? ['domain_expiring'] : [] };
  }
  if (expiresAt !== known) {
    if (expiresAt > known && previous.alerted !== 'ok') return { memory: { expiresAt, alerted: level }, events: ['domain_renewed'] };
    return domainStep(null, expiresAt, now);
  }
  if (level === 'expired' && previous.alerted !== 'expired') return { memory: { expiresAt, alerted: 'expired' }, events: ['domain_expired'] };
  if (level === 'expiring' && previous.alerted === 'ok') return { memory: { expiresAt, alerted: 'expiring' }, events: ['domain_expiring'] };
  return { memory: previous, events: [] };
}
