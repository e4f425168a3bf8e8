import type { DomainInfo, SslInfo } from './probe-types.js';

/** Every alert event name of spec §6 (what email and webhook settings may select). */
export const ALERT_EVENT_TYPES = [
  'website_down', 'website_up', 'website_error', 'ssl_error', 'ssl_warning',
  'domain_expiring', 'domain_expired', 'domain_renewed',
] as const;
export type AlertEventType = (typeof ALERT_EVENT_TYPES)[number];

/** The events the check state machine emits; the domain events come from the domain tracker. */
export type MonitorEventType = Extract<
  AlertEventType,
  'website_down' | 'website_up' | 'website_error' | 'ssl_warning' | 'ssl_error'
>;

/** A check's monitored status (decisions §4); `paused` is the check's `disabled` flag, not a state. */
export type MonitorStatus = 'pending' | 'up' | 'down';

/** Spec §2.3 `regions`: who saw the latest result. */
export interface Regions {
  primary: string | null;
  peer: string | null;
  regionsTotal: number;
  regionsDown: number;
  confirmedDown: boolean;
}

/**
 * One alert-worthy transition. Carries what a delivery payload needs (decisions §8 `details`)
 * so the alert pipeline never has to read the state again.
 */
export interface MonitorEvent {
  type: MonitorEventType;
  /** Epoch ms of the transition (the `now` the state machine was given). */
  at: number;
  previousStatus: MonitorStatus;
  status: MonitorStatus;
  /** The probe's error, or for SSL events the certificate problem. */
  error: string | null;
  statusCode: number | null;
  responseTime: number | null;
  regions: Regions;
  /** The certificate, for `ssl_warning` and `ssl_error`; null otherwise. */
  ssl: SslInfo | null;
  /**
   * When the state this event leaves began (the check's lastStatusChange before it; null: never
   * changed). With the check and the type it names the transition, the same on whichever
   * central saw it: alerts are queued once per transition (AlertPipeline).
   */
  since?: number | null;
}

/** Any alert-worthy transition: the state machine's (probes, heartbeats) or the domain monitor's. */
export interface AlertEvent extends Omit<MonitorEvent, 'type'> {
  type: AlertEventType;
  /** For domain_* events: what the lookup found. */
  domain?: DomainInfo | null;
}

/**
 * The transition an event of the check state machine announces, named alike by every central
 * that sees it: its type and when the state it leaves began. A check leaves each state once, so
 * two centrals that both saw a check go down (a stale owner's late write) name one transition.
 * Null when the event names none (certificate and domain events, a check that never changed).
 */
export function transitionKey(event: Pick<AlertEvent, 'type' | 'since'>): string | null {
  if (event.since === undefined || event.since === null) return null;
  if (event.type !== 'website_down' && event.type !== 'website_up' && event.type !== 'website_error') return null;
  return `${event.type}@${event.since}`;
}
