import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider, { type Configuration } from 'oidc-provider';

export interface TestIdentity {
  /** What the person types as "login" on the provider's page; also their `sub`. */
  login: string;
  /** Changed in place by a test to stand for an address changed at the provider. */
  email: string;
  name?: string;
  /**
   * What the provider sends as `email_verified`: true unless said otherwise; null leaves the
   * claim out; a string stands for providers that send `"false"`.
   */
  emailVerified?: boolean | string | null;
}

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Registers the relying party's redirect URI (known once Vigil has its port) and starts answering. */
  serve(redirectUri: string): void;
  stop(): Promise<void>;
}

/**
 * A real OpenID provider (panva's oidc-provider, its development login pages) on a free
 * 127.0.0.1 port, with one confidential client and the given people. Any password signs a
 * listed login in; consent is given at once for the client (the provider remembers a grant).
 * The port is taken before the relying party starts, so its config can name the issuer.
 */
export async function startOidcProvider(people: TestIdentity[]): Promise<TestOidcProvider> {
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | null = null;
  const server = createServer((req, res) => {
    if (handler) handler(req, res);
    else res.writeHead(503).end('not serving yet');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'vigil-test';
  const clientSecret = 'vigil-test-secret-0123456789abcdef';
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'test', use: 'sig', alg: 'RS256' };
  const byLogin = new Map(people.map((p) => [p.login, p]));

  return {
    issuer,
    clientId,
    clientSecret,
    serve(redirectUri) {
      const configuration: Configuration = {
        clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri], grant_types: ['authorization_code'], response_types: ['code'] }],
        jwks: { keys: [jwk] },
        cookies: { keys: ['oidc-test-cookie-key'] },
        pkce: { required: () => true },
        claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
        features: { devInteractions: { enabled: true } },
        ttl: { Interaction: 600, Grant: 600, Session: 600, AccessToken: 600, AuthorizationCode: 60, IdToken: 600 },
        async findAccount(_ctx, id) {
          const person = byLogin.get(id);
          if (!person) return undefined;
          return {
            accountId: id,
            claims: async () => ({
              sub: id, email: person.email, name: person.name,
              ...(person.emailVerified === null ? {} : { email_verified: person.emailVerified ?? true }),
            }),
          };
        },
        // Consent for the one client, at once: the tests are about the relying party.
        async loadExistingGrant(ctx) {
          const accountId = ctx.oidc.session?.accountId;
          if (!accountId || !byLogin.has(accountId)) return undefined;
          const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId });
          grant.addOIDCScope('openid email profile');
          await grant.save();
          return grant;
        },
      };
      const provider = new Provider(issuer, configuration);
      handler = provider.callback();
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
