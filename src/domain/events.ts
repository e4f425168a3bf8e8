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
}

/** Any alert-worthy transition: the state machine's (probes, heartbeats) or the domain monitor's. */
export interface AlertEvent extends Omit<MonitorEvent, 'type'> {
  type: AlertEventType;
  /** For domain_* events: what the lookup found. */
  domain?: DomainInfo | null;
}
