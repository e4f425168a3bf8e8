import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { inMaintenance } from '../monitor/maintenance.js';
import type { Clock } from '../domain/clock.js';
import type { Mailer } from './delivery/mailer.js';
import type { Check } from '../domain/records.js';
import { newId } from '../domain/secrets.js';
import type { BatchWriter } from '../store/batch-writer.js';
import type { Store } from '../store/store.js';
import { reminderContent } from './alert-content.js';
import type { AccountTargets, AlertRouting } from './alert-routing.js';
import type { AlertStore, NewAlert } from '../store/alert-store.js';
import type { DeliverySender } from './delivery/sender.js';
import { routeMatches } from './target-options.js';

const MINUTE = 60_000;
/** Down checks read per account per sweep: far above any plan's check limit. */
const MAX_DOWN = 100_000;

export interface ReminderDeps {
  store: Pick<Store, 'checks'>;
  repos: Pick<AlertStore, 'webhooks' | 'emailSettings' | 'deliveries'>;
  routing: AlertRouting;
  writer: BatchWriter;
  sender: Pick<DeliverySender, 'wake' | 'retryUntil'>;
  mailer: Mailer;
  clock: Clock;
  config: Config;
  log: Logger;
  /** Several centrals: only the owner of a check reminds about it (absent: every check). */
  owns?: (checkId: string) => boolean;
}

/** One target that sends reminders: a webhook id or an email recipient, and its interval. */
interface Reminding {
  channel: 'webhook' | 'email';
  target: string;
  everyMs: number;
}

/**
 * Issue 17 reminders: once a minute, for each account with a target that has
 * `remindEveryMinutes`, every check still down (not paused, not in maintenance) that the target
 * hears about gets a `website_down` reminder when the last one to that target (or the check's
 * going down) is at least the interval ago. A recovered, paused or maintained check is simply
 * not down any more, so reminders stop by themselves.
 */
export class ReminderSweep {
  readonly metrics = { queued: 0 };

  constructor(private readonly deps: ReminderDeps) {}

  /** Queues the reminders due now; resolves once they are durable (tests call it after moving the clock). */
  async sweep(): Promise<number> {
    const { repos, writer, clock, log } = this.deps;
    const now = clock.now();
    const accounts = new Set([...(await repos.webhooks.remindingAccounts()), ...(await repos.emailSettings.remindingAccounts())]);
    const rows: NewAlert[] = [];
    for (const accountId of accounts) {
      try {
        await this.remindAccount(accountId, now, rows);
      } catch (err) {
        log.error({ err, accountId }, 'reminders not checked');
      }
    }
    if (rows.length === 0) return 0;
    try {
      await writer.commit({ kind: 'alerts', alerts: rows, at: now });
    } catch (err) {
      log.error({ err, alerts: rows.length }, 'reminders not queued');
      return 0;
    }
    const queued = rows.reduce((n, a) => n + a.deliveries.length, 0);
    this.metrics.queued += queued;
    this.deps.sender.wake();
    return queued;
  }

  private async remindAccount(accountId: string, now: number, rows: NewAlert[]): Promise<void> {
    const { store, repos, routing, config, sender } = this.deps;
    const targets = await routing.targets(accountId);
    if (!targets.claimed) return;
    const down = await store.checks.list({ accountId, access: null, status: 'down' }, { limit: MAX_DOWN, offset: 0, afterSeq: null });
    for (const check of down) {
      const downSince = check.lastStatusChange;
      if (downSince === null || inMaintenance(check, now) || (this.deps.owns && !this.deps.owns(check.id))) continue;
      const due: Reminding[] = [];
      for (const r of this.reminding(targets, check)) {
        const last = Math.max(downSince, (await repos.deliveries.lastQueued(r.target, check.id, 'website_down')) ?? 0);
        if (now - last >= r.everyMs) due.push(r);
      }
      if (due.length === 0) continue;
      rows.push({
        accountId,
        checkId: check.id,
        event: 'website_down',
        contentJson: JSON.stringify(reminderContent(check, downSince, now, config)),
        createdAt: now,
        retryUntil: sender.retryUntil(now),
        deliveries: due.map((r) => ({ id: newId('dlv'), channel: r.channel, target: r.target })),
      });
    }
  }

  /** The account's targets that remind about this check. */
  private reminding(targets: AccountTargets, check: Check): Reminding[] {
    const out: Reminding[] = [];
    for (const w of targets.webhooks) {
      if (w.enabled && w.remindEveryMinutes !== null && w.events.includes('website_down') && routeMatches(w, check)) {
        out.push({ channel: 'webhook', target: w.id, everyMs: w.remindEveryMinutes * MINUTE });
      }
    }
    const email = targets.email;
    if (email && email.enabled && this.deps.mailer.configured && email.remindEveryMinutes !== null && email.events.includes('website_down') && routeMatches(email, check)) {
      for (const to of email.recipients) out.push({ channel: 'email', target: to, everyMs: email.remindEveryMinutes * MINUTE });
    }
    return out;
  }
}
