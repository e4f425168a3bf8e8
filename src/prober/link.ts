import WebSocket from 'ws';
import { MAX_FRAME_BYTES, NODE_PATH, type CentralMessage } from '../nodes/protocol.js';

export interface LinkOptions {
  /** The centrals' base URLs, http(s):// or ws(s)://: any of them serves the node (several centrals on one store). */
  servers: readonly string[];
  token: string;
  onOpen(): void;
  onMessage(message: CentralMessage): void;
  /** `refused`: the central turned the token down (unknown or revoked); the link stops redialling. */
  onClose(reason: string, refused: boolean): void;
  /** Backoff bounds (tests shorten them). */
  minDelayMs?: number;
  maxDelayMs?: number;
}

/** The central pings every 10 s; a link silent for this long is dead even if TCP has not noticed. */
const SILENCE_MS = 35_000;

/**
 * The node's one connection to a central, dialled out (no inbound port on the node) and
 * redialled after any loss with exponential backoff and full jitter, so a fleet of nodes
 * does not reconnect in step after a central restart. With several centrals, a loss moves the
 * node to the next one in the list (it stays there while that one serves it), and the backoff
 * grows only once every central has been tried. `wss://` verifies the certificate like any TLS
 * client (NODE_EXTRA_CA_CERTS adds a private CA).
 */
export class NodeLink {
  private ws: WebSocket | null = null;
  private attempt = 0;
  private timer: NodeJS.Timeout | null = null;
  private silence: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly urls: string[];
  /** The central dialled now (an index into `urls`). */
  private current = 0;
  /** Centrals tried since the last one that answered. */
  private failedInRound = 0;

  constructor(private readonly opts: LinkOptions) {
    if (opts.servers.length === 0) throw new Error('--server needs at least one URL');
    this.urls = opts.servers.map(socketUrl);
  }

  /** The central's WebSocket URL dialled now. */
  get url(): string {
    return this.urls[this.current]!;
  }

  /** Every central's WebSocket URL, in the order tried. */
  get allUrls(): readonly string[] {
    return this.urls;
  }

  get open(): boolean {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  /** Bytes queued in the socket and not yet sent (back-pressure for the outbox). */
  get buffered(): number {
    return this.ws?.bufferedAmount ?? 0;
  }

  start(): void {
    this.dial();
  }

  send(message: unknown): boolean {
    if (!this.open) return false;
    this.ws!.send(JSON.stringify(message));
    return true;
  }

  /** The central answered the hello: the next loss starts the backoff afresh. */
  established(): void {
    this.attempt = 0;
    this.failedInRound = 0;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.silence) clearTimeout(this.silence);
    this.ws?.close(1001, 'node stopping');
    this.ws = null;
  }

  private dial(): void {
    if (this.stopped) return;
    const ws = new WebSocket(this.url, {
      headers: { authorization: `Bearer ${this.opts.token}` },
      // The central's frames (assignments of checks with large bodies) may be larger than a node's.
      maxPayload: 4 * MAX_FRAME_BYTES,
      handshakeTimeout: 10_000,
      perMessageDeflate: false,
    });
    this.ws = ws;
    let closed = false;
    const lost = (reason: string, refused = false): void => {
      if (closed) return;
      closed = true;
      if (this.silence) clearTimeout(this.silence);
      if (this.ws === ws) this.ws = null;
      if (refused) this.stopped = true;
      this.opts.onClose(reason, refused);
      // The next central in the list, if any: a dead central's nodes move to a live one.
      if (this.urls.length > 1) this.current = (this.current + 1) % this.urls.length;
      this.redial();
    };
    ws.on('open', () => {
      this.heard(ws);
      this.opts.onOpen();
    });
    ws.on('message', (data, isBinary) => {
      this.heard(ws);
      if (isBinary) return;
      let message: CentralMessage;
      try {
        message = JSON.parse(data.toString()) as CentralMessage;
      } catch {
        return;
      }
      this.opts.onMessage(message);
    });
    ws.on('unexpected-response', (_req, res) => {
      lost(`refused: HTTP ${res.statusCode}`, res.statusCode === 401);
      ws.terminate();
    });
    ws.on('error', (err) => lost(err.message));
    ws.on('close', (code, reason) => lost(`closed ${code}${reason.length ? ` ${reason.toString()}` : ''}`));
  }

  private heard(ws: WebSocket): void {
    if (this.silence) clearTimeout(this.silence);
    this.silence = setTimeout(() => ws.terminate(), SILENCE_MS);
  }

  private redial(): void {
    if (this.stopped || this.timer) return;
    const min = this.opts.minDelayMs ?? 500;
    const max = this.opts.maxDelayMs ?? 30_000;
    // The backoff grows once a whole round of centrals has failed; within a round, the next is tried soon.
    if (++this.failedInRound >= this.urls.length) {
      this.failedInRound = 0;
      this.attempt++;
    }
    const ceiling = Math.min(max, min * 2 ** this.attempt);
    const delay = min / 2 + Math.random() * (ceiling - min / 2);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.dial();
    }, delay);
  }
}

/** The node socket's URL on a central given by its http(s) or ws(s) URL; throws naming a URL of another kind. */
export function socketUrl(server: string): string {
  const url = new URL(server);
  if (url.protocol === 'http:') url.protocol = 'ws:';
  else if (url.protocol === 'https:') url.protocol = 'wss:';
  else if (url.protocol !== 'ws:' && url.protocol !== 'wss:') throw new Error(`--server must be an http(s) or ws(s) URL (got ${server})`);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${NODE_PATH}`;
  return url.toString();
}
