import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { AuditLog } from '../core/audit-log.js';
import type { Clock } from '../domain/clock.js';
import type { Store } from '../store/store.js';
import type { ScopedJob } from '../util/job-runner.js';
import type { Derivation } from './password-hasher.js';
import { MembersService, type MailSender } from './members-service.js';
import { PasswordSignIn } from './password-sign-in.js';
import { Passwords } from './passwords.js';
import { SessionList } from './session-list.js';
import { SessionsService } from './sessions-service.js';
import { MemberPeople } from './sign-in-people.js';
import { SignInThrottle } from './sign-in-throttle.js';
import { buildSignInWays, type SignInWays } from './sign-in-ways.js';
import { TotpService } from './totp-service.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export interface PeopleDeps {
  store: Store;
  config: Config;
  clock: Clock;
  /** The account's audit log, which every change and sign-in of a member goes to. */
  audit: AuditLog;
  /** Invitations and email sign-in links. */
  mailer: MailSender;
  /** Hashes a password off the main thread (the app's PasswordHasher, which it closes on stop). */
  derive(d: Derivation): Promise<Buffer>;
  log: Logger;
}

/**
 * People and how they sign in (issue 28, issue 34): members and roles, their sessions, passwords
 * with TOTP, passkeys, single sign-on and email links. The one entry the API and the app use:
 * built once from the store, it hands the routes their services and the job runner its jobs.
 */
export class People {
  readonly config: Config;
  readonly clock: Clock;
  readonly audit: AuditLog;
  readonly members: MembersService;
  /** Opening, resolving and ending sessions (API key, login link, every sign-in way ends here). */
  readonly sessions: SessionsService;
  /** A member's sessions as they and their managers list and end them. */
  readonly sessionList: SessionList;
  /** Password (and TOTP) sign-in and set-up links. */
  readonly passwordSignIn: PasswordSignIn;
  readonly totp: TotpService;
  /** Passkeys, single sign-on and email links. */
  readonly signInWays: SignInWays;

  constructor(deps: PeopleDeps) {
    const { store, config, clock, audit } = deps;
    this.config = config;
    this.clock = clock;
    this.audit = audit;
    this.sessions = new SessionsService(store, clock, config);
    this.members = new MembersService(store, config, clock, audit, deps.mailer);
    this.sessionList = new SessionList(store, clock, audit);
    const throttle = new SignInThrottle(config.auth.signIn, clock, store);
    this.passwordSignIn = new PasswordSignIn(store, clock, this.sessions, this.members, audit, throttle, new Passwords((d) => deps.derive(d)));
    this.totp = new TotpService(store, clock, this.passwordSignIn, audit);
    const people = new MemberPeople({ store, sessions: this.sessions, members: this.members, audit });
    this.signInWays = buildSignInWays({ store, clock, config, sessions: this.sessions, people, mailer: deps.mailer, log: deps.log });
  }

  /** What expires on its own: sessions, counted sign-in attempts, passkey challenges. */
  jobs(): ScopedJob[] {
    return [
      { name: 'sessions-prune', scope: 'one-central', everyMs: HOUR, jitterMs: MINUTE, run: () => this.sessions.pruneExpired() },
      { name: 'sign-in-attempts-prune', scope: 'one-central', everyMs: HOUR, jitterMs: MINUTE, run: () => this.passwordSignIn.pruneAttempts() },
      { name: 'sign-in-challenges-prune', scope: 'one-central', everyMs: HOUR, jitterMs: MINUTE, run: () => this.signInWays.passkeys.pruneChallenges() },
    ];
  }
}
