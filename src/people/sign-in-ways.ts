import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Clock } from '../domain/clock.js';
import type { Store } from '../store/store.js';
import { AttemptWindow } from './attempt-window.js';
import { EmailLinkSignIn } from './email-link-sign-in.js';
import type { MailSender } from './members-service.js';
import { OidcSignIn } from './oidc-sign-in.js';
import { PasskeysService } from './passkeys-service.js';
import { relyingParty } from './relying-party.js';
import type { SessionsService } from './sessions-service.js';
import type { SignInPeople } from './sign-in-people.js';
import { SsoIdentities } from './sso-identities.js';

/** The sign-in ways beside the API key and the password (issue 28), built together. */
export interface SignInWays {
  sessions: SessionsService;
  people: SignInPeople;
  passkeys: PasskeysService;
  oidc: OidcSignIn;
  /** Members' identities at the OpenID provider, which single sign-on finds them by (issue 34). */
  identities: SsoIdentities;
  emailLink: EmailLinkSignIn;
  /** Whether the public URL is one a browser allows WebAuthn on (https, or http://localhost). */
  passkeysUsable: boolean;
  secureCookies: boolean;
  /**
   * Ceremonies started per client address (passkey sign-in options, single sign-on starts): each
   * keeps a row until it is used or expires, so anyone may start only so many a minute.
   */
  ceremonies: AttemptWindow;
}

/** Ceremonies one client address may start per minute. */
export const CEREMONIES_PER_MINUTE = 30;

export function buildSignInWays(deps: {
  store: Store; clock: Clock; config: Config; sessions: SessionsService; people: SignInPeople; mailer: MailSender; log: Logger;
}): SignInWays {
  const { store, clock, config, sessions, people } = deps;
  const rp = relyingParty(config);
  const url = new URL(config.publicUrl);
  const emailLink = new EmailLinkSignIn({
    people, repo: store.passkeys, dashboardUrl: config.dashboardUrl, mailer: deps.mailer, clock, onError: (err) => deps.log.warn({ err }, 'the email sign-in link was not sent'),
  });
  const identities = new SsoIdentities({ store, people, clock, trustUnverifiedEmail: config.auth.oidc.trustUnverifiedEmail, issuer: config.auth.oidc.issuer, emailLinks: () => emailLink.enabled });
  return {
    sessions,
    people,
    passkeys: new PasskeysService({ repo: store.passkeys, people, clock, rp }),
    oidc: new OidcSignIn({ settings: config.auth.oidc, publicUrl: config.publicUrl, dashboardUrl: config.dashboardUrl, repo: store.passkeys, store, people, identities, clock }),
    identities,
    emailLink,
    passkeysUsable: url.protocol === 'https:' || url.hostname === 'localhost',
    secureCookies: url.protocol === 'https:',
    ceremonies: new AttemptWindow(clock, 60_000),
  };
}
