import type { Synchronous } from '../../synchronous.js';
import type { Db } from '../../db.js';
import { fromBool, toBool } from '../../rows/values.js';
import type { AlertEventType } from '../../../domain/events.js';
import type { EmailFormat, EmailSettingsRepo } from '../../alert-store.js';

interface Row {
  account_id: string;
  enabled: number;
  recipients: string;
  events: string;
  email_format: string;
  updated_at: number;
  check_ids: string;
  folders: string;
  tags: string;
  remind_every_minutes: number | null;
}

export function sqliteEmailSettings(db: Db): Synchronous<EmailSettingsRepo> {
  const get = db.prepare('SELECT * FROM email_settings WHERE account_id = ?');
  const put = db.prepare(
    `INSERT INTO email_settings (account_id, enabled, recipients, events, email_format, updated_at, check_ids, folders, tags, remind_every_minutes)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (account_id) DO UPDATE SET enabled = excluded.enabled, recipients = excluded.recipients,
       events = excluded.events, email_format = excluded.email_format, updated_at = excluded.updated_at,
       check_ids = excluded.check_ids, folders = excluded.folders, tags = excluded.tags, remind_every_minutes = excluded.remind_every_minutes`,
  );
  const reminding = db.prepare('SELECT account_id FROM email_settings WHERE remind_every_minutes IS NOT NULL AND enabled = 1').pluck();
  return {
    get(accountId) {
      const r = get.get(accountId) as Row | undefined;
      if (!r) return null;
      return {
        accountId: r.account_id,
        enabled: toBool(r.enabled),
        recipients: JSON.parse(r.recipients) as string[],
        events: JSON.parse(r.events) as AlertEventType[],
        emailFormat: r.email_format as EmailFormat,
        updatedAt: r.updated_at,
        checkIds: JSON.parse(r.check_ids) as string[],
        folders: JSON.parse(r.folders) as string[],
        tags: JSON.parse(r.tags) as string[],
        remindEveryMinutes: r.remind_every_minutes,
      };
    },
    put(s) {
      put.run(s.accountId, fromBool(s.enabled), JSON.stringify(s.recipients), JSON.stringify(s.events), s.emailFormat, s.updatedAt,
        JSON.stringify(s.checkIds), JSON.stringify(s.folders), JSON.stringify(s.tags), s.remindEveryMinutes);
    },
    remindingAccounts: () => reminding.all() as string[],
  };
}
