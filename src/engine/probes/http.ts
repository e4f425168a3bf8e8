import type { IncomingHttpHeaders } from 'node:http';
import { Client, type Dispatcher } from 'undici';
import type { HttpMethod, Timing } from '../../domain/check-types.js';
import type { PrivateRefusal } from '../../domain/outbound-policy.js';
import type { ProbeResult, ProbeTask, SslInfo } from '../../domain/probe-types.js';
import { openConnection, type ConnectPhases } from './connect.js';
import { checkStatus, listCodes, validateBody } from './http-validation.js';
import { ProbeError } from './probe-errors.js';
import { ignore, type ProbeScope } from './probe-scope.js';
import { emptyResult, snippetOf, timingOf } from './result.js';
import { runScoped, type Seen } from './run-scoped.js';

const MAX_REDIRECTS = 10;
/** Bytes of body kept for validation; the rest is not downloaded. */
const BODY_CAP = 1024 * 1024;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const METHODS_WITH_BODY = new Set<HttpMethod>(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Credentials meant for one origin are not forwarded to another by a redirect. */
const ORIGIN_BOUND_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];
const USER_AGENT = 'Vigil/0.1 (uptime monitor)';

interface HopRequest {
  url: URL;
  method: HttpMethod;
  headers: Record<string, string>;
  body: string | null;
}

interface Hop {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  phases: ConnectPhases;
  /** Request handed to the connection → response headers. */
  ttfb: number;
  ssl: SslInfo | null;
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

interface Response {
  status: number;
  headers: IncomingHttpHeaders;
  /** At most `cap` bytes of the body. */
  body: Buffer;
  /** The body was cut at the cap: the rest is still on its way. */
  capped: boolean;
  /** scope.now() when the response headers arrived. */
  headersAt: number;
}

/**
 * One request through undici's handler interface: the status, headers and body chunks arrive as
 * calls, without the response stream (and its async iterator) that `client.request` builds per
 * request. The body is kept up to `cap` bytes; the status is `seen` as soon as it arrives, so a
 * body that times out still reports it.
 */
function send(scope: ProbeScope, seen: Seen, client: Client, options: Dispatcher.DispatchOptions, cap: number): Promise<Response> {
  return new Promise((resolve, reject) => {
    let status = 0;
    let headers: IncomingHttpHeaders = {};
    let headersAt = 0;
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (capped: boolean): void => {
      settled = true;
      resolve({ status, headers, body: Buffer.concat(chunks, size), capped, headersAt });
    };
    client.dispatch(options, {
      // undici tells this interface from its older one by this method.
      onRequestStart() {},
      onResponseStart(_controller, statusCode, responseHeaders) {
        status = seen.statusCode = statusCode;
        headers = responseHeaders;
        headersAt = scope.now();
      },
      onResponseData(_controller, chunk) {
        if (settled) return;
        if (size + chunk.length < cap) {
          chunks.push(chunk);
          size += chunk.length;
          return;
        }
        chunks.push(chunk.subarray(0, cap - size));
        size = cap;
        finish(true); // ends the download: the client is destroyed right after
      },
      onResponseEnd() {
        if (!settled) finish(false);
      },
      onResponseError(_controller, err) {
        if (settled) return;
        settled = true;
        reject(err);
      },
    });
  });
}

/** One request on a fresh connection of its own, so every probe measures dns, connect and tls. */
async function exchange(scope: ProbeScope, seen: Seen, request: HopRequest, refusePrivate: PrivateRefusal | null): Promise<Hop> {
  const { url } = request;
  const secure = url.protocol === 'https:';
  if (!secure && url.protocol !== 'http:') throw new ProbeError(`Unsupported URL scheme ${url.protocol}`);
  const connection = await openConnection(scope, {
    host: url.hostname,
    port: Number(url.port) || (secure ? 443 : 80),
    tls: secure,
    alpn: ['http/1.1'],
    refusePrivate,
  });
  let handedOver = false;
  const client = new Client(url.origin, {
    // The connection is already open and timed; undici only speaks HTTP over it, once.
    // The callback must not run synchronously: undici ignores a connection handed over
    // while it is still inside connect().
    connect: (_options, callback) => {
      if (handedOver) {
        process.nextTick(callback, new ProbeError('Connection closed by server'), null);
        return;
      }
      handedOver = true;
      process.nextTick(callback, null, connection.socket);
    },
    // The probe's own deadline (the scope) bounds everything.
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  // A graceful close once the response is fully read: destroy() builds an error with a stack
  // trace on every call, which at thousands of probes a second is a tenth of the probe's cost.
  let released = false;
  const release = (graceful: boolean): void => {
    if (released) return;
    released = true;
    void (graceful ? client.close() : client.destroy()).catch(ignore);
  };
  scope.onClose(() => release(false));
  let complete = false;
  try {
    seen.ssl = connection.ssl;
    const sentAt = scope.now();
    // No abort signal: at the deadline runScoped's race fails the probe, and closing the scope
    // destroys the client, which ends the request.
    const response = await send(scope, seen, client, {
      path: `${url.pathname}${url.search}`,
      method: request.method,
      headers: request.headers,
      body: request.body,
    }, BODY_CAP);
    complete = !response.capped; // a capped body is still downloading: close() would wait for it
    return { status: response.status, headers: response.headers, body: response.body, phases: connection.phases, ttfb: response.headersAt - sentAt, ssl: connection.ssl };
  } finally {
    release(complete); // a redirect chain holds one connection at a time
  }
}

function firstRequest(task: ProbeTask): HopRequest {
  const headers: Record<string, string> = { 'user-agent': USER_AGENT, accept: '*/*' };
  for (const [name, value] of Object.entries(task.headers)) headers[name.toLowerCase()] = value;
  if (task.cacheControlNoCache) headers['cache-control'] = 'no-cache';
  const body = METHODS_WITH_BODY.has(task.method) ? task.body : null;
  if (body !== null && headers['content-type'] === undefined) headers['content-type'] = 'application/json';
  return { url: new URL(task.url), method: task.method, headers, body };
}

/** The request a browser would make for a redirect (RFC 9110 15.4). */
function redirectRequest(previous: HopRequest, status: number, next: URL): HopRequest {
  const headers = { ...previous.headers };
  let { method, body } = previous;
  const toGet = (status === 303 && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST');
  if (toGet) {
    method = 'GET';
    body = null;
    delete headers['content-type'];
  }
  if (next.origin !== previous.url.origin) for (const name of ORIGIN_BOUND_HEADERS) delete headers[name];
  return { url: next, method, headers, body };
}

function resolveLocation(location: string, base: URL): URL | null {
  try {
    return new URL(location, base);
  } catch {
    return null;
  }
}

/**
 * A `redirect` check passes on any 3xx. Only codes other than the API default [200] narrow
 * it (a user who sets [301] wants exactly 301). `expectedValue` without a `jsonPath` is the
 * Location the target must redirect to.
 */
function checkRedirect(task: ProbeTask, status: number, location: string | null): string | null {
  if (status < 300 || status > 399) return `Expected a redirect (3xx), got ${status}`;
  const codes = task.expectedStatusCodes;
  const narrowed = codes.length > 0 && !(codes.length === 1 && codes[0] === 200);
  if (narrowed && !codes.includes(status)) return `Expected status ${listCodes(codes)}, got ${status}`;
  if (location === null) return `Redirect ${status} without a Location header`;
  const expected = task.responseValidation?.jsonPath ? undefined : task.responseValidation?.expectedValue;
  if (expected !== undefined) {
    const wanted = resolveLocation(expected, new URL(task.url))?.href ?? expected;
    if (location !== wanted && location !== expected) return `Redirects to ${location}, expected ${expected}`;
  }
  return null;
}

/**
 * `website` follows up to 10 redirects; `rest_endpoint` and `redirect` never do. Across
 * redirects the dns, connect, tls and ttfb phases are summed over the hops, and total (and
 * responseTime) is the whole probe, from its start to the last hop's body read: the time a
 * visitor waits.
 */
async function probe(scope: ProbeScope, seen: Seen, task: ProbeTask): Promise<ProbeResult> {
  let request = firstRequest(task);
  const sums: Omit<Timing, 'total'> = { dns: 0, connect: 0, tls: 0, ttfb: 0 };
  let hop: Hop;
  let error: string | null = null;
  for (let redirects = 0; ; redirects++) {
    hop = await exchange(scope, seen, request, task.refusePrivate);
    sums.dns += hop.phases.dns;
    sums.connect += hop.phases.connect;
    sums.tls += hop.phases.tls;
    sums.ttfb += hop.ttfb;
    const location = headerValue(hop.headers, 'location');
    if (task.type !== 'website' || !REDIRECT_STATUSES.has(hop.status) || location === undefined) break;
    if (redirects === MAX_REDIRECTS) {
      error = `Too many redirects (more than ${MAX_REDIRECTS})`;
      break;
    }
    const next = resolveLocation(location, request.url);
    if (next === null || (next.protocol !== 'http:' && next.protocol !== 'https:')) {
      error = `Redirect to an unsupported location: ${location}`;
      break;
    }
    request = redirectRequest(request, hop.status, next);
  }
  const timing = timingOf({ ...sums, total: scope.now() });
  const rawLocation = headerValue(hop.headers, 'location');
  const location =
    task.type === 'redirect' && rawLocation !== undefined
      ? (resolveLocation(rawLocation, request.url)?.href ?? rawLocation)
      : null;
  if (error === null) {
    error =
      task.type === 'redirect'
        ? checkRedirect(task, hop.status, location)
        : (checkStatus(task.expectedStatusCodes, hop.status) ??
          validateBody(task.responseValidation, new TextDecoder().decode(hop.body)));
  }
  return {
    ...emptyResult(scope.startedAt),
    ok: error === null,
    error,
    statusCode: hop.status,
    responseTime: timing.total,
    timing,
    snippet: snippetOf(hop.body),
    ssl: hop.ssl,
    location,
  };
}

/** Probes `website`, `rest_endpoint` and `redirect` checks. */
export function probeHttp(task: ProbeTask): Promise<ProbeResult> {
  return runScoped(task, (scope, seen) => probe(scope, seen, task));
}
