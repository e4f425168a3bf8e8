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
    await this.transport.sendMail({ from: this.config.smtp.from, ...mail });
  }

  close(): void {
    this.transport?.close();
    this.transport = null;
  }
}
