import type { Db } from '../../db.js';
import type { AlertStore } from '../../alert-store.js';
import { sqliteDeliveryQueue } from './delivery-queue.js';
import { sqliteDomainWatch } from '../domain-watch.js';
import { sqliteEmailSettings } from './email-settings.js';
import { sqliteWebhooks } from './webhooks.js';

/** The alerts layer's repositories over the node's SQLite database (tables of migration 3). */
export function sqliteAlertStore(db: Db): AlertStore {
  return {
    emailSettings: sqliteEmailSettings(db),
    webhooks: sqliteWebhooks(db),
    deliveries: sqliteDeliveryQueue(db),
    domainWatch: sqliteDomainWatch(db),
  };
}
