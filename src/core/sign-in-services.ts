import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Clock } from '../domain/clock.js';
import type { Store } from '../store/store.js';
import { EmailLinkSignIn, type LinkMailer } from './email-link-sign-in.js';
import { OidcSignIn } from './oidc-sign-in.js';
import { PasskeysService } from './passkeys-service.js';
import { relyingParty } from './relying-party.js';
import type { SessionsService } from './sessions-service.js';
import type { SignInPeople } from './sign-in-people.js';

/** The sign-in ways beside the API key and the password (issue 28), built together. */
export interface SignInServices {
  sessions: SessionsService;
  people: SignInPeople;
  passkeys: PasskeysService;
  oidc: OidcSignIn;
  emailLink: EmailLinkSignIn;
  /** Whether the public URL is one a browser allows WebAuthn on (https, or http://localhost). */
  passkeysUsable: boolean;
  secureCookies: boolean;
}

export function buildSignIn(deps: {
  store: Store; clock: Clock; config: Config; sessions: SessionsService; people: SignInPeople; mailer: LinkMailer; log: Logger;
}): SignInServices {
  const { store, clock, config, sessions, people } = deps;
  const rp = relyingParty(config);
  const url = new URL(config.publicUrl);
  return {
    sessions,
    people,
    passkeys: new PasskeysService({ repo: store.passkeys, people, clock, rp }),
    oidc: new OidcSignIn({ settings: config.auth.oidc, publicUrl: config.publicUrl, dashboardUrl: config.dashboardUrl, repo: store.passkeys, store, people, clock }),
    emailLink: new EmailLinkSignIn({
      people, repo: store.passkeys, dashboardUrl: config.dashboardUrl, mailer: deps.mailer, clock, onError: (err) => deps.log.warn({ err }, 'the email sign-in link was not sent'),
    }),
    passkeysUsable: url.protocol === 'https:' || url.hostname === 'localhost',
    secureCookies: url.protocol === 'https:',
  };
}
