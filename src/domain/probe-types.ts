import type { PrivateRefusal } from './outbound-policy.js';
import type { HttpMethod, ProbeType, ResponseValidation, Timing } from './check-types.js';

/** What a probe worker needs to run one probe. Structured-cloneable: it crosses a thread. */
export interface ProbeTask {
  type: ProbeType;
  url: string;
  method: HttpMethod;
  headers: Record<string, string>;
  body: string | null;
  expectedStatusCodes: number[];
  responseValidation: ResponseValidation | null;
  cacheControlNoCache: boolean;
  pingPackets: number;
  timeoutMs: number;
  /**
   * The outbound policy's rule for this check's account (docs/outbound-policy.md): who refuses
   * private, loopback, link-local and metadata addresses at connect time; null: nobody. A
   * prober node applies it together with its own config's rule.
   */
  refusePrivate: PrivateRefusal | null;
}

/** The certificate seen by a TLS probe (spec 2.2 `ssl`). Dates are ISO 8601. */
export interface SslInfo {
  valid: boolean;
  /** Why the chain or dates did not verify; null when valid. */
  error: string | null;
  issuer: string;
  subject: string;
  validFrom: string;
  validTo: string;
  serialNumber: string;
  fingerprint: string;
}

/** Which SSL thresholds already alerted for the certificate last seen (state machine memory). */
export interface SslAlertMemory {
  fingerprint: string;
  warned: boolean;
  errored: boolean;
}

/** What a domain lookup (RDAP) found (spec 2.2 `domain`). Dates are ISO 8601. */
export interface DomainInfo {
  name: string | null;
  registrar: string | null;
  expiresAt: string | null;
  updatedAt: string | null;
}

/** What one probe saw. `ok` applies the check's own rules (status codes, validation, expected answer). */
export interface ProbeResult {
  ok: boolean;
  /** HTTP status, or null for protocols without one. */
  statusCode: number | null;
  /** Milliseconds from start to the answer that decided the result; null when nothing answered. */
  responseTime: number | null;
  /** Phases this protocol has; phases it lacks are 0. Null when the probe failed before any answer. */
  timing: Timing | null;
  /** Human-readable reason when !ok (and null when ok). */
  error: string | null;
  /** First 4 KiB of the response body, banner or answer, for history search. */
  snippet: string | null;
  ssl: SslInfo | null;
  /** For `redirect` checks: the Location the target answered with. */
  location: string | null;
  /** Epoch milliseconds when the probe started. */
  startedAt: number;
}
