import type { Mailer } from './delivery/mailer.js';
import type { AlertContent } from './alert-content.js';
import type { AlertRouting } from './alert-routing.js';
import type { AlertChannel, AttemptOutcome } from './channel.js';
import { alertMail } from './email-format.js';

/** Delivers one alert to one recipient over SMTP, in the account's current email format. */
export class EmailChannel implements AlertChannel {
  constructor(
    private readonly routing: AlertRouting,
    private readonly mailer: Mailer,
  ) {}

  async attempt(d: Parameters<AlertChannel['attempt']>[0]): Promise<AttemptOutcome> {
    if (!this.mailer.configured) return { kind: 'failed', status: null, error: 'email is not configured (smtp.url)', retryable: false };
    const targets = await this.routing.targets(d.accountId);
    if (!targets.claimed) return { kind: 'cancelled', error: 'account unclaimed' };
    const format = targets.email?.emailFormat ?? 'html';
    try {
      await this.mailer.send(alertMail(d.target, JSON.parse(d.contentJson) as AlertContent, format));
      return { kind: 'delivered', status: null };
    } catch (err) {
      return smtpFailure(err);
    }
  }
}

/** A 5xx SMTP reply (mailbox unknown, rejected) is final; anything else may pass later. */
export function smtpFailure(err: unknown): Extract<AttemptOutcome, { kind: 'failed' }> {
  const e = err as { responseCode?: number; code?: string; message?: string };
  const code = typeof e.responseCode === 'number' ? e.responseCode : null;
  const reason = code !== null ? `SMTP ${code}` : (e.code ?? 'SMTP failure');
  return { kind: 'failed', status: code, error: reason, retryable: code === null || code < 500 };
}
