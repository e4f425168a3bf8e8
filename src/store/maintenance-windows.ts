import type { MaintenanceWindow } from '../domain/maintenance-windows.js';
import type { Answer } from './answer.js';

/** Scheduled maintenance windows (issue 27), by account. */
export interface MaintenanceWindowRepo {
  insert(window: MaintenanceWindow): Answer<void>;
  /** Replaces every field but id, accountId and createdAt. */
  update(window: MaintenanceWindow): Answer<void>;
  delete(id: string): Answer<void>;
  byId(id: string): Answer<MaintenanceWindow | null>;
  /** Oldest first. */
  listForAccount(accountId: string): Answer<MaintenanceWindow[]>;
  /** Every window of every account (the scheduler's view; windows are few next to checks). */
  all(): Answer<MaintenanceWindow[]>;
}
