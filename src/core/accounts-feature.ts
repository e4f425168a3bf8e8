import type { FeatureModule } from '../feature.js';
import type { AccountServices, PeopleServices } from '../api/services.js';
import { accountRoutes } from '../api/account-routes.js';
import { identityRoutes } from '../api/identity-routes.js';
import { keyRoutes } from '../api/keys-routes.js';
import { oauthRoutes } from '../api/oauth-routes.js';
import { peopleRoutes } from '../api/people-routes.js';
import { signInRoutes } from '../api/sign-in-routes.js';
import { Authenticator } from '../front/authenticator.js';
import { buildOAuth } from '../oauth/oauth-services.js';
import { AccountsService } from './accounts-service.js';
import { AuditLog } from './audit-log.js';
import { MemberPeople } from './member-people.js';
import { MemberSessions } from './member-sessions.js';
import { MembersService } from './members-service.js';
import { Passwords } from './passwords.js';
import { SessionsService } from './sessions-service.js';
import { SignInService } from './sign-in-service.js';
import { buildSignIn } from './sign-in-services.js';
import { SignInThrottle } from './sign-in-throttle.js';
import { TotpService } from './totp-service.js';

declare module '../feature.js' {
  interface Provided {
    accounts: AccountServices;
    people: PeopleServices;
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
    const sessions = new SessionsService(store, clock, config);
    const audit = new AuditLog(store, clock);
    const members = new MembersService(store, config, clock, audit, mailer);
    const passwords = new Passwords((d) => hasher.derive(d));
    const signIn = new SignInService(store, clock, sessions, members, audit, new SignInThrottle(config.auth.signIn, clock, store), passwords);
    const people: PeopleServices = {
      config,
      clock,
      members,
      signIn,
      totp: new TotpService(store, clock, signIn, audit),
      sessions: new MemberSessions(store, clock, audit),
      audit,
    };
    const accounts: AccountServices = {
      config,
      clock,
      accounts: new AccountsService(store, config, clock),
      sessions,
      signInWays: buildSignIn({ store, clock, config, sessions, people: new MemberPeople({ store, sessions, members, audit }), mailer, log }),
      oauth: buildOAuth({ store, repo: store.oauth, checks, mailer, config, clock, log, mailDomainResolver }),
      alertSummary: (accountId) => alerts.summary(accountId),
    };
    const challenge = `Bearer realm="vigil", resource_metadata="${config.publicUrl}/.well-known/oauth-protected-resource"`;
    const auth = new Authenticator(store, clock, challenge);
    auth.addBearerResolver(accounts.oauth.bearer);
    auth.setSessionResolver(sessions, config.publicUrl);
    parts.give('accounts', accounts);
    parts.give('people', people);
    parts.give('auth', auth);
    return {
      routes: [
        ...peopleRoutes(people, accounts),
        ...signInRoutes(accounts.signInWays),
        ...identityRoutes(accounts.signInWays),
        ...accountRoutes(accounts),
        ...oauthRoutes(accounts),
        ...keyRoutes(accounts),
      ],
      jobs: [
        // Daily, and once at start: a node restarted more often than daily would otherwise never run it.
        { name: 'unclaimed-accounts', scope: 'one-central', everyMs: DAY, jitterMs: MINUTE, atStart: true, run: () => accounts.oauth.lifecycle.run() },
        { name: 'sessions-prune', scope: 'one-central', everyMs: HOUR, jitterMs: MINUTE, run: () => sessions.pruneExpired() },
        { name: 'sign-in-attempts-prune', scope: 'one-central', everyMs: HOUR, jitterMs: MINUTE, run: () => signIn.pruneAttempts() },
        { name: 'sign-in-challenges-prune', scope: 'one-central', everyMs: HOUR, jitterMs: MINUTE, run: () => accounts.signInWays.passkeys.pruneChallenges() },
        { name: 'audit-prune', scope: 'one-central', everyMs: DAY, jitterMs: MINUTE, atStart: true, run: () => audit.prune(config.audit.keepDays) },
      ],
    };
  },
};
