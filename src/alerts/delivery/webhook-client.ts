import { lookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, request } from 'undici';
import { BLOCKED_TARGET_MESSAGE, isPrivateAddress } from '../../domain/address-policy.js';
import type { SignedRequest } from './webhook-request.js';

export interface WebhookClientOptions {
  timeoutMs: number;
  /** Decisions §3: refuse private and loopback addresses at connect time. */
  blockPrivateAddresses: boolean;
  /** Keep-alive connections per receiver origin. */
  connectionsPerOrigin: number;
}

/** What a receiver answered: its status, and how long it asked to be left alone (Retry-After), if it did. */
export interface ReceiverAnswer {
  status: number;
  retryAfterMs: number | null;
}

/** A delivery attempt that reached no answer (or was refused before leaving). */
export class WebhookUnreachable extends Error {}

const bare = (host: string): string => host.replace(/^\[(.*)\]$/, '$1');

/**
 * The private-address rule applied where it counts: on the addresses actually connected to,
 * so a name cannot resolve one way when checked and another way when used.
 */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  lookup(hostname, { ...options, all: true } as LookupAllOptions, (err, addresses: LookupAddress[]) => {
    if (err) return callback(err, '', 0);
    if (addresses.some((a) => isPrivateAddress(a.address))) {
      return callback(Object.assign(new Error(BLOCKED_TARGET_MESSAGE), { code: 'EBLOCKED' }), '', 0);
    }
    if ((options as { all?: boolean }).all) return (callback as (e: null, a: LookupAddress[]) => void)(null, addresses);
    const first = addresses[0]!;
    callback(null, first.address, first.family);
  });
};

/**
 * POSTs deliveries over one keep-alive pool (undici): no redirects followed, connect, header
 * and body deadlines on every request, and the body drained so the connection is reused.
 */
export class WebhookClient {
  private readonly agent: Agent;

  constructor(private readonly opts: WebhookClientOptions) {
    this.agent = new Agent({
      connections: opts.connectionsPerOrigin,
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
      connect: { timeout: opts.timeoutMs, ...(opts.blockPrivateAddresses ? { lookup: guardedLookup } : {}) },
    });
  }

  /** The receiver's answer; rejects with WebhookUnreachable when there was none. */
  post(req: SignedRequest, signal?: AbortSignal): Promise<ReceiverAnswer> {
    return this.send(req, null, signal);
  }

  /**
   * The receiver's answer with the first `bodyLimit` bytes of its body, as text (a subscriber
   * webhook's verification reads the echoed challenge); the rest is not read.
   */
  exchange(req: SignedRequest, bodyLimit: number, signal?: AbortSignal): Promise<ReceiverAnswer & { body: string }> {
    return this.send(req, bodyLimit, signal) as Promise<ReceiverAnswer & { body: string }>;
  }

  private async send(req: SignedRequest, bodyLimit: number | null, signal?: AbortSignal): Promise<ReceiverAnswer & { body?: string }> {
    const url = new URL(req.url);
    const host = bare(url.hostname);
    if (this.opts.blockPrivateAddresses && isIP(host) !== 0 && isPrivateAddress(host)) {
      throw new WebhookUnreachable(BLOCKED_TARGET_MESSAGE);
    }
    try {
      const res = await request(url, { method: req.method, headers: req.headers, body: req.body, dispatcher: this.agent, signal });
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

  close(): Promise<void> {
    return this.agent.close();
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
  const e = err as { name?: string; code?: string | number; cause?: { code?: string } };
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
    case 'EBLOCKED':
      return BLOCKED_TARGET_MESSAGE;
    case 'UND_ERR_ABORTED':
    case 'ABORT_ERR':
      return 'aborted';
    default:
      if (code && /CERT|SSL|TLS|SELF_SIGNED/.test(code)) return `TLS error (${code})`;
      return code ? `request failed (${code})` : 'request failed';
  }
}
