import { STATUS_CODES } from 'node:http';
import uWS from 'uWebSockets.js';
import { BodyBuffer } from './body-buffer.js';
import { BodyDrain, DRAIN_BOUNDS, type DrainBounds } from './body-drain.js';
import { MAX_BODY_BYTES, type HttpRequest, type Reply } from '../api/http-types.js';
import { explainListenFailure } from './listen-failure.js';
import { clientOrigin, type ClientOrigin } from './client-origin.js';
const EXCLUSIVE_PORT = 1; // LIBUS_LISTEN_EXCLUSIVE_PORT
// Shared by every request without a query or a body (nothing writes to a request's).
const NO_QUERY = new URLSearchParams();
const NO_BODY = Buffer.alloc(0);

// uWS writes the status line as given: node:http's reason phrases, each line built once.
const STATUS_LINE: Record<number, string> = Object.fromEntries(Object.entries(STATUS_CODES).map(([code, text]) => [code, `${code} ${text}`]));

export type Handle = (req: HttpRequest) => Reply | Promise<Reply>;

export interface RunningServer {
  port: number;
  /** Stops accepting connections and resolves once in-flight requests are answered. */
  close(graceMs?: number): Promise<void>;
}

/**
 * The uWS adapter (DESIGN 1): turns a uWS request into an HttpRequest and a Reply back into
 * bytes. Headers are read synchronously (uWS invalidates the request object after the first
 * await), bodies are read with a 1 MiB cap, onAborted is attached once for an answer that comes
 * after the handler returns, writes outside the handler are corked. A body over the cap is
 * drained before its 413 is written (see BodyDrain).
 */
export function serve(
  host: string,
  port: number,
  handle: Handle,
  opts: { trustProxy?: boolean; configure?: (app: uWS.TemplatedApp) => void; drain?: DrainBounds } = {},
): Promise<RunningServer> {
  const app = uWS.App();
  // Routes of their own (the node protocol's WebSocket) before the catch-all below.
  opts.configure?.(app);
  let inFlight = 0;
  let drained: (() => void) | null = null;

  const trustProxy = opts.trustProxy ?? false;
  const drain = opts.drain ?? DRAIN_BOUNDS;
  const finished = (exchange: Exchange, reply: Reply | null, inHandler = false) => {
    inFlight--;
    exchange.answer(reply, inHandler);
    if (inFlight === 0 && drained) drained();
  };
  const failed = (exchange: Exchange) => finished(exchange, INTERNAL_ERROR());
  const dispatch = (exchange: Exchange, inHandler: boolean) => {
    let result: Reply | Promise<Reply>;
    try {
      result = handle(exchange);
    } catch {
      result = INTERNAL_ERROR();
    }
    if (result instanceof Promise) {
      if (inHandler) exchange.watchAbort();
      result.then((reply) => finished(exchange, reply), () => failed(exchange));
    } else finished(exchange, result, inHandler);
  };

  app.any('/*', (res, req) => {
    const rawQuery = req.getQuery();
    const headers: Record<string, string> = {};
    req.forEach((k, v) => {
      headers[k] = v;
    });
    const exchange = new Exchange(
      res, req.getCaseSensitiveMethod().toUpperCase(), req.getUrl(), rawQuery ? new URLSearchParams(rawQuery) : NO_QUERY, headers, trustProxy,
    );
    inFlight++;
    const declared = Number(headers['content-length'] ?? 0);
    const method = exchange.method;
    if (declared > MAX_BODY_BYTES) {
      // Answered without reading the body, which is drained before the answer is written.
      exchange.drainBody(drain);
      dispatch(exchange, true);
      return;
    }
    if (method === 'GET' || method === 'HEAD' || (!declared && !headers['transfer-encoding'])) {
      dispatch(exchange, true);
      return;
    }
    exchange.readBody(declared, drain, () => dispatch(exchange, false));
  });

  return new Promise((resolve, reject) => {
    // Exclusive: uWS would otherwise share the port (SO_REUSEPORT) with a second Vigil.
    const listen = app.listen as unknown as (h: string, p: number, options: number, cb: (s: uWS.us_listen_socket | false) => void) => void;
    listen.call(app, host, port, EXCLUSIVE_PORT, (socket) => {
      if (!socket) {
        void explainListenFailure(host, port).then(reject);
        return;
      }
      resolve({
        port: uWS.us_socket_local_port(socket as unknown as uWS.us_socket),
        close: (graceMs = 10_000) => {
          uWS.us_listen_socket_close(socket);
          if (inFlight === 0) return Promise.resolve();
          return new Promise<void>((done) => {
            const timer = setTimeout(done, graceMs);
            drained = () => {
              clearTimeout(timer);
              done();
            };
          });
        },
      });
    });
  });
}

const INTERNAL_ERROR = (): Reply => ({ status: 500, body: { error: { code: 500, message: 'Internal server error' } } });

/** One request as the pipeline sees it, and the uWS response it is answered on. */
class Exchange implements HttpRequest {
  body: Buffer = NO_BODY;
  oversized = false;
  private drain: BodyDrain | null = null;
  /** The answer to an oversized request, written once its body is drained. */
  private held: Reply | null = null;
  private aborted = false;
  private watching = false;
  private answered = false;
  private closed: (() => void) | null = null;
  private origin: ClientOrigin | null = null;

  constructor(
    private readonly res: uWS.HttpResponse,
    readonly method: string,
    readonly path: string,
    readonly query: URLSearchParams,
    readonly headers: Record<string, string>,
    private readonly trustProxy: boolean,
  ) {}

  get remoteAddress(): string {
    return this.client().address;
  }

  get scheme(): ClientOrigin['scheme'] {
    return this.client().scheme;
  }

  /**
   * Read only when asked for (the connection's address costs a few µs a request, and only logs
   * use it); a response already answered or aborted has no connection left to ask.
   */
  private client(): ClientOrigin {
    if (this.origin === null) {
      const peer = this.aborted || this.answered ? '' : Buffer.from(this.res.getRemoteAddressAsText()).toString();
      this.origin = clientOrigin(peer, this.headers, this.trustProxy);
    }
    return this.origin;
  }

  /**
   * uWS must be told before its handler returns when the answer comes later (a body to read,
   * an await): an answer written in the handler needs no abort watch.
   */
  watchAbort(): void {
    if (this.watching) return;
    this.watching = true;
    this.res.onAborted(() => {
      this.aborted = true;
      this.drain?.cancel();
      this.closed?.();
    });
  }

  /** Reads the body up to the cap, then calls `done`; past the cap the rest is drained. */
  readBody(expected: number, bounds: DrainBounds, done: () => void): void {
    this.watchAbort();
    const body = new BodyBuffer(MAX_BODY_BYTES, expected);
    this.res.onData((chunk, isLast) => {
      if (this.drain) {
        this.drain.data(chunk.byteLength, isLast);
        return;
      }
      // append copies the chunk: uWS reuses its memory after this callback returns.
      if (body.append(new Uint8Array(chunk))) {
        if (isLast) {
          this.body = body.contents();
          done();
        }
        return;
      }
      this.startDrain(bounds).data(chunk.byteLength, isLast);
      done();
    });
  }

  /** The declared body is over the cap: it is read and discarded (see BodyDrain). */
  drainBody(bounds: DrainBounds): void {
    const drain = this.startDrain(bounds);
    this.res.onData((chunk, isLast) => drain.data(chunk.byteLength, isLast));
  }

  private startDrain(bounds: DrainBounds): BodyDrain {
    this.oversized = true;
    this.watchAbort();
    this.drain = new BodyDrain(bounds, () => {
      const reply = this.held;
      this.held = null;
      if (reply) this.answer(reply, false);
    });
    return this.drain;
  }

  answer(reply: Reply | null, inHandler: boolean): void {
    if (this.aborted || reply === null) return;
    if (this.drain && !this.drain.done) {
      this.held = reply;
      return;
    }
    if (reply.stream && this.method !== 'HEAD') {
      const stream = reply.stream;
      reply.stream = undefined;
      this.watchAbort(); // a stream outlives the handler
      this.client(); // and its address is known before the connection may go
      openStream(this.res, reply, stream, (listener) => (this.closed = listener), () => this.aborted);
    } else {
      // uWS does not count an answer ended without a body (HEAD, 304) as one: it wants the abort watch too.
      if (this.method === 'HEAD' || (reply.raw === undefined && reply.body === undefined)) this.watchAbort();
      write(this.res, reply, this.oversized, this.method === 'HEAD', inHandler);
      this.answered = true;
    }
  }
}

/** Writes the head of a streamed reply and hands its open connection to the reply's stream. */
function openStream(
  res: uWS.HttpResponse,
  reply: Reply,
  stream: NonNullable<Reply['stream']>,
  onAbort: (listener: () => void) => void,
  isAborted: () => boolean,
): void {
  const listeners: Array<() => void> = [];
  let done = false;
  const close = () => {
    if (done) return;
    done = true;
    for (const listener of listeners) listener();
  };
  onAbort(close);
  res.cork(() => {
    res.writeStatus(STATUS_LINE[reply.status] ?? String(reply.status));
    writeHeaders(res, reply.headers);
  });
  stream({
    write: (text) => {
      if (done || isAborted()) return false;
      res.cork(() => res.write(text));
      return true;
    },
    end: () => {
      if (done || isAborted()) return;
      res.cork(() => res.end());
      close();
    },
    onClose: (listener) => void listeners.push(listener),
  });
}

/**
 * Writes the reply. Inside uWS's request handler the response is corked already; a reply that
 * comes later (after an await) is corked here, so its head and body leave in one write.
 */
function write(res: uWS.HttpResponse, reply: Reply, closeConnection: boolean, headOnly: boolean, inHandler: boolean): void {
  if (inHandler) writeNow(res, reply, closeConnection, headOnly);
  else res.cork(() => writeNow(res, reply, closeConnection, headOnly));
}

function writeNow(res: uWS.HttpResponse, reply: Reply, closeConnection: boolean, headOnly: boolean): void {
  const payload = reply.raw
    ? reply.raw.text
    : reply.body === undefined
      ? undefined
      : JSON.stringify(reply.body);
  res.writeStatus(STATUS_LINE[reply.status] ?? String(reply.status));
  if (payload !== undefined) {
    res.writeHeader('Content-Type', reply.raw ? reply.raw.contentType : 'application/json; charset=utf-8');
  }
  writeHeaders(res, reply.headers);
  if (payload === undefined) res.endWithoutBody(0, closeConnection);
  else if (headOnly) res.endWithoutBody(Buffer.byteLength(payload), closeConnection);
  else res.end(payload, closeConnection);
}

/** A reply's headers; several cookies ride in one Set-Cookie value, a line each (a cookie never holds a newline). */
function writeHeaders(res: uWS.HttpResponse, headers: Record<string, string> | undefined): void {
  if (!headers) return;
  for (const name in headers) {
    const value = headers[name]!;
    if (name === 'Set-Cookie' && value.includes('\n')) for (const cookie of value.split('\n')) res.writeHeader(name, cookie);
    else res.writeHeader(name, value);
  }
}
