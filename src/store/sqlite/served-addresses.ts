import type { Synchronous } from '../synchronous.js';
import type { Db } from '../db.js';
import type { ServedAddresses, ServedAddressesRepo } from '../served-addresses.js';

const KEY = 'server.addresses';

export function sqliteServedAddresses(db: Db): Synchronous<ServedAddressesRepo> {
  const get = db.prepare<[string], string>('SELECT value FROM meta WHERE key = ?').pluck();
  const put = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
  return {
    get() {
      const value = get.get(KEY);
      if (value === undefined) return null;
      const a = JSON.parse(value) as Partial<ServedAddresses>;
      const ok = [a.publicUrl, a.heartbeatUrl, a.dashboardUrl].every((u) => typeof u === 'string');
      return ok ? (a as ServedAddresses) : null;
    },
    record: ({ publicUrl, heartbeatUrl, dashboardUrl, listenUrl }) => void put.run(KEY, JSON.stringify({ publicUrl, heartbeatUrl, dashboardUrl, listenUrl })),
  };
}
