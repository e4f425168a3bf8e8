import { Agent, request } from 'undici';
import { strictest, type PrivateRefusal } from '../../domain/outbound-policy.js';
import { assertOutboundHost, outboundLookup } from '../../util/outbound-guard.js';
import type { SignedRequest } from './webhook-request.js';

export interface WebhookClientOptions {
  timeoutMs: number;
  /** Decisions §3 (probes.blockPrivateAddresses): every delivery refuses private addresses at connect time. */
  blockPrivateAddresses: boolean;
  /** Keep-alive connections per receiver origin. */
  connectionsPerOrigin: number;
  /** probes.dnsServers: every receiver's name is resolved there (absent or empty: the system resolver). */
  dnsServers?: readonly string[];
}

/** What a receiver answered: its status, and how long it asked to be left alone (Retry-After), if it did. */
export interface ReceiverAnswer {
  status: number;
  retryAfterMs: number | null;
}

/** A delivery attempt that reached no answer (or was refused before leaving). */
export class WebhookUnreachable extends Error {}

/**
 * POSTs deliveries over keep-alive pools (undici): no redirects followed, connect, header and
 * body deadlines on every request, and the body drained so the connection is reused. The
 * outbound policy's guard resolves every receiver's name and refuses, under the delivery's
 * rule, a private address before connecting to it: one pool per rule, so a connection opened
 * for a delivery that may reach inside is never reused by one that may not.
 */
export class WebhookClient {
  private readonly agents = new Map<PrivateRefusal | 'open', Agent>();

  constructor(private readonly opts: WebhookClientOptions) {}

  private agentFor(rule: PrivateRefusal | null): Agent {
    const key = rule ?? 'open';
    let agent = this.agents.get(key);
    if (!agent) {
      const { timeoutMs } = this.opts;
      const lookup = outboundLookup({ refusePrivate: rule, dnsServers: this.opts.dnsServers ?? [] });
      agent = new Agent({ connections: this.opts.connectionsPerOrigin, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, connect: { timeout: timeoutMs, lookup } });
      this.agents.set(key, agent);
    }
    return agent;
  }

  /**
   * The receiver's answer; rejects with WebhookUnreachable when there was none. `refusePrivate`:
   * this delivery's own rule (its account's, or a subscriber webhook's), applied with the
   * operator's; a refused receiver's error is the policy's message and nothing else.
   */
  post(req: SignedRequest, signal?: AbortSignal, refusePrivate: PrivateRefusal | null = null): Promise<ReceiverAnswer> {
    return this.send(req, null, refusePrivate, signal);
  }

  /**
   * The receiver's answer with the first `bodyLimit` bytes of its body, as text (a subscriber
   * webhook's verification reads the echoed challenge); the rest is not read.
   */
  exchange(req: SignedRequest, bodyLimit: number, refusePrivate: PrivateRefusal | null, signal?: AbortSignal): Promise<ReceiverAnswer & { body: string }> {
    return this.send(req, bodyLimit, refusePrivate, signal) as Promise<ReceiverAnswer & { body: string }>;
  }

  private async send(req: SignedRequest, bodyLimit: number | null, refusePrivate: PrivateRefusal | null, signal?: AbortSignal): Promise<ReceiverAnswer & { body?: string }> {
    const url = new URL(req.url);
    const rule = strictest(refusePrivate, this.opts.blockPrivateAddresses ? 'operator' : null);
    try {
      // Node does not look up an IP literal: the guard checks it here.
      assertOutboundHost(url.hostname, rule);
      const res = await request(url, { method: req.method, headers: req.headers, body: req.body, dispatcher: this.agentFor(rule), signal });
      const answer = { status: res.statusCode, retryAfterMs: retryAfterMs(res.headers['retry-after']) };
      if (bodyLimit === null) {
        await res.body.dump({ limit: 64 * 1024 });
        return answer;
      }
      return { ...answer, body: await firstBytes(res.body, bodyLimit) };
    } catch (err) {
      throw new WebhookUnreachable(describe(err));
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.agents.values()].map((a) => a.close()));
  }
}

/** Up to `limit` bytes of a body as UTF-8; the stream is dropped after that. */
async function firstBytes(body: AsyncIterable<Buffer> & { destroy(): unknown }, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= limit) break;
  }
  body.destroy();
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8');
}

/** RFC 9110 Retry-After: delay-seconds or an HTTP-date; null when absent or unreadable. */
export function retryAfterMs(value: string | string[] | undefined, now = Date.now()): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined) return null;
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** A short reason, never the URL (it may carry credentials). */
function describe(err: unknown): string {
  const e = err as { name?: string; message?: string; code?: string | number; cause?: { code?: string; message?: string } };
  const refused = [e, e.cause].find((x) => x?.code === 'EOUTBOUND_REFUSED');
  if (refused?.message) return refused.message;
  // An AbortSignal's DOMException carries a number as its code (20, 23): its name says what happened.
  if (e.name === 'AbortError') return 'aborted';
  if (e.name === 'TimeoutError') return 'timed out';
  const code = typeof e.code === 'string' ? e.code : e.cause?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'DNS lookup failed';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'connection reset';
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return 'timed out';
    case 'UND_ERR_ABORTED':
    case 'ABORT_ERR':
      return 'aborted';
    default:
      if (code && /CERT|SSL|TLS|SELF_SIGNED/.test(code)) return `TLS error (${code})`;
      return code ? `request failed (${code})` : 'request failed';
  }
}
