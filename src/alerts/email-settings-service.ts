import type { Config } from '../config.js';
import type { Clock } from '../domain/clock.js';
import { errors } from '../domain/errors.js';
import type { Mailer } from './delivery/mailer.js';
import { auditEntry, SYSTEM_ACTOR, type ChangeSource } from '../domain/people.js';
import type { Store } from '../store/store.js';
import type { Account, KeyAccess } from '../domain/records.js';
import { testContent } from './alert-content.js';
import { DEFAULT_EVENTS, normalizeEvents } from './alert-events.js';
import type { AlertRouting } from './alert-routing.js';
import type { EmailFormat, EmailSettings, EmailSettingsRepo } from '../store/alert-store.js';
import { alertMail } from './email-format.js';
import type { TargetOptionsInput, TargetOptionsPolicy } from './target-options.js';

export interface EmailSettingsPatch extends TargetOptionsInput {
  recipients?: string[];
  events?: string[];
  enabled?: boolean;
  emailFormat?: EmailFormat;
}

const MAX_RECIPIENTS = 10;
const MAX_ADDRESS_LENGTH = 254;
// One address, nothing that could smuggle a second one or a header into the mail (, ; < > quotes,
// control characters). The domain may be a single label (`ops@intranet`): a self-hosted monitor
// may mail inside its own network.
const LOCAL_PART = /^[^\s@<>,;:"()[\]\\\p{Cc}]{1,64}$/u;
const DOMAIN_LABEL = /^[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?$/u;

function isAddress(address: string): boolean {
  const at = address.lastIndexOf('@');
  if (at <= 0 || address.length > MAX_ADDRESS_LENGTH) return false;
  const local = address.slice(0, at);
  const labels = address.slice(at + 1).split('.');
  return (
    LOCAL_PART.test(local) && !local.startsWith('.') && !local.endsWith('.') && !local.includes('..') &&
    labels.every((label) => DOMAIN_LABEL.test(label))
  );
}

/** Spec 4.8: the account's email alert settings, and the test send. */
export class EmailAlertsService {
  constructor(
    private readonly repo: EmailSettingsRepo,
    private readonly routing: AlertRouting,
    private readonly options: TargetOptionsPolicy,
    private readonly mailer: Mailer,
    private readonly clock: Clock,
    private readonly config: Config,
    private readonly store: Pick<Store, 'transaction' | 'audit' | 'afterCommit'>,
  ) {}

  async get(accountId: string): Promise<EmailSettings | null> {
    return this.repo.get(accountId);
  }

  /** Only the fields sent change; the first call needs `recipients` and gets the defaults. */
  async update(accountId: string, patch: EmailSettingsPatch, access: KeyAccess | null = null, source: ChangeSource = { actor: SYSTEM_ACTOR }): Promise<EmailSettings> {
    const current = await this.repo.get(accountId);
    if (!current && patch.recipients === undefined) {
      throw errors.badRequest('recipients is required when email alerts are set up for the first time');
    }
    const next: EmailSettings = {
      accountId,
      enabled: patch.enabled ?? current?.enabled ?? true,
      recipients: patch.recipients !== undefined ? normalizeRecipients(patch.recipients) : current!.recipients,
      events: patch.events !== undefined ? normalizeEvents(patch.events) : (current?.events ?? [...DEFAULT_EVENTS]),
      emailFormat: patch.emailFormat ?? current?.emailFormat ?? 'html',
      updatedAt: this.clock.now(),
      ...(await this.options.resolve(accountId, access, patch, current)),
    };
    const fields = Object.keys(patch).filter((k) => patch[k as keyof EmailSettingsPatch] !== undefined);
    await this.store.transaction(async () => {
      await this.repo.put(next);
      const entry = auditEntry(source, accountId, current ? 'email_alerts.update' : 'email_alerts.create', { kind: 'email_alerts', id: accountId, name: null }, fields, next.updatedAt);
      await this.store.audit.append(entry);
      // The routing cache is dropped once the write is durable: at the unit's commit.
      this.store.afterCommit(() => this.routing.invalidate(accountId));
    });
    return next;
  }

  /** Sends the sample alert to every recipient; a partial failure is a 502 listing who got it. */
  async test(account: Account): Promise<{ delivered: string[]; message: string }> {
    if (!account.claimed) throw errors.accountUnclaimed();
    const settings = await this.repo.get(account.id);
    if (!settings || settings.recipients.length === 0) {
      throw errors.preconditionFailed('Email alerts have no recipients yet: PATCH /v1/public/alerts/email with recipients first');
    }
    if (!this.mailer.configured) throw errors.unavailable('Email delivery is not configured on this server (smtp.url)');
    const content = testContent(this.clock.now(), this.config);
    const delivered: string[] = [];
    for (const to of settings.recipients) {
      try {
        await this.mailer.send(alertMail(to, content, settings.emailFormat));
        delivered.push(to);
      } catch {
        // The others are still tried: `delivered` tells the caller exactly who has it.
      }
    }
    const total = settings.recipients.length;
    if (delivered.length < total) {
      throw errors.emailTestFailed(`Sending the test email failed for ${total - delivered.length} of ${total} recipients`, delivered);
    }
    return { delivered, message: `Test email sent to ${total} recipient${total === 1 ? '' : 's'}` };
  }
}

/** 1 to 10 valid addresses once duplicates (compared case-insensitively) are removed. */
export function normalizeRecipients(values: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of values) {
    const address = raw.trim();
    if (!isAddress(address)) {
      throw errors.badRequest(`recipients contains an invalid email address: ${JSON.stringify(raw.slice(0, 100))}`);
    }
    const key = address.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(address);
  }
  if (out.length === 0) throw errors.badRequest('recipients must list at least one email address');
  if (out.length > MAX_RECIPIENTS) throw errors.badRequest(`recipients must list at most ${MAX_RECIPIENTS} email addresses`);
  return out;
}
