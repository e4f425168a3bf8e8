import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { BodyBuffer } from '../../src/front/body-buffer.js';
import { MAX_BODY_BYTES } from '../../src/api/http-types.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { NO_PROBES } from './util.js';

/**
 * Request bodies sent in 1-byte chunks (chunked transfer encoding): the front collects them into
 * one buffer bounded by 1 MiB, so memory returns after each request (issue 12: ~400 MiB of RSS
 * per request stayed, from one allocation per chunk).
 */

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let server: TestServer;
before(async () => {
  server = await startServer({}, undefined, NO_PROBES);
});
after(async () => {
  await server.stop();
});

/** A body in chunked transfer encoding, `size` bytes per chunk, as its bytes on the wire. */
function chunked(body: Buffer, size = 1): Buffer {
  const parts: Buffer[] = [];
  for (let at = 0; at < body.length; at += size) {
    const chunk = body.subarray(at, at + size);
    parts.push(Buffer.from(`${chunk.length.toString(16)}\r\n`, 'latin1'), chunk, Buffer.from('\r\n', 'latin1'));
  }
  parts.push(Buffer.from('0\r\n\r\n', 'latin1'));
  return Buffer.concat(parts);
}

/** `bytes` of `a` in 1-byte chunks, written straight into one buffer (a million small Buffers would skew the memory measured). */
function oneByteChunksOfA(bytes: number): Buffer {
  const wire = Buffer.allocUnsafe(bytes * 6 + 5);
  for (let at = 0; at < bytes * 6; at += 6) wire.write('1\r\na\r\n', at, 'latin1');
  wire.write('0\r\n\r\n', bytes * 6, 'latin1');
  return wire;
}

/** Sends one request over a raw socket and resolves with the status and body of the answer. */
function send(path: string, headers: Record<string, string>, wire: Buffer): Promise<{ status: number; body: string }> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (d) => {
      received.push(d);
      const text = Buffer.concat(received).toString('utf8');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/content-length: *(\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
      if (Buffer.byteLength(text) - end - 4 < length) return;
      socket.destroy();
      resolve({ status: Number(text.slice(9, 12)), body: text.slice(end + 4) });
    });
    socket.on('error', reject);
    const head = Object.entries({ host: '127.0.0.1', 'transfer-encoding': 'chunked', ...headers }).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n`);
    socket.write(wire);
  });
}

describe('request bodies in 1-byte chunks', () => {
  test('are read whole: a create in 1-byte chunks is a 201; past 1 MiB it is a 413', async () => {
    const body = Buffer.from(JSON.stringify({ url: 'https://chunked.example.com', name: 'one byte at a time' }));
    const created = await send('/v1/public/checks', { 'x-api-key': server.adminKey, 'idempotency-key': 'chunked-1', 'content-type': 'application/json' }, chunked(body));
    assert.equal(created.status, 201, created.body);
    const id = JSON.parse(created.body).data.id as string;
    assert.equal((await server.request('GET', `/v1/public/checks/${id}`)).body.data.name, 'one byte at a time');

    // The cap does not depend on the chunk size: 1 KiB chunks keep this case quick.
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    assert.equal((await send('/oauth/agent-signup', form, chunked(Buffer.alloc(MAX_BODY_BYTES, 'a'), 1024))).status, 400, 'exactly 1 MiB is read');
    assert.equal((await send('/oauth/agent-signup', form, chunked(Buffer.alloc(MAX_BODY_BYTES + 1, 'a'), 1024))).status, 413);
  });

  test('sent again and again, ~1 MB each, leave the resident memory bounded', async () => {
    const bodyBytes = 1_000_000;
    const wire = oneByteChunksOfA(bodyBytes);
    const signup = () => send('/oauth/agent-signup', { 'content-type': 'application/x-www-form-urlencoded' }, wire);
    // A small request warms the route first, so the baseline holds the server's steady state.
    assert.ok((await send('/oauth/agent-signup', { 'content-type': 'application/x-www-form-urlencoded' }, chunked(Buffer.from('a=1')))).status >= 400);
    gc();
    const baseline = process.memoryUsage().rss;
    // One buffer per chunk cost ~400 bytes per byte of body, and it stayed; one growing buffer
    // costs a few body sizes while the request lasts.
    const bound = 24 * bodyBytes;
    for (let i = 1; i <= 3; i++) {
      assert.ok((await signup()).status >= 400);
      gc();
      const growth = process.memoryUsage().rss - baseline;
      assert.ok(growth < bound, `RSS grew by ${(growth / 2 ** 20).toFixed(1)} MiB after ${i} request(s) (bound ${(bound / 2 ** 20).toFixed(0)} MiB)`);
    }
  });
});

describe('BodyBuffer', () => {
  test('grows one buffer up to the cap, keeps every byte in order, and refuses a byte past the cap', () => {
    const buffer = new BodyBuffer(3000);
    for (let i = 0; i < 3000; i++) assert.equal(buffer.append(Uint8Array.of(i % 251)), true);
    const contents = buffer.contents();
    assert.equal(contents.length, 3000);
    assert.ok(contents.every((byte, i) => byte === i % 251));
    assert.equal(buffer.append(Uint8Array.of(1)), false);
  });

  test('a declared length is allocated once; a bad one falls back to growing', () => {
    const declared = new BodyBuffer(MAX_BODY_BYTES, 5000);
    assert.equal(declared.append(new Uint8Array(5000)), true);
    assert.equal(declared.contents().length, 5000);
    const bogus = new BodyBuffer(MAX_BODY_BYTES, Number.NaN);
    assert.equal(bogus.append(new Uint8Array(4000)), true);
    assert.equal(bogus.contents().length, 4000);
  });
});
