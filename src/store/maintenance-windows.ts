import type { MaintenanceWindow } from '../domain/maintenance-windows.js';

/** Scheduled maintenance windows (issue 27), by account. */
export interface MaintenanceWindowRepo {
  insert(window: MaintenanceWindow): Promise<void>;
  /** Replaces every field but id, accountId and createdAt. */
  update(window: MaintenanceWindow): Promise<void>;
  delete(id: string): Promise<void>;
  byId(id: string): Promise<MaintenanceWindow | null>;
  /** Oldest first. */
  listForAccount(accountId: string): Promise<MaintenanceWindow[]>;
  /** Every window of every account (the scheduler's view; windows are few next to checks). */
  all(): Promise<MaintenanceWindow[]>;
}
