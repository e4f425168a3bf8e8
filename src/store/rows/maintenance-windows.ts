import type { MaintenanceWindow } from '../../domain/maintenance-windows.js';
import { toBool } from './values.js';

/** A row of `maintenance_windows` as either store reads it. */
export interface MaintenanceWindowRowDb {
  id: string;
  account_id: string;
  title: string;
  description: string | null;
  check_ids: string;
  folders: string;
  tags: string;
  all_checks: number | boolean;
  starts_at: number | null;
  ends_at: number | null;
  schedule: string | null;
  duration_minutes: number | null;
  timezone: string | null;
  created_at: number;
  updated_at: number;
}

export const rowToWindow = (r: MaintenanceWindowRowDb): MaintenanceWindow => ({
  id: r.id,
  accountId: r.account_id,
  title: r.title,
  description: r.description,
  checkIds: JSON.parse(r.check_ids) as string[],
  folders: JSON.parse(r.folders) as string[],
  tags: JSON.parse(r.tags) as string[],
  allChecks: toBool(r.all_checks),
  startsAt: r.starts_at,
  endsAt: r.ends_at,
  schedule: r.schedule,
  durationMinutes: r.duration_minutes,
  timezone: r.timezone,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});
