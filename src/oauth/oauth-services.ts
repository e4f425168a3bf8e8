import type { Config } from '../config.js';
import type { ChecksService } from '../core/checks-service.js';
import type { Clock } from '../domain/clock.js';
import type { Mailer } from '../alerts/delivery/mailer.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/store.js';
import { OAuthBearerResolver } from './bearer-resolver.js';
import { ClaimLifecycle } from './claim-lifecycle.js';
import { ClaimService } from './claim-service.js';
import { systemMailDomainResolver, type MailDomainResolver } from './email-domain.js';
import type { OAuthRepo } from '../store/oauth-repo.js';
import { SignupService } from './signup-service.js';
import { TokenService } from './token-service.js';

/** Agent signup, tokens, claims and the claim lifecycle, built once per node. */
export interface OAuthServices {
  signup: SignupService;
  tokens: TokenService;
  claims: ClaimService;
  lifecycle: ClaimLifecycle;
  /** Plugged into the authenticator (addBearerResolver). */
  bearer: OAuthBearerResolver;
}

export interface OAuthDeps {
  store: Store;
  repo: OAuthRepo;
  checks: ChecksService;
  mailer: Mailer;
  config: Config;
  clock: Clock;
  log: Logger;
  /** Tests answer for DNS; the system resolver otherwise. */
  mailDomainResolver?: MailDomainResolver;
}

export function buildOAuth(d: OAuthDeps): OAuthServices {
  const tokens = new TokenService(d.store, d.repo, d.clock);
  return {
    tokens,
    signup: new SignupService({
      store: d.store,
      repo: d.repo,
      tokens,
      mailer: d.mailer,
      resolver: d.mailDomainResolver ?? systemMailDomainResolver(),
      config: d.config,
      clock: d.clock,
      log: d.log,
    }),
    claims: new ClaimService(d.store, d.repo, d.checks, d.clock),
    lifecycle: new ClaimLifecycle(d.store, d.repo, d.checks, d.clock, d.log),
    bearer: new OAuthBearerResolver(d.store, tokens, d.clock),
  };
}
