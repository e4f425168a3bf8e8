import type { FeatureModule } from './feature.js';
import type { AccountServices } from '../api/services.js';
import { accountRoutes } from '../api/account-routes.js';
import { identityRoutes } from '../api/identity-routes.js';
import { keyRoutes } from '../api/keys-routes.js';
import { oauthRoutes } from '../api/oauth-routes.js';
import { peopleRoutes } from '../api/people-routes.js';
import { signInRoutes } from '../api/sign-in-routes.js';
import { Authenticator } from '../front/authenticator.js';
import { buildOAuth } from '../oauth/oauth-services.js';
import { AccountsService } from '../core/accounts-service.js';
import { AuditLog } from '../core/audit-log.js';
import { People } from '../people/people.js';

declare module './feature.js' {
  interface Provided {
    accounts: AccountServices;
    people: People;
    /** Who a request is: API keys, OAuth bearer tokens, dashboard sessions. */
    auth: Authenticator;
  }
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * Accounts and the people in them: API keys, agent sign-up (OAuth), members and roles, every
 * way of signing in, sessions, and the audit log; the authenticator that tells who asks.
 */
export const accountsFeature: FeatureModule = {
  name: 'accounts',
  build({ store, config, clock, log, mailer, hasher, mailDomainResolver }, parts) {
    const checks = parts.need('checks');
    const alerts = parts.need('alerts');
    const audit = new AuditLog(store, clock);
    const people = new People({ store, config, clock, audit, mailer, derive: (d) => hasher.derive(d), log });
    const accounts: AccountServices = {
      config,
      clock,
      accounts: new AccountsService(store, config, clock),
      oauth: buildOAuth({ store, repo: store.oauth, checks, mailer, config, clock, log, mailDomainResolver }),
      alertSummary: (accountId) => alerts.summary(accountId),
    };
    const challenge = `Bearer realm="vigil", resource_metadata="${config.publicUrl}/.well-known/oauth-protected-resource"`;
    const auth = new Authenticator(store, clock, challenge);
    auth.addBearerResolver(accounts.oauth.bearer);
    auth.setSessionResolver(people.sessions, config.publicUrl);
    parts.give('accounts', accounts);
    parts.give('people', people);
    parts.give('auth', auth);
    return {
      routes: [
        ...peopleRoutes(people),
        ...signInRoutes(people.signInWays),
        ...identityRoutes(people.signInWays),
        ...accountRoutes(accounts),
        ...oauthRoutes(accounts),
        ...keyRoutes(accounts),
      ],
      jobs: [
        // Daily, and once at start: a node restarted more often than daily would otherwise never run it.
        { name: 'unclaimed-accounts', scope: 'one-central', everyMs: DAY, jitterMs: MINUTE, atStart: true, run: () => accounts.oauth.lifecycle.run() },
        ...people.jobs(),
        { name: 'audit-prune', scope: 'one-central', everyMs: DAY, jitterMs: MINUTE, atStart: true, run: () => audit.prune(config.audit.keepDays) },
      ],
    };
  },
};
