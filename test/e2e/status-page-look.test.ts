import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/server.js';
import { assertError, assertStatus, createCheck, newAccount, NO_PROBES, rawRequest, type Actor } from './util.js';

/**
 * A status page's own look (issue 29): logo, accent colour, footer, favicon and the "Powered by"
 * line, set through the API and rendered without letting HTML or CSS in.
 */
let server: TestServer;
let owner: Actor;
let checkId: string;
const PAGES = '/v1/public/status-pages';

before(async () => {
  server = await startServer({}, undefined, NO_PROBES);
  owner = newAccount(server, { tier: 'pro' });
  checkId = await createCheck(server, { url: 'https://look.example.com', name: 'Look' }, owner.key);
});

after(() => server.stop());

const create = (body: Record<string, unknown>) => server.request('POST', PAGES, { key: owner.key, body: { title: 'Look', checkIds: [checkId], ...body } });
const html = async (slug: string) => (await rawRequest(server, 'GET', `/status/${slug}`, {})).text;

test('the look is saved, shown, changed and removed', async () => {
  const res = await create({
    slug: 'looks', logoUrl: 'https://cdn.acme.example/logo.svg', accentColor: '#E8590C', footerText: 'Acme Inc.\nSupport: help@acme.example',
    favicon: 'https://cdn.acme.example/favicon.ico', hidePoweredBy: true,
  });
  assertStatus(res, 201);
  const page = res.body.data;
  assert.equal(page.accentColor, '#e8590c', 'lower-cased');
  assert.equal(page.hidePoweredBy, true);
  let text = await html('looks');
  assert.match(text, /<img class="logo" src="https:\/\/cdn\.acme\.example\/logo\.svg" alt="Look"/);
  assert.match(text, /<link rel="icon" href="https:\/\/cdn\.acme\.example\/favicon\.ico">/);
  assert.match(text, /:root\{--accent:#e8590c\}<\/style>/);
  assert.match(text, /<p class="foot">Acme Inc\.\nSupport: help@acme\.example<\/p>/);
  assert.doesNotMatch(text, /Powered by Vigil/);

  const patched = await server.request('PATCH', `${PAGES}/${page.id}`, { key: owner.key, body: { logoUrl: null, accentColor: null, footerText: '', hidePoweredBy: false } });
  assertStatus(patched, 200);
  assert.equal(patched.body.data.favicon, 'https://cdn.acme.example/favicon.ico', 'fields left out stay');
  assert.equal(patched.body.data.footerText, null, 'a blank footer is none');
  text = await html('looks');
  assert.doesNotMatch(text, /class="logo"|--accent:#e8590c|class="foot"/);
  assert.match(text, /Powered by Vigil/);
});

test('HTML and CSS injection is refused or rendered inert', async () => {
  const refused: Array<[Record<string, unknown>, RegExp]> = [
    [{ logoUrl: 'javascript:alert(1)' }, /^logoUrl must be an https URL/],
    [{ logoUrl: 'http://cdn.example.com/logo.png' }, /^logoUrl must be an https URL/],
    [{ logoUrl: 'data:image/svg+xml,<svg onload=alert(1)>' }, /^logoUrl must be an https URL/],
    [{ logoUrl: 'https://user:pass@cdn.example.com/logo.png' }, /^logoUrl must not carry a user name or password/],
    [{ favicon: '//evil.example/x.ico' }, /^favicon must be an https URL/],
    [{ accentColor: 'red' }, /^accentColor must be a hex colour/],
    [{ accentColor: '#fff;}body{display:none' }, /^accentColor must be at most 7 characters|^accentColor must be a hex colour/],
    [{ accentColor: '#ff}</' }, /^accentColor must be a hex colour/],
    [{ accentColor: 'url(x)' }, /^accentColor must be a hex colour/],
    [{ footerText: 'a\u0000b' }, /^footerText must not contain control characters/],
    [{ footerText: 'x'.repeat(501) }, /^footerText must be at most 500/],
  ];
  for (const [body, message] of refused) assertError(await create({ slug: 'refused', ...body }), 400, message);

  const res = await create({
    slug: 'inert',
    title: 'Look</title><script>alert(1)</script>',
    logoUrl: 'https://cdn.example.com/logo.png?a="><script>alert(1)</script>&b=\'x',
    footerText: '</p><script>alert(2)</script><style>body{display:none}</style><a href="javascript:alert(3)">x</a>',
  });
  assertStatus(res, 201);
  const text = await html('inert');
  const scripts = text.match(/<script\b/g) ?? [];
  assert.equal(scripts.length, 1, 'only the page\'s own refresh script');
  assert.equal((text.match(/<style\b/g) ?? []).length, 1, 'only the page\'s own style');
  assert.doesNotMatch(text, /href="javascript:/);
  assert.match(text, /<p class="foot">&#60;\/p&#62;&#60;script&#62;alert\(2\)&#60;\/script&#62;/);
  const logo = /<img class="logo" src="([^"]*)"/.exec(text)![1]!;
  assert.ok(!logo.includes('<') && !logo.includes('"'), logo);
});
