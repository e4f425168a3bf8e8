/** One row of Kuma's `monitor` table, as stored (column names vary a little between 1.x and 2.x). */
export type KumaMonitorRow = Record<string, unknown> & { id: number; name: string; type: string; active: number; parent: number | null };

export interface KumaNotification {
  id: number;
  name: string;
  isDefault: boolean;
  active: boolean;
  /** The notification's form as Kuma stores it (JSON in `notification.config`), `type` included. */
  config: Record<string, unknown>;
}

export interface KumaMaintenance {
  id: number;
  title: string;
  strategy: string;
  active: boolean;
  description: string | null;
  /** Local date-times in `timezone` ('2026-12-12T22:00' or '2026-12-12 22:00:00'). */
  startDate: string | null;
  endDate: string | null;
  /** Recurring strategies: local 'HH:mm'. */
  startTime: string | null;
  endTime: string | null;
  /** 0 = Sunday. */
  weekdays: number[];
  /** Numbers, or Kuma's 'lastDay1'… */
  daysOfMonth: Array<number | string>;
  intervalDay: number | null;
  cron: string | null;
  /** Seconds (Kuma's cron strategy). */
  duration: number | null;
  timezone: string | null;
  monitorIds: number[];
}

export interface KumaStatusPage {
  id: number;
  slug: string;
  title: string;
  description: string | null;
  /** The `status_page` row as stored (its columns vary between 1.x and 2.x). */
  settings: Record<string, unknown>;
  /** Custom domains (`status_page_cname`). */
  domains: string[];
  /** Titles of the incidents pinned to the page. */
  pinnedIncidents: string[];
  /** Monitors in display order (groups by weight, then monitors by weight). */
  monitorIds: number[];
  groups: string[];
}

/** One Kuma heartbeat: status 0 down, 1 up, 2 pending (a failure being retried), 3 maintenance. */
export interface KumaBeat {
  status: number;
  /** Epoch ms (Kuma stores UTC). */
  at: number;
  msg: string | null;
  /** Response time, ms. */
  ping: number | null;
}

/** Everything the importer reads from a Kuma database. */
export interface KumaSnapshot {
  /** Identifies the Kuma installation (a hash of its own secret), so a second import recognises it. */
  sourceId: string;
  version: string;
  monitors: KumaMonitorRow[];
  notifications: KumaNotification[];
  /** monitor id → notification ids */
  monitorNotifications: Map<number, number[]>;
  /** monitor id → tags as name and value */
  monitorTags: Map<number, { name: string; value: string }[]>;
  maintenance: KumaMaintenance[];
  statusPages: KumaStatusPage[];
  /** monitor id → heartbeats, oldest first; read only for `--with-history`. */
  heartbeats: Map<number, KumaBeat[]>;
}

/** A file that is not a readable Kuma database (the CLI prints the message and exits 2). */
export class NotKumaDatabase extends Error {}
