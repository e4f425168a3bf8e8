/** The check types Vigil knows (spec 4.3 plus the mail protocols of 4.4). */
export const CHECK_TYPES = [
  'website', 'rest_endpoint', 'redirect', 'ping', 'tcp', 'udp', 'dns', 'websocket',
  'smtp', 'pop3', 'imap', 'heartbeat', 'domain',
] as const;
export type CheckType = (typeof CHECK_TYPES)[number];

/** Types that a probe worker runs on the wheel (heartbeat and domain are deadline-driven). */
export type ProbeType = Exclude<CheckType, 'heartbeat' | 'domain'>;

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** Per-phase timing of one probe, milliseconds. Names are a product surface: keep them stable. */
export interface Timing {
  dns: number;
  connect: number;
  tls: number;
  ttfb: number;
  total: number;
}

export interface ResponseValidation {
  containsText?: string[];
  jsonPath?: string;
  expectedValue?: string;
}
