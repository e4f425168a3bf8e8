import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { MAX_BODY_BYTES, type HttpRequest, type Reply } from '../../src/api/http-types.js';
import { serve, type RunningServer } from '../../src/front/uws-server.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { NO_PROBES } from './util.js';

/**
 * A body over 1 MiB is answered 413, and a client that writes the whole body before it reads
 * gets that answer: the server drains the rest of the body before writing it and closing, where
 * it used to close at once and reset the connection (the client got EPIPE and no response).
 */

interface Outcome {
  /** Everything the server sent before the connection ended. */
  response: string;
  /** The error the client's writes met, if any (EPIPE, ECONNRESET). */
  writeError: string | null;
  /** Body bytes the client managed to hand to its socket. */
  written: number;
}

interface Sending {
  /** Sends the body in chunked transfer encoding. */
  chunked?: boolean;
  /** Waits this long between writes. */
  pauseMs?: number;
  /** Stops sending after this many bytes and waits for the answer. */
  stopAfter?: number;
  /** Reads while it writes (by default nothing is read until the body is written). */
  readEarly?: boolean;
}

/**
 * Sends `head`, then up to `bodyBytes` of body in 16 KiB writes (each waited for, as a client
 * streaming a file does) or, with `chunked`, as chunks of that size; reads nothing until it has
 * written all of it or a write failed, then reads until the server closes.
 */
function exchange(port: number, head: string, bodyBytes: number, opts: Sending = {}): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket: Socket = connect(port, '127.0.0.1');
    if (!opts.readEarly) socket.pause();
    const received: Buffer[] = [];
    const outcome: Outcome = { response: '', writeError: null, written: 0 };
    socket.on('data', (d: Buffer) => received.push(d));
    socket.on('error', (err: NodeJS.ErrnoException) => (outcome.writeError ??= err.code ?? err.message));
    socket.on('close', () => resolve({ ...outcome, response: Buffer.concat(received).toString('utf8') }));
    const piece = Buffer.alloc(16 * 1024, 'a');
    const limit = Math.min(bodyBytes, opts.stopAfter ?? bodyBytes);
    const finish = () => {
      socket.resume();
      // A client that has said everything closes its side; the server's answer still comes.
      if (!socket.destroyed) socket.end();
    };
    const next = () => {
      if (socket.destroyed) return;
      if (outcome.written >= limit) {
        if (opts.chunked && limit === bodyBytes) socket.write('0\r\n\r\n');
        if (opts.stopAfter === undefined) finish();
        else socket.resume(); // a client that stops sending and waits for the answer
        return;
      }
      const size = Math.min(piece.length, limit - outcome.written);
      const data = opts.chunked ? Buffer.concat([Buffer.from(`${size.toString(16)}\r\n`), piece.subarray(0, size), Buffer.from('\r\n')]) : piece.subarray(0, size);
      outcome.written += size;
      socket.write(data, (err) => {
        if (err) {
          outcome.writeError ??= (err as NodeJS.ErrnoException).code ?? err.message;
          finish();
        } else if (opts.pauseMs) setTimeout(next, opts.pauseMs);
        else setImmediate(next);
      });
    };
    socket.write(head, () => next());
  });
}

function statusOf(response: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0);
}

function bodyOf(response: string): unknown {
  return JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4));
}

describe('a body over 1 MiB, written whole before the client reads', () => {
  let server: TestServer;
  let port: number;
  let settings: unknown;
  before(async () => {
    server = await startServer({}, undefined, NO_PROBES);
    port = Number(new URL(server.url).port);
    settings = (await server.request('GET', '/v1/public/alerts/email')).body;
  });
  after(async () => {
    await server.stop();
  });

  const patchHead = (framing: string) =>
    `PATCH /v1/public/alerts/email HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${server.adminKey}\r\ncontent-type: application/json\r\n${framing}\r\n\r\n`;

  test('with a Content-Length of 1.2 MB: every attempt reads its 413 in the error shape', async () => {
    // The reset came on most attempts; twenty in a row leave the race no room.
    for (let attempt = 0; attempt < 20; attempt++) {
      const out = await exchange(port, patchHead('content-length: 1200000'), 1_200_000);
      assert.equal(out.writeError, null, `attempt ${attempt}: the whole body was accepted`);
      assert.equal(out.written, 1_200_000);
      assert.equal(statusOf(out.response), 413, `attempt ${attempt}: ${out.response.slice(0, 80)}`);
      assert.match(out.response, /\r\nConnection: close\r\n/i);
      assert.deepEqual(bodyOf(out.response), { error: { code: 413, message: `Request body is larger than ${MAX_BODY_BYTES} bytes` } });
    }
  });

  test('sent chunked (no Content-Length): every attempt reads its 413 too', async () => {
    for (let attempt = 0; attempt < 10; attempt++) {
      const out = await exchange(port, patchHead('transfer-encoding: chunked'), 1_200_000, { chunked: true });
      assert.equal(out.writeError, null, `attempt ${attempt}`);
      assert.equal(statusOf(out.response), 413, `attempt ${attempt}: ${out.response.slice(0, 80)}`);
      assert.deepEqual(bodyOf(out.response), { error: { code: 413, message: `Request body is larger than ${MAX_BODY_BYTES} bytes` } });
    }
  });

  test('the settings are untouched and the next request is served', async () => {
    const res = await server.request('GET', '/v1/public/alerts/email');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, settings);
  });
});

describe('the drain is bounded', () => {
  let front: RunningServer;
  const bounds = { bytes: 256 * 1024, idleMs: 100, totalMs: 400 };
  const handle = (req: HttpRequest): Reply => (req.oversized ? { status: 413, body: { error: { code: 413, message: 'too large' } } } : { status: 200, body: {} });
  const head = (length: number) => `POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-length: ${length}\r\n\r\n`;
  before(async () => {
    front = await serve('127.0.0.1', 0, handle, { drain: bounds });
  });
  after(async () => {
    await front.close(0);
  });

  test('by size: a client sending 64 MiB is cut off soon after the bound, not read to the end', async () => {
    const out = await exchange(front.port, head(64 * 1024 * 1024), 64 * 1024 * 1024);
    assert.ok(out.written < 64 * 1024 * 1024, `the server stopped reading after ${out.written} bytes`);
    assert.notEqual(out.writeError, null, 'the client met a closed connection while it was still writing');
  });

  test('by a pause: a client that stops sending and waits gets its 413', async () => {
    const out = await exchange(front.port, head(2 * MAX_BODY_BYTES), 2 * MAX_BODY_BYTES, { stopAfter: 64 * 1024 });
    assert.equal(out.writeError, null);
    assert.equal(statusOf(out.response), 413);
    assert.deepEqual(bodyOf(out.response), { error: { code: 413, message: 'too large' } });
  });

  test('by time: a client trickling a body never idle for the pause bound is answered while it still sends', async () => {
    // 16 KiB every 20 ms would take ~2.6 s for 2 MiB; the drain stops after 400 ms.
    const out = await exchange(front.port, head(2 * MAX_BODY_BYTES), 2 * MAX_BODY_BYTES, { pauseMs: 20, readEarly: true });
    assert.ok(out.written < 2 * MAX_BODY_BYTES, `the connection ended after ${out.written} of ${2 * MAX_BODY_BYTES} bytes`);
    assert.match(out.response, /^HTTP\/1\.1 413 /, 'the answer was sent before the close');
  });
});
