import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from '../../config.js';
import { errors } from '../../domain/errors.js';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Extra headers (List-Unsubscribe); names and values are fixed by Vigil, never taken from input. */
  headers?: Record<string, string>;
}

/**
 * Every message Vigil sends is written by Vigil, none by a person (alerts, subscriber notices and
 * confirmations, sign-in links, invitations): RFC 3834's mark keeps out-of-office replies and
 * other auto-responders from answering it.
 */
const AUTOMATIC = { 'Auto-Submitted': 'auto-generated' } as const;

/**
 * Outgoing mail over `smtp.url` (decisions §3). `null` means email is not configured, which
 * callers report as 503. One pooled transport per process.
 */
export class Mailer {
  private transport: Transporter | null = null;

  constructor(private readonly config: Pick<Config, 'smtp'>) {}

  get configured(): boolean {
    return this.config.smtp.url !== null;
  }

  async send(mail: Mail): Promise<void> {
    if (!this.config.smtp.url) throw errors.unavailable('Email delivery is not configured on this server (smtp.url)');
    this.transport ??= nodemailer.createTransport(this.config.smtp.url, { from: this.config.smtp.from });
    await this.transport.sendMail({ from: this.config.smtp.from, ...mail, headers: { ...AUTOMATIC, ...mail.headers } });
  }

  close(): void {
    this.transport?.close();
    this.transport = null;
  }
}
