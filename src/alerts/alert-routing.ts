import type { Store } from '../store/store.js';
import { Lru } from '../util/lru.js';
import type { AlertStore, EmailSettings, Webhook } from '../store/alert-store.js';

/** Where an account's alerts go, and whether they may go at all. */
export interface AccountTargets {
  /** Spec §3: an unclaimed account's alerts are delivered on no channel. */
  claimed: boolean;
  email: EmailSettings | null;
  webhooks: Webhook[];
}

const CAPACITY = 10_000;

/**
 * A cache of AccountTargets, so the event sink reads no settings from the database. The alert
 * services drop an account's entry when they change its settings; the store's credentials
 * version (which moves when an account is claimed, here or by another process) drops them all.
 */
export class AlertRouting {
  private readonly cache = new Lru<string, AccountTargets>(CAPACITY);
  private version = '';
  /** The version was read in this turn of the event loop: a burst reads it once, not per alert. */
  private validated = false;

  constructor(
    private readonly store: Pick<Store, 'accounts' | 'credentialsVersion'>,
    private readonly alerts: Pick<AlertStore, 'emailSettings' | 'webhooks'>,
  ) {}

  async targets(accountId: string): Promise<AccountTargets> {
    if (!this.validated) {
      this.validated = true;
      setImmediate(() => (this.validated = false));
      const version = this.store.credentialsVersion();
      if (version !== this.version) {
        this.cache.clear();
        this.version = version;
      }
    }
    let t = this.cache.get(accountId);
    if (!t) {
      t = {
        claimed: (await this.store.accounts.byId(accountId))?.claimed ?? false,
        email: await this.alerts.emailSettings.get(accountId),
        webhooks: await this.alerts.webhooks.list(accountId),
      };
      this.cache.set(accountId, t);
    }
    return t;
  }

  invalidate(accountId: string): void {
    this.cache.delete(accountId);
  }
}
