import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cookieValue, setCookie } from '../../src/util/cookies.js';
import { sessionToken } from '../../src/people/sessions-service.js';

test('a Cookie header gives the first value of the name asked, as sent, and nothing for a name it lacks', () => {
  const header = 'theme=dark; vigil_sso=abc.def; other=1; vigil_sso=second';
  assert.equal(cookieValue(header, 'vigil_sso'), 'abc.def');
  assert.equal(cookieValue(header, 'theme'), 'dark');
  assert.equal(cookieValue(header, 'sso'), null, 'a suffix of a name is not the name');
  assert.equal(cookieValue('=x; vigil_sso', 'vigil_sso'), null, 'parts without a name or a value are skipped');
  assert.equal(cookieValue(undefined, 'theme'), null);
  assert.equal(cookieValue('', 'theme'), null);
});

test('the session token: the __Host- cookie wins over the plain name wherever it stands', () => {
  assert.equal(sessionToken('vigil_session=old; __Host-vigil_session=new'), 'new');
  assert.equal(sessionToken('vigil_session=old; x=1'), 'old');
  assert.equal(sessionToken('x=1'), null);
  assert.equal(sessionToken(undefined), null);
});

test('Set-Cookie values carry every attribute, HttpOnly always, Secure only when asked, whole seconds never negative', () => {
  assert.equal(
    setCookie('vigil_session', 'tok', { path: '/', maxAgeSeconds: 604_799.9, sameSite: 'Strict', secure: true }),
    'vigil_session=tok; Path=/; Max-Age=604799; HttpOnly; SameSite=Strict; Secure',
  );
  assert.equal(
    setCookie('vigil_sso', '', { path: '/v1/auth/oidc/callback', maxAgeSeconds: -3, sameSite: 'Lax', secure: false }),
    'vigil_sso=; Path=/v1/auth/oidc/callback; Max-Age=0; HttpOnly; SameSite=Lax',
  );
});
