import { errors } from '../domain/errors.js';
import { hasAnyTag, tagProblem, uniqueTags } from '../domain/tags.js';
import type { KeyAccess } from '../domain/records.js';
import type { Store } from '../store/store.js';
import type { AlertRoute, TargetOptions } from '../store/alert-store.js';

/**
 * Routing and reminders as email settings and webhooks take them (issue 17): validated once
 * here for both, against the account's checks and the caller's reach.
 */

export interface TargetOptionsInput {
  checkIds?: string[];
  folders?: string[];
  tags?: string[];
  remindEveryMinutes?: number | null;
}

export const MIN_REMIND_MINUTES = 5;
const MAX_REMIND_MINUTES = 7 * 24 * 60;
const MAX_FOLDER_LENGTH = 100;

/** True when an alert of the check goes to a target with this route. */
export function routeMatches(route: AlertRoute, check: { id: string; folder: string | null; tags: readonly string[] }): boolean {
  if (route.checkIds.length === 0 && route.folders.length === 0 && route.tags.length === 0) return true;
  return route.checkIds.includes(check.id) || (check.folder !== null && route.folders.includes(check.folder)) || hasAnyTag(check.tags, route.tags);
}

export class TargetOptionsPolicy {
  constructor(private readonly store: Pick<Store, 'checks'>) {}

  /**
   * The options after applying `input` over `current`. A restricted key (`access`) may only
   * route to checks and folders in its reach, and never to every check.
   */
  resolve(accountId: string, access: KeyAccess | null, input: TargetOptionsInput, current: TargetOptions | null): TargetOptions {
    const checkIds = input.checkIds !== undefined ? this.checkIds(accountId, access, input.checkIds) : (current?.checkIds ?? []);
    const folders = input.folders !== undefined ? folderList(access, input.folders) : (current?.folders ?? []);
    const tags = input.tags !== undefined ? tagList(access, input.tags) : (current?.tags ?? []);
    if (access && checkIds.length === 0 && folders.length === 0) {
      throw errors.forbidden('This key is restricted to some checks or folders: give checkIds or folders within its reach');
    }
    const remind = input.remindEveryMinutes !== undefined ? remindEvery(input.remindEveryMinutes) : (current?.remindEveryMinutes ?? null);
    return { checkIds, folders, tags, remindEveryMinutes: remind };
  }

  private checkIds(accountId: string, access: KeyAccess | null, ids: readonly string[]): string[] {
    const out = [...new Set(ids.map((id) => id.trim()))];
    for (const id of out) {
      const check = this.store.checks.byId(id);
      if (!check || check.accountId !== accountId) throw errors.badRequest(`checkIds names no check of this account: ${JSON.stringify(id.slice(0, 60))}`);
      if (access && !access.checkIds.includes(id) && !(check.folder !== null && access.folders.includes(check.folder))) {
        throw errors.forbidden(`This key is not allowed to route alerts of check ${id}`);
      }
    }
    return out;
  }
}

function folderList(access: KeyAccess | null, values: readonly string[]): string[] {
  const out = [...new Set(values.map((f) => f.trim()))];
  for (const folder of out) {
    if (folder.length === 0 || folder.length > MAX_FOLDER_LENGTH) {
      throw errors.badRequest(`folders must hold names of 1 to ${MAX_FOLDER_LENGTH} characters`);
    }
    if (access && !access.folders.includes(folder)) throw errors.forbidden(`This key is not allowed to route alerts of folder ${JSON.stringify(folder)}`);
  }
  return out;
}

/** A tag can reach any check of the account, so a key restricted to some checks or folders routes by none. */
function tagList(access: KeyAccess | null, values: readonly string[]): string[] {
  if (access && values.length > 0) throw errors.forbidden('This key is restricted to some checks or folders: it cannot route alerts by tag');
  for (const tag of values) {
    const problem = tagProblem(tag);
    if (problem !== null) throw errors.badRequest(`tags: ${problem}`);
  }
  return uniqueTags(values);
}

function remindEvery(value: number | null): number | null {
  if (value === null) return null;
  if (!Number.isInteger(value) || value < MIN_REMIND_MINUTES || value > MAX_REMIND_MINUTES) {
    throw errors.badRequest(`remindEveryMinutes must be a whole number from ${MIN_REMIND_MINUTES} to ${MAX_REMIND_MINUTES}, or null for no reminders`);
  }
  return value;
}
