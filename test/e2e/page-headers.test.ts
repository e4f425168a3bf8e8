import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { startServer, send, type TestServer } from '../helpers/server.js';
import { addMember } from '../helpers/people.js';
import { NO_PROBES } from './util.js';

/**
 * Issue 34 item 6: every HTML page sends a Content-Security-Policy without 'unsafe-inline'
 * scripts (each inline script it carries is allowed by its hash), frame-ancestors, nosniff and a
 * Referrer-Policy; a status page is framed only by the origins its owner lists; the session
 * cookie is `__Host-` under https, and the name used before is still read.
 */

interface Answer {
  status: number;
  headers: Record<string, string | undefined>;
  text: string;
}

const PAGES = '/v1/public/status-pages';
let srv: TestServer;
let slug: string;
let pageId: string;

before(async () => {
  srv = await startServer({}, undefined, NO_PROBES);
  const check = await srv.request('POST', '/v1/public/checks', { body: { url: 'https://headers.example.com', checkFrequency: 5 } });
  const page = await srv.request('POST', PAGES, { body: { slug: 'headers', title: 'Headers', checkIds: [check.body.data.id], customDomain: 'status.headers.test' } });
  assert.equal(page.status, 201, page.text);
  slug = page.body.data.slug;
  pageId = page.body.data.id;
});
after(() => srv.stop());

/** A request through node:http, so the Host header is the test's to choose. */
function fetchPage(method: string, path: string, opts: { host?: string; form?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    if (opts.host) headers.host = opts.host;
    if (opts.form !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    const req = httpRequest(`${srv.url}${path}`, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v])), text }));
    });
    req.on('error', reject);
    req.end(opts.form);
  });
}

function directives(csp: string): Map<string, string[]> {
  return new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).filter((p) => p[0]).map(([name, ...values]) => [name!, values]));
}

/** What every HTML answer must carry; returns the CSP's directives for further checks. */
function assertPageHeaders(what: string, res: Answer): Map<string, string[]> {
  assert.match(res.headers['content-type'] ?? '', /^text\/html/, `${what}: an HTML page (${res.status})`);
  const csp = res.headers['content-security-policy'];
  assert.ok(csp, `${what}: a Content-Security-Policy`);
  const d = directives(csp);
  assert.deepEqual(d.get('default-src'), ["'none'"], `${what}: nothing is allowed unless named (${csp})`);
  const scripts = d.get('script-src') ?? [];
  assert.ok(d.has('script-src'), `${what}: script-src is named (${csp})`);
  assert.ok(!scripts.includes("'unsafe-inline'") && !scripts.includes("'unsafe-eval'") && !scripts.includes('*'), `${what}: no unsafe scripts (${csp})`);
  assert.ok(d.has('frame-ancestors'), `${what}: frame-ancestors (${csp})`);
  assert.deepEqual(d.get('base-uri'), ["'none'"], `${what}: base-uri (${csp})`);
  assert.equal(res.headers['x-content-type-options'], 'nosniff', `${what}: nosniff`);
  assert.match(res.headers['referrer-policy'] ?? '', /^(no-referrer|strict-origin-when-cross-origin)$/, `${what}: Referrer-Policy`);
  // Every inline script the page carries is allowed by its hash (a script added without one would not run).
  for (const [, body] of res.text.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)) {
    const hash = `'sha256-${createHash('sha256').update(body!, 'utf8').digest('base64')}'`;
    assert.ok(scripts.includes(hash), `${what}: its inline script is allowed by ${hash} (${csp})`);
  }
  for (const [, src] of res.text.matchAll(/<script[^>]*\bsrc="([^"]+)"/g)) {
    assert.ok(src!.startsWith('/') && scripts.includes("'self'"), `${what}: its script ${src} is Vigil's own and allowed`);
  }
  return d;
}

describe('HTML pages (issue 34 item 6)', () => {
  test('every HTML route of the table sends the security headers', async () => {
    const dashboard: Array<[string, string, string, { host?: string; form?: string }?]> = [
      ['the dashboard (sign-in included)', 'GET', '/dashboard'],
    ];
    const pages: Array<[string, string, string, { host?: string; form?: string }?]> = [
      ['a status page', 'GET', `/status/${slug}`],
      ['a status page on its custom domain', 'GET', '/', { host: 'status.headers.test' }],
      ['an unknown status page', 'GET', '/status/no-such-page'],
    ];
    const links: Array<[string, string, string, { host?: string; form?: string }?]> = [
      ['a claim link', 'GET', '/claim/vc_not-a-real-claim-token'],
      ['a claim link, pressed', 'POST', '/claim/vc_not-a-real-claim-token', { form: '' }],
      ['the subscribe form\'s answer', 'POST', `/status/${slug}/subscribe`, { form: 'kind=email&email=not-an-address' }],
      ['a subscription confirmation link', 'GET', '/status-subscription/not-a-token/confirm'],
      ['a subscription confirmation, pressed', 'POST', '/status-subscription/not-a-token/confirm', { form: '' }],
      ['an unsubscribe link', 'GET', '/status-subscription/not-a-token/unsubscribe'],
      ['an unsubscribe link, pressed', 'POST', '/status-subscription/not-a-token/unsubscribe', { form: '' }],
    ];
    for (const [what, method, path, opts] of dashboard) {
      const d = assertPageHeaders(what, await fetchPage(method, path, opts));
      assert.deepEqual(d.get('frame-ancestors'), ["'none'"], what);
      assert.deepEqual(d.get('script-src'), ["'self'"], `${what}: its bundle only`);
    }
    for (const [what, method, path, opts] of pages) {
      const res = await fetchPage(method, path, opts);
      const d = assertPageHeaders(what, res);
      assert.deepEqual(d.get('frame-ancestors'), ["'none'"], `${what}: framed by no site unless its owner says so`);
      assert.equal(res.headers['x-frame-options'], 'DENY', what);
    }
    for (const [what, method, path, opts] of links) {
      const res = await fetchPage(method, path, opts);
      const d = assertPageHeaders(what, res);
      assert.deepEqual(d.get('frame-ancestors'), ["'none'"], what);
      assert.deepEqual(d.get('script-src'), ["'none'"], `${what}: runs no script`);
      assert.equal(res.headers['referrer-policy'], 'no-referrer', `${what}: its URL holds a token`);
    }
  });

  test('no route of the table answers HTML without the headers (a new page cannot be missed)', async () => {
    let html = 0;
    for (const route of srv.app.routes) {
      if (route.auth !== 'none' || route.method === 'DELETE' || route.method === 'PATCH') continue;
      const path = route.path.replace(':page', slug).replace(/:[A-Za-z]+/g, 'x');
      const res = await fetchPage(route.method, path, route.method === 'POST' ? { form: '' } : {});
      if (!(res.headers['content-type'] ?? '').startsWith('text/html')) continue;
      html++;
      assertPageHeaders(`${route.method} ${route.path}`, res);
    }
    assert.ok(html >= 8, `the HTML routes were reached: ${html}`);
  });

  test('a status page is framed only by the origins its owner lists', async () => {
    const set = (origins: unknown) => srv.request('PATCH', `${PAGES}/${pageId}`, { body: { embedAllowedOrigins: origins } });
    const patched = await set(['HTTPS://WWW.Example.com:443', 'https://intranet.example.org:8443', 'http://localhost:3000/', 'https://www.example.com']);
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(patched.body.data.embedAllowedOrigins, ['https://www.example.com', 'https://intranet.example.org:8443', 'http://localhost:3000'], 'written as origins, once each');
    for (const [what, path, host] of [['by slug', `/status/${slug}`], ['on its domain', '/', 'status.headers.test']] as const) {
      const res = await fetchPage('GET', path, { host });
      const d = assertPageHeaders(what, res);
      assert.deepEqual(d.get('frame-ancestors'), ['https://www.example.com', 'https://intranet.example.org:8443', 'http://localhost:3000'], what);
      assert.equal(res.headers['x-frame-options'], undefined, `${what}: X-Frame-Options cannot name origins, so it is left out`);
    }
    // Another page of the server keeps refusing frames.
    const other = await srv.request('POST', PAGES, { body: { slug: 'unframed', title: 'Unframed', checkIds: [] } });
    assert.deepEqual(other.body.data.embedAllowedOrigins, [], 'the default is none');
    assert.deepEqual(directives((await fetchPage('GET', '/status/unframed')).headers['content-security-policy']!).get('frame-ancestors'), ["'none'"]);

    const refused = [
      '*', 'https://*.example.com', 'https://www.example.com/embed', 'https://www.example.com?x=1', 'javascript:alert(1)', 'ftp://files.example.com',
      'https://user:pw@www.example.com', 'null', "https://a.example.com 'unsafe-inline'", 'www.example.com', 'https://a.example.com;script-src *',
    ];
    for (const origin of refused) {
      const res = await set([origin]);
      assert.equal(res.status, 400, `${origin}: ${res.text}`);
      assert.match(res.body.error.message, /embedAllowedOrigins/, res.text);
    }
    assert.equal((await set(Array.from({ length: 21 }, (_, i) => `https://s${i}.example.com`))).status, 400, 'at most 20');
    assert.equal((await set('https://www.example.com')).status, 400, 'a list');
    const kept = await srv.request('GET', `${PAGES}/${pageId}`);
    assert.equal(kept.body.data.embedAllowedOrigins.length, 3, 'a refused change changes nothing');

    // Emptied: frames are refused again at once (the page's render is purged).
    assert.equal((await set([])).status, 200);
    const after = await fetchPage('GET', `/status/${slug}`);
    assert.deepEqual(directives(after.headers['content-security-policy']!).get('frame-ancestors'), ["'none'"]);
    assert.equal(after.headers['x-frame-options'], 'DENY');
  });

  test('the field travels through OpenAPI and the monitoring file', async () => {
    const openapi = await srv.request('GET', '/v1/openapi.json', { key: null });
    const schemas = openapi.body.components.schemas;
    for (const name of ['StatusPage', 'CreateStatusPage', 'UpdateStatusPage']) assert.ok(schemas[name].properties.embedAllowedOrigins, `${name} documents it`);
    const file = JSON.stringify({ version: 1, statusPages: { filed: { title: 'Filed', embedAllowedOrigins: ['https://docs.example.com'], checks: [] } } });
    const applied = await srv.request('POST', '/v1/public/config/apply', { rawBody: file, headers: { 'content-type': 'application/json', 'idempotency-key': 'embed-file' } });
    assert.equal(applied.status, 200, applied.text);
    const page = (await srv.request('GET', PAGES)).body.data.find((p: { slug: string }) => p.slug === 'filed');
    assert.deepEqual(page.embedAllowedOrigins, ['https://docs.example.com']);
    const bad = JSON.stringify({ version: 1, statusPages: { filed: { title: 'Filed', embedAllowedOrigins: ['*'], checks: [] } } });
    const plan = await srv.request('POST', '/v1/public/config/plan', { rawBody: bad, headers: { 'content-type': 'application/json' } });
    assert.equal(plan.status, 400, plan.text);
  });
});

describe('the session cookie under https (issue 34 item 6)', () => {
  let secure: TestServer;
  before(async () => {
    secure = await startServer({ publicUrl: 'https://vigil.example.test' }, undefined, NO_PROBES);
  });
  after(() => secure.stop());

  test('is __Host-vigil_session: Secure, Path=/, no Domain; the old name is still read; sign-out clears both', async () => {
    const member = await addMember(secure, 'viewer');
    assert.match(member.cookie, /^__Host-vigil_session=vs_/, member.cookie);
    const signIn = await send(secure.url, '', 'POST', '/v1/public/sessions', { key: null, body: { email: member.email, password: member.password } });
    assert.equal(signIn.status, 201, signIn.text);
    const [setCookie] = signIn.headers.getSetCookie();
    assert.match(setCookie!, /^__Host-vigil_session=vs_[\w-]+; /);
    const attributes = setCookie!.split(';').slice(1).map((a) => a.trim());
    assert.ok(attributes.includes('Secure') && attributes.includes('Path=/') && attributes.includes('HttpOnly') && attributes.includes('SameSite=Strict'), setCookie);
    assert.ok(!attributes.some((a) => /^domain=/i.test(a)), `no Domain: ${setCookie}`);
    const token = /=([^;]+)/.exec(setCookie!)![1]!;

    const read = (cookie: string) => send(secure.url, '', 'GET', '/v1/public/sessions/current', { key: null, headers: { cookie } });
    assert.equal((await read(`__Host-vigil_session=${token}`)).status, 200);
    // A member signed in before the upgrade holds the plain name: still signed in.
    assert.equal((await read(`vigil_session=${token}`)).status, 200, 'the name used before is read during an upgrade');
    // Both sent: the __Host- one counts (a cookie another host could have set does not shadow it).
    assert.equal((await read(`vigil_session=vs_${'x'.repeat(43)}; __Host-vigil_session=${token}`)).status, 200);
    assert.equal((await read(`__Host-vigil_session=vs_${'x'.repeat(43)}; vigil_session=${token}`)).status, 401);

    const out = await send(secure.url, '', 'DELETE', '/v1/public/sessions/current', { key: null, headers: { cookie: `__Host-vigil_session=${token}`, origin: 'https://vigil.example.test' } });
    assert.equal(out.status, 204, out.text);
    const cleared = out.headers.getSetCookie();
    assert.ok(cleared.some((c) => /^__Host-vigil_session=; .*Max-Age=0/.test(c)), cleared.join(' | '));
    assert.ok(cleared.some((c) => /^vigil_session=; .*Max-Age=0/.test(c)), cleared.join(' | '));
    assert.equal((await read(`__Host-vigil_session=${token}`)).status, 401, 'signed out');
  });

  test('over plain http the cookie keeps its plain name (a browser refuses __Host- without https)', async () => {
    const member = await addMember(srv, 'viewer');
    assert.match(member.cookie, /^vigil_session=vs_/);
  });
});
