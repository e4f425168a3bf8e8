import assert from 'node:assert/strict';
import { send, type TestResponse, type TestServer } from './server.js';

/** Requests made with a member's session cookie (mutations send the server's own Origin). */
export type AsMember = (method: string, path: string, body?: unknown) => Promise<TestResponse>;

export function withCookie(srv: TestServer, cookie: string): AsMember {
  return (method, path, body) => {
    const headers: Record<string, string> = { cookie };
    if (method !== 'GET') headers['origin'] = srv.app.config.publicUrl;
    return send(srv.url, '', method, path, { key: null, body, headers });
  };
}

export function cookieOf(res: TestResponse): string {
  const cookie = /^((?:__Host-)?vigil_session=[^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1];
  assert.ok(cookie, `a session cookie was set: ${res.status} ${res.text}`);
  return cookie;
}

/** The token of a set-up link (`…#setup=<token>`). */
export function setupToken(setupUrl: string): string {
  const token = /#setup=([\w-]+)$/.exec(setupUrl)?.[1];
  assert.ok(token, `a set-up link: ${setupUrl}`);
  return token;
}

export async function signInWithPassword(srv: TestServer, email: string, password: string, totp?: string): Promise<TestResponse> {
  return send(srv.url, '', 'POST', '/v1/public/sessions', { key: null, body: totp === undefined ? { email, password } : { email, password, totp } });
}

export interface Member {
  id: string;
  email: string;
  password: string;
  cookie: string;
  as: AsMember;
}

let n = 0;

/**
 * A member with `role` in the account of `key` (the admin key by default): invited through the
 * API, password set through the set-up link, signed in.
 */
export async function addMember(srv: TestServer, role: string, key?: string): Promise<Member> {
  const email = `${role}-${process.pid}-${++n}@example.com`;
  const invited = await srv.request('POST', '/v1/public/members', { key, body: { email, role } });
  assert.equal(invited.status, 201, invited.text);
  const password = `correct horse ${n} battery`;
  const setup = await send(srv.url, '', 'POST', '/v1/public/password-setup', { key: null, body: { token: setupToken(invited.body.data.setupUrl), password } });
  assert.equal(setup.status, 201, setup.text);
  const cookie = cookieOf(setup);
  return { id: invited.body.data.id, email, password, cookie, as: withCookie(srv, cookie) };
}
