import type { Mail } from '../alerts/delivery/mailer.js';
import type { Clock } from '../domain/clock.js';
import { errors } from '../domain/errors.js';
import { LOGIN_LINK_MS, type SessionsService } from './sessions-service.js';
import type { Person, SignInPeople } from './sign-in-people.js';

const WINDOW_MS = 15 * 60 * 1000;
/** Links sent to one address, and asked for by one client, per WINDOW_MS. */
const PER_EMAIL = 3;
const PER_CLIENT = 10;

export interface LinkMailer {
  readonly configured: boolean;
  send(mail: Mail): Promise<void>;
}

/**
 * Sign-in by email link (issue 28), when SMTP is configured: a member asks with their address and
 * receives a one-time link (the login-link machinery: 15 minutes, once, the token in the URL's
 * fragment). The answer is the same whether the address is a member's or not, so it tells nobody
 * who is; the mail goes out after the answer. Asking is limited per address and per client.
 */
export class EmailLinkSignIn {
  private readonly asked = new Map<string, number[]>();

  constructor(
    private readonly deps: { people: SignInPeople; sessions: SessionsService; mailer: LinkMailer; clock: Clock; onError: (err: unknown) => void },
  ) {}

  get enabled(): boolean {
    return this.deps.mailer.configured;
  }

  async request(email: string, clientAddress: string): Promise<{ expiresInMinutes: number }> {
    if (!this.enabled) throw errors.notFound('Email sign-in links need SMTP (smtp.url), which this server does not have');
    const address = email.trim().toLowerCase();
    if (!/^[^\s@]+@[^\s@]+$/.test(address)) throw errors.badRequest('email must be an email address');
    const wait = Math.max(this.charge(`email:${address}`, PER_EMAIL), this.charge(`client:${clientAddress}`, PER_CLIENT));
    if (wait > 0) throw errors.rateLimited(Math.ceil(wait / 1000));
    const person = await this.deps.people.byEmail(address);
    if (person) void this.mail(person).catch(this.deps.onError);
    return { expiresInMinutes: LOGIN_LINK_MS / 60_000 };
  }

  private async mail(person: Person): Promise<void> {
    const link = await this.deps.sessions.createLoginLink(person.accountId);
    await this.deps.mailer.send(signInMail(person.email, link.url));
  }

  /** Counts one request against `bucket`; the ms until the oldest counted one ages out when over. */
  private charge(bucket: string, limit: number): number {
    const now = this.deps.clock.now();
    if (this.asked.size > 10_000) this.asked.clear();
    const recent = (this.asked.get(bucket) ?? []).filter((at) => at > now - WINDOW_MS);
    if (recent.length >= limit) return recent[0]! + WINDOW_MS - now;
    recent.push(now);
    this.asked.set(bucket, recent);
    return 0;
  }
}

export function signInMail(to: string, url: string): Mail {
  const minutes = LOGIN_LINK_MS / 60_000;
  return {
    to,
    subject: 'Your Vigil sign-in link',
    text: [
      'Hello,', '', 'Someone (we hope you) asked to sign in to Vigil with this address. Open this link to sign in:', url, '',
      `It works once, within ${minutes} minutes. If you did not ask for it, ignore this email: nobody can use it without your mailbox.`,
    ].join('\n'),
  };
}
