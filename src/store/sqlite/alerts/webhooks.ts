import type { Synchronous } from '../../synchronous.js';
import type { Db } from '../../db.js';
import { fromBool, toBool } from '../../rows/values.js';
import type { AlertEventType } from '../../../domain/events.js';
import type { Webhook, WebhookRepo, WebhookType } from '../../alert-store.js';

interface Row {
  id: string;
  account_id: string;
  name: string;
  url: string;
  url_key: string;
  webhook_type: string;
  events: string;
  enabled: number;
  secret: string | null;
  created_at: number;
  check_ids: string;
  folders: string;
  tags: string;
  remind_every_minutes: number | null;
}

const toWebhook = (r: Row): Webhook => ({
  id: r.id,
  accountId: r.account_id,
  name: r.name,
  url: r.url,
  urlKey: r.url_key,
  webhookType: r.webhook_type as WebhookType,
  events: JSON.parse(r.events) as AlertEventType[],
  enabled: toBool(r.enabled),
  secret: r.secret,
  createdAt: r.created_at,
  checkIds: JSON.parse(r.check_ids) as string[],
  folders: JSON.parse(r.folders) as string[],
  tags: JSON.parse(r.tags) as string[],
  remindEveryMinutes: r.remind_every_minutes,
});

export function sqliteWebhooks(db: Db): Synchronous<WebhookRepo> {
  const list = db.prepare('SELECT * FROM webhooks WHERE account_id = ? ORDER BY seq');
  const byId = db.prepare('SELECT * FROM webhooks WHERE id = ?');
  const count = db.prepare('SELECT count(*) FROM webhooks WHERE account_id = ?').pluck();
  const any = db.prepare('SELECT 1 FROM webhooks LIMIT 1').pluck();
  const urlTaken = db.prepare('SELECT 1 FROM webhooks WHERE account_id = ? AND url_key = ?').pluck();
  const insert = db.prepare(
    `INSERT INTO webhooks (id, account_id, name, url, url_key, webhook_type, events, enabled, secret, created_at, check_ids, folders, tags, remind_every_minutes)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const update = db.prepare(
    `UPDATE webhooks SET name = ?, url = ?, url_key = ?, webhook_type = ?, events = ?, enabled = ?, secret = ?, check_ids = ?, folders = ?, tags = ?, remind_every_minutes = ?
     WHERE id = ?`,
  );
  const reminding = db.prepare('SELECT DISTINCT account_id FROM webhooks WHERE remind_every_minutes IS NOT NULL AND enabled = 1').pluck();
  const del = db.prepare('DELETE FROM webhooks WHERE id = ?');
  return {
    list: (accountId) => (list.all(accountId) as Row[]).map(toWebhook),
    byId(id) {
      const r = byId.get(id) as Row | undefined;
      return r ? toWebhook(r) : null;
    },
    count: (accountId) => count.get(accountId) as number,
    any: () => any.get() !== undefined,
    urlTaken: (accountId, urlKey) => urlTaken.get(accountId, urlKey) !== undefined,
    insert(w) {
      insert.run(w.id, w.accountId, w.name, w.url, w.urlKey, w.webhookType, JSON.stringify(w.events), fromBool(w.enabled), w.secret, w.createdAt,
        JSON.stringify(w.checkIds), JSON.stringify(w.folders), JSON.stringify(w.tags), w.remindEveryMinutes);
    },
    update(w) {
      update.run(w.name, w.url, w.urlKey, w.webhookType, JSON.stringify(w.events), fromBool(w.enabled), w.secret,
        JSON.stringify(w.checkIds), JSON.stringify(w.folders), JSON.stringify(w.tags), w.remindEveryMinutes, w.id);
    },
    delete: (id) => void del.run(id),
    remindingAccounts: () => reminding.all() as string[],
  };
}
