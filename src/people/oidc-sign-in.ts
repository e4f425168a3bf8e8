import { randomBytes } from 'node:crypto';
import * as oidc from 'openid-client';
import type { Config } from '../config.js';
import type { Clock } from '../domain/clock.js';
import { hashSecret } from '../domain/secrets.js';
import type { PasskeyRepo } from '../store/passkey-store.js';
import type { Store } from '../store/store.js';
import { ADMIN_EMAIL } from '../core/accounts-service.js';
import type { OpenedSession } from './sessions-service.js';
import type { Person, SignInClient, SignInPeople } from './sign-in-people.js';
import type { AssertedIdentity, SsoIdentities } from './sso-identities.js';
import { SsoLinkRefused, SsoRefused } from './sso-refused.js';

export { SsoRefused };

export const OIDC_START_PATH = '/v1/auth/oidc/start';
export const OIDC_CALLBACK_PATH = '/v1/auth/oidc/callback';
/** The cookie that ties a sign-in's callback to the browser that started it. */
export const OIDC_FLOW_COOKIE = 'vigil_sso';
/** How long a person has at the provider before the started sign-in is forgotten. */
export const OIDC_FLOW_MS = 10 * 60 * 1000;
/** How long the provider's discovery document is trusted before it is fetched again. */
const DISCOVERY_MS = 60 * 60 * 1000;
const PURPOSE = 'oidc';
/** The dashboard routes a sign-in may come back to: a hash route, nothing that leaves the dashboard. */
const RETURN_HASH = /^#\/[A-Za-z0-9_\-/.%]{0,200}$/;
/** Where a member who linked their account lands (the Security page reads the outcome from it). */
const LINKED_HASH = '#/security/linked';

/** How a callback ended: a member signed in, or a signed-in member's account at the provider linked. */
export type SsoOutcome =
  | { kind: 'signed_in'; session: OpenedSession; person: Person; returnTo: string }
  | { kind: 'linked'; person: Person; returnTo: string };

interface Flow {
  state: string;
  nonce: string;
  verifier: string;
  returnTo: string;
}

type OidcSettings = Config['auth']['oidc'];

/**
 * Single sign-on with OpenID Connect (issue 28), with openid-client: the authorization code flow
 * with PKCE (S256), state and nonce; the provider's endpoints and keys from its discovery document.
 * What the second leg needs (state, nonce, PKCE verifier, where to return) is kept in the store by
 * the hash of a random token in a short-lived HttpOnly cookie, taken once, so a callback is
 * accepted only in the browser that started it and only once. The person is the provider's
 * (issuer, subject), bound to a member at their first sign-in (SsoIdentities): a bound identity
 * signs its member in whatever email it now has; an unbound one links the member its email names
 * when the provider vouches for that email, or joins with `createRole` when that is set and the
 * email's domain allowed.
 */
export class OidcSignIn {
  private discovered: { config: oidc.Configuration; at: number } | null = null;

  constructor(
    private readonly deps: {
      settings: OidcSettings; publicUrl: string; dashboardUrl: string; repo: PasskeyRepo; store: Store; people: SignInPeople; identities: SsoIdentities; clock: Clock;
    },
  ) {}

  get enabled(): boolean {
    return this.deps.settings.issuer !== null;
  }

  get name(): string {
    return this.deps.settings.name;
  }

  get redirectUri(): string {
    return `${this.deps.publicUrl}${OIDC_CALLBACK_PATH}`;
  }

  /** Where the dashboard lands after a sign-in: `returnTo` when it is a dashboard hash route. */
  dashboardTarget(returnTo: string | null): string {
    return `${this.deps.dashboardUrl}${returnTo !== null && RETURN_HASH.test(returnTo) ? returnTo : '#/'}`;
  }

  /** The sign-in page with a message (in the fragment: never in a server's log). */
  failureTarget(message: string): string {
    return `${this.deps.dashboardUrl}#sso-error=${encodeURIComponent(message)}`;
  }

  /** Where a refused callback sends the browser: the Security page for a link, else the sign-in page. */
  refusedTarget(err: SsoRefused): string {
    if (err instanceof SsoLinkRefused) return `${this.deps.dashboardUrl}#/security/link-error=${encodeURIComponent(err.message)}`;
    return this.failureTarget(err.message);
  }

  /**
   * Starts a sign-in, or with `linking` a signed-in member's linking of their account at the
   * provider (the flow remembers the member): the provider's authorization URL and the flow token
   * for the cookie.
   */
  async start(returnTo: string | null, linking: Person | null = null): Promise<{ location: string; flowToken: string }> {
    if (linking) await this.deps.identities.assertLinkable(linking);
    const config = await this.configuration();
    const flow: Flow = {
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      verifier: oidc.randomPKCECodeVerifier(),
      returnTo: linking ? LINKED_HASH : returnTo !== null && RETURN_HASH.test(returnTo) ? returnTo : '#/',
    };
    const flowToken = randomBytes(32).toString('base64url');
    const now = this.deps.clock.now();
    await this.deps.repo.insertChallenge({
      hash: hashSecret(flowToken), purpose: PURPOSE, userId: linking?.id ?? null, data: JSON.stringify(flow), createdAt: now, expiresAt: now + OIDC_FLOW_MS,
    });
    const location = oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.redirectUri,
      scope: this.deps.settings.scopes,
      response_type: 'code',
      code_challenge: await oidc.calculatePKCECodeChallenge(flow.verifier),
      code_challenge_method: 'S256',
      state: flow.state,
      nonce: flow.nonce,
    });
    return { location: location.href, flowToken };
  }

  /**
   * The provider sent the browser back: checks the flow, the state, the code (with the PKCE
   * verifier) and the ID token (issuer, audience, nonce, signature), then opens a session, or
   * links the account to the member who started a link.
   */
  async callback(query: URLSearchParams, flowToken: string | null, client: SignInClient): Promise<SsoOutcome> {
    const row = flowToken ? await this.deps.repo.takeChallenge(hashSecret(flowToken), PURPOSE, this.deps.clock.now()) : null;
    if (!row) throw new SsoRefused('The single sign-on expired or was started in another browser; sign in again');
    const flow = JSON.parse(row.data) as Flow;
    if (row.userId !== null) {
      try {
        const { asserted } = await this.verified(query, flow);
        return { kind: 'linked', person: await this.link(row.userId, asserted, client), returnTo: flow.returnTo };
      } catch (err) {
        throw err instanceof SsoRefused ? new SsoLinkRefused(err.message) : err;
      }
    }
    const { asserted, name } = await this.verified(query, flow);
    const person = await this.member(asserted, name, client);
    return { kind: 'signed_in', session: await this.deps.people.openSession(person, 'oidc', client), person, returnTo: flow.returnTo };
  }

  /** The provider's answer to the flow, checked: who it says signs in. */
  private async verified(query: URLSearchParams, flow: Flow): Promise<{ asserted: AssertedIdentity; name: string | null }> {
    const providerError = query.get('error');
    if (providerError !== null) {
      throw new SsoRefused(`The identity provider refused the sign-in: ${query.get('error_description') ?? providerError}`);
    }
    const config = await this.configuration();
    const callbackUrl = new URL(`${this.redirectUri}?${query.toString()}`);
    let claims: oidc.IDToken;
    let accessToken: string;
    try {
      const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: flow.verifier, expectedState: flow.state, expectedNonce: flow.nonce, idTokenExpected: true,
      });
      claims = tokens.claims()!;
      accessToken = tokens.access_token;
    } catch (err) {
      throw new SsoRefused(`The identity provider's answer was not accepted: ${(err as Error).message}`);
    }
    return this.identity(config, claims, accessToken);
  }

  /** A signed-in member's link: whatever email the provider gives, the member proved who they are here. */
  private async link(userId: string, asserted: AssertedIdentity, client: SignInClient): Promise<Person> {
    const person = await this.deps.people.byId(userId);
    if (!person) throw new SsoRefused('This member was removed; ask an owner or admin');
    await this.deps.identities.linkSignedIn(person, asserted, client);
    return person;
  }

  private async identity(config: oidc.Configuration, claims: oidc.IDToken, accessToken: string): Promise<{ asserted: AssertedIdentity; name: string | null }> {
    let source: Record<string, unknown> = claims;
    if (typeof claims['email'] !== 'string') {
      source = await oidc.fetchUserInfo(config, accessToken, claims.sub).catch(() => ({}) as Record<string, unknown>);
    }
    const email = typeof source['email'] === 'string' ? source['email'].trim().toLowerCase() : '';
    const name = typeof source['name'] === 'string' && source['name'].trim() !== '' ? source['name'].trim().slice(0, 100) : null;
    return {
      // Only the boolean true vouches: a missing claim or the string "false" (some providers send strings) does not.
      asserted: { issuer: claims.iss, subject: claims.sub, email: /^[^\s@]+@[^\s@]+$/.test(email) ? email : null, emailVerified: source['email_verified'] === true },
      name,
    };
  }

  /**
   * The member this sign-in is: the one its identity is bound to; else the one its email names,
   * linked now if the email may link them; else a newcomer. A refusal that names a member (their
   * address unverified or of a domain not allowed, another subject with their address) is in
   * their audit log.
   */
  private async member(asserted: AssertedIdentity, name: string | null, client: SignInClient): Promise<Person> {
    const { settings, people, identities } = this.deps;
    const bound = await identities.boundMember(asserted);
    if (bound) return bound;
    const email = asserted.email;
    if (email === null) throw new SsoRefused('The identity provider did not give an email address (ask for the "email" scope)');
    const known = await people.byEmail(email);
    // An address the provider does not vouch for proves nothing about who signs in.
    if (!identities.emailTrusted(asserted)) {
      const message = `The identity provider has not verified ${email}`;
      throw known ? await identities.refuse(known, client, 'email_verified', message) : new SsoRefused(message);
    }
    const domain = email.slice(email.lastIndexOf('@') + 1);
    const allowed = settings.allowedDomains.map((d) => d.trim().toLowerCase().replace(/^@/, ''));
    if (allowed.length > 0 && !allowed.includes(domain)) {
      const message = `Single sign-on does not admit addresses at ${domain}`;
      throw known ? await identities.refuse(known, client, 'email', message) : new SsoRefused(message);
    }
    const person = known ?? (await this.newcomer(email, name));
    await identities.link(person, asserted, client);
    return person;
  }

  private async newcomer(email: string, name: string | null): Promise<Person> {
    const role = this.deps.settings.createRole;
    if (role === null) throw new SsoRefused(`${email} is not a member here; ask an owner or admin to invite you`);
    return this.deps.people.create(await this.joinedAccount(), email, name, role);
  }

  private async joinedAccount(): Promise<string> {
    const wanted = this.deps.settings.account ?? ADMIN_EMAIL;
    const account = (await this.deps.store.accounts.byId(wanted)) ?? (await this.deps.store.accounts.byEmail(wanted.toLowerCase()));
    if (!account) throw new SsoRefused(`auth.oidc.account names no account (${wanted}); tell the operator`);
    return account.id;
  }

  /** The provider's configuration from its discovery document, fetched again after an hour. */
  private async configuration(): Promise<oidc.Configuration> {
    const now = this.deps.clock.now();
    if (this.discovered && now - this.discovered.at < DISCOVERY_MS) return this.discovered.config;
    const { issuer, clientId, clientSecret } = this.deps.settings;
    const url = new URL(issuer!);
    // Plain http only to a provider on this machine (a test's, or one behind the same host).
    const local = url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
    let config: oidc.Configuration;
    try {
      config = await oidc.discovery(url, clientId, clientSecret, undefined, { execute: local ? [oidc.allowInsecureRequests] : [], timeout: 10 });
    } catch (err) {
      throw new SsoRefused(`The identity provider at ${issuer} cannot be reached: ${(err as Error).message}`);
    }
    this.discovered = { config, at: now };
    return config;
  }
}
