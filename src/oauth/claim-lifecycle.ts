import type { ChecksService } from '../core/checks-service.js';
import type { Clock } from '../domain/clock.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/store.js';
import { UNCLAIMED_PAUSE_REASON } from './claim-service.js';
import type { OAuthRepo } from '../store/oauth-repo.js';
import { UNCLAIMED_DELETE_AFTER_MS, UNCLAIMED_PAUSE_AFTER_MS } from './tokens.js';

export interface LifecycleReport {
  /** Checks paused on accounts unclaimed for 7 days. */
  pausedChecks: number;
  /** Accounts deleted after 30 days unclaimed. */
  deletedAccounts: number;
  /** Expired tokens removed. */
  prunedTokens: number;
}

/**
 * The daily job of agent-created accounts (spec 3, 8): unclaimed for 7 days, the account's checks
 * pause; unclaimed for 30, the account and all its data go. It is idempotent and catches up:
 * a missed day is done on the next run, and a check resumed on a paused, unclaimed account is
 * paused again. One account's failure is logged and does not stop the others.
 */
export class ClaimLifecycle {
  constructor(
    private readonly store: Store,
    private readonly repo: OAuthRepo,
    private readonly checks: ChecksService,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  async run(): Promise<LifecycleReport> {
    const now = this.clock.now();
    const report: LifecycleReport = { pausedChecks: 0, deletedAccounts: 0, prunedTokens: 0 };
    for (const account of (await this.store.accounts.unclaimedCreatedBefore(now - UNCLAIMED_DELETE_AFTER_MS))) {
      await this.guard(account.id, 'delete', async () => {
        await this.deleteAccount(account.id);
        report.deletedAccounts++;
      });
    }
    for (const account of (await this.store.accounts.unclaimedCreatedBefore(now - UNCLAIMED_PAUSE_AFTER_MS))) {
      await this.guard(account.id, 'pause', async () => {
        report.pausedChecks += await this.checks.pauseAccount(account.id, UNCLAIMED_PAUSE_REASON);
      });
    }
    report.prunedTokens = await this.repo.pruneExpired(now);
    if (report.pausedChecks || report.deletedAccounts) this.log.info(report, 'unclaimed accounts: lifecycle applied');
    return report;
  }

  /**
   * Checks first, through the service, so their history goes and the engine stops probing them;
   * then the account, whose keys, tokens, alert settings and deliveries go with it. A crash in
   * between leaves an account without checks, which the next run deletes.
   */
  private async deleteAccount(accountId: string): Promise<void> {
    await this.checks.removeAccountChecks(accountId);
    await this.store.transaction(async () => (await this.store.accounts.delete(accountId)));
  }

  private async guard(accountId: string, step: string, fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (err) {
      this.log.error({ err, accountId, step }, 'unclaimed accounts: lifecycle step failed');
    }
  }
}
