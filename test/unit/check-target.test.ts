import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTarget } from '../../src/core/check-target.js';

const key = (type: Parameters<typeof parseTarget>[0], url: string) => {
  const r = parseTarget(type, url);
  return r.ok ? r.key : `error: ${r.message}`;
};

test('http targets normalise scheme and host case and drop the default port', () => {
  assert.equal(key('website', 'HTTPS://Example.COM:443/Path?q=1'), 'https://example.com/Path?q=1');
  assert.equal(key('website', 'http://example.com'), key('website', 'http://EXAMPLE.com:80/'));
  assert.notEqual(key('website', 'http://example.com:8080/'), key('website', 'http://example.com/'));
  assert.match(key('website', 'ftp://example.com'), /^error/);
  assert.match(key('website', 'not a url'), /^error/);
  assert.match(key('website', 'https://user:pw@example.com'), /^error/);
});

test('tcp and udp need host:port', () => {
  assert.equal(key('tcp', 'tcp://DB.local:5432'), 'tcp://db.local:5432');
  assert.match(key('tcp', 'tcp://db.local'), /needs a port/);
  assert.match(key('tcp', 'http://db.local:80'), /^error/);
  assert.equal(key('udp', 'udp://127.0.0.1:53'), 'udp://127.0.0.1:53');
  assert.equal(key('tcp', 'tcp://db.local:5432/'), 'tcp://db.local:5432', 'a bare trailing slash is nothing');
  for (const [type, url] of [['tcp', 'tcp://db.local:5432/path'], ['udp', 'udp://h:53?x=1'], ['smtp', 'smtp://mail.example.com/inbox'], ['imap', 'imap://h#frag']] as const) {
    assert.match(key(type, url), /^error: url is not a valid/, `${url}: a path or query would be ignored, so it is refused`);
  }
});

test('ping accepts a bare host or icmp://host', () => {
  assert.equal(key('ping', 'Example.com'), 'icmp://example.com');
  assert.equal(key('ping', 'icmp://10.0.0.1'), 'icmp://10.0.0.1');
  assert.match(key('ping', 'http://example.com'), /^error/);
});

test('dns accepts a bare name or dns://resolver/name?type=', () => {
  assert.equal(key('dns', 'Example.com'), 'example.com');
  assert.equal(key('dns', 'dns://1.1.1.1/example.com?type=mx'), 'dns://1.1.1.1/example.com?type=MX');
  assert.equal(key('dns', 'dns://127.0.0.1:5353/example.com'), 'dns://127.0.0.1:5353/example.com?type=A');
  assert.match(key('dns', 'dns://1.1.1.1/example.com?type=SRVX'), /unsupported DNS record type/);
});

test('domain is a bare registrable name, not an IP or URL', () => {
  assert.equal(key('domain', 'Example.ORG'), 'example.org');
  assert.match(key('domain', 'https://example.org'), /^error/);
  assert.match(key('domain', '127.0.0.1'), /^error/);
  assert.match(key('domain', 'localhost'), /^error/);
});

test('mail protocols take their schemes and default ports', () => {
  assert.equal(key('smtp', 'smtp://mail.example.com:25'), 'smtp://mail.example.com');
  assert.equal(key('smtp', 'smtps://mail.example.com'), 'smtps://mail.example.com');
  assert.equal(key('imap', 'imaps://mail.example.com:993'), 'imaps://mail.example.com');
  assert.match(key('pop3', 'imap://mail.example.com'), /^error/);
  assert.equal(key('websocket', 'WSS://Echo.example.com/socket'), 'wss://echo.example.com/socket');
});
