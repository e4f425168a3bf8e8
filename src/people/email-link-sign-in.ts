import { randomBytes } from 'node:crypto';
import type { Mail } from '../alerts/delivery/mailer.js';
import type { Clock } from '../domain/clock.js';
import { errors } from '../domain/errors.js';
import { hashSecret } from '../domain/secrets.js';
import type { PasskeyRepo } from '../store/passkey-store.js';
import { AttemptWindow } from './attempt-window.js';
import type { MailSender } from './members-service.js';
import type { OpenedSession } from './sessions-service.js';
import type { Person, SignInClient, SignInPeople } from './sign-in-people.js';

/** How long an emailed link works (once). */
export const EMAIL_LINK_MS = 15 * 60 * 1000;
const PURPOSE = 'email_link';
const TOKEN = /^ve_[A-Za-z0-9_-]{43}$/;

const WINDOW_MS = 15 * 60 * 1000;
/** Links sent to one address, and asked for by one client, per WINDOW_MS. */
const PER_EMAIL = 3;
const PER_CLIENT = 10;

/**
 * Sign-in by email link (issue 28), when SMTP is configured: a member asks with their address and
 * receives a one-time link that signs that member in (15 minutes, once; the token rides in the
 * URL's fragment, so no server or proxy log sees it, and only its hash is stored). The answer is
 * the same whether the address is a member's or not, so it tells nobody who is; the mail goes out
 * after the answer. Asking is limited per address and per client.
 */
export class EmailLinkSignIn {
  private readonly asked: AttemptWindow;

  constructor(
    private readonly deps: { people: SignInPeople; repo: PasskeyRepo; dashboardUrl: string; mailer: MailSender; clock: Clock; onError: (err: unknown) => void },
  ) {
    this.asked = new AttemptWindow(deps.clock, WINDOW_MS);
  }

  get enabled(): boolean {
    return this.deps.mailer.configured;
  }

  async request(email: string, clientAddress: string): Promise<{ expiresInMinutes: number }> {
    if (!this.enabled) throw errors.notFound('Email sign-in links need SMTP (smtp.url), which this server does not have');
    const address = email.trim().toLowerCase();
    if (!/^[^\s@]+@[^\s@]+$/.test(address)) throw errors.badRequest('email must be an email address');
    const wait = Math.max(this.asked.charge(`email:${address}`, PER_EMAIL), this.asked.charge(`client:${clientAddress}`, PER_CLIENT));
    if (wait > 0) throw errors.rateLimited(Math.ceil(wait / 1000));
    const person = await this.deps.people.byEmail(address);
    if (person) void this.mail(person).catch(this.deps.onError);
    return { expiresInMinutes: EMAIL_LINK_MS / 60_000 };
  }

  /** The link's token, used up: a session for its member, or a 400 saying the link is no good. */
  async redeem(token: string, client: SignInClient): Promise<OpenedSession> {
    const row = TOKEN.test(token) ? await this.deps.repo.takeChallenge(hashSecret(token), PURPOSE, this.deps.clock.now()) : null;
    const person = row?.userId ? await this.deps.people.byId(row.userId) : null;
    if (!person) throw errors.badRequest('This sign-in link is unknown, already used or older than 15 minutes; ask for a new one');
    return this.deps.people.openSession(person, 'email_link', client);
  }

  private async mail(person: Person): Promise<void> {
    const token = `ve_${randomBytes(32).toString('base64url')}`;
    const now = this.deps.clock.now();
    await this.deps.repo.insertChallenge({ hash: hashSecret(token), purpose: PURPOSE, userId: person.id, data: '{}', createdAt: now, expiresAt: now + EMAIL_LINK_MS });
    await this.deps.mailer.send(signInMail(person.email, `${this.deps.dashboardUrl}#email-login=${token}`));
  }
}

export function signInMail(to: string, url: string): Mail {
  const minutes = EMAIL_LINK_MS / 60_000;
  return {
    to,
    subject: 'Your Vigil sign-in link',
    text: [
      'Hello,', '', 'Someone (we hope you) asked to sign in to Vigil with this address. Open this link to sign in:', url, '',
      `It works once, within ${minutes} minutes. If you did not ask for it, ignore this email: nobody can use it without your mailbox.`,
    ].join('\n'),
  };
}
