import type { Synchronous } from '../../synchronous.js';
import type { Db } from '../../db.js';
import type { AlertStore } from '../../alert-store.js';
import { sqliteDeliveryQueue } from './delivery-queue.js';
import { sqliteDomainWatch } from '../domain-watch.js';
import { sqliteEmailSettings } from './email-settings.js';
import { sqliteWebhooks } from './webhooks.js';
import { sqliteAlertOutbox } from './outbox.js';

/** The alerts layer's repositories over the node's SQLite database (tables of migration 3). */
/** The alerts repositories as SQLite answers them: at once. */
export type SqliteAlertStore = { [K in keyof AlertStore]: Synchronous<AlertStore[K]> };

export function sqliteAlertStore(db: Db): SqliteAlertStore {
  return {
    emailSettings: sqliteEmailSettings(db),
    webhooks: sqliteWebhooks(db),
    deliveries: sqliteDeliveryQueue(db),
    domainWatch: sqliteDomainWatch(db),
    outbox: sqliteAlertOutbox(db),
  };
}
