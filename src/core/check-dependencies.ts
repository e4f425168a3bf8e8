import { errors } from '../domain/errors.js';
import type { Check, KeyAccess } from '../domain/records.js';
import { accessAllows } from './principal.js';

/** Dependencies between checks (issue 27 item 3): a check names up to 10 checks of its account it depends on. */

type Lookup = (id: string) => Promise<Check | null>;

/**
 * The dependency list to store: every id a check of the account the key may reach, not the
 * check itself, closing no cycle (each a 400 naming it). Ids kept from the current list whose
 * checks have since been deleted are dropped quietly, so a record read with GET can be sent back.
 */
export async function validDependencies(
  ids: readonly string[], self: { id: string | null; accountId: string; current: readonly string[] }, access: KeyAccess | null, byId: Lookup,
): Promise<string[]> {
  const out: string[] = [];
  for (const id of ids) {
    if (id === self.id) throw errors.badRequest(`dependsOn: a check cannot depend on itself (${id})`);
    const parent = await byId(id);
    if (!parent || parent.accountId !== self.accountId) {
      if (self.current.includes(id) && !parent) continue;
      throw errors.badRequest(`dependsOn: ${id} is not a check of this account`);
    }
    if (!accessAllows(access, parent)) throw errors.forbidden(`This key is not allowed to access check ${id} (dependsOn)`);
    out.push(id);
  }
  if (self.id !== null) {
    const cycle = await pathBack(self.id, out, byId);
    if (cycle !== null) throw errors.badRequest(`dependsOn: ${[self.id, ...cycle].join(' -> ')} would be a cycle`);
  }
  return out;
}

/** A chain of dependencies from one of `from` back to `target` (ending with it), or null. */
async function pathBack(target: string, from: readonly string[], byId: Lookup): Promise<string[] | null> {
  const seen = new Set<string>();
  const walk = async (id: string): Promise<string[] | null> => {
    if (id === target) return [id];
    if (seen.has(id)) return null;
    seen.add(id);
    for (const next of (await byId(id))?.dependsOn ?? []) {
      const rest = await walk(next);
      if (rest !== null) return [id, ...rest];
    }
    return null;
  };
  for (const id of from) {
    const path = await walk(id);
    if (path !== null) return path;
  }
  return null;
}

/** Whether a parent holds its dependant's alerts: a paused, deleted or foreign check never blocks. */
const blocks = (check: Pick<Check, 'accountId'>, parent: Check | null): parent is Check =>
  parent !== null && parent.accountId === check.accountId && !parent.disabled && parent.status === 'down';

/** The checks it depends on that are down now. */
export async function blockedBy(check: Pick<Check, 'accountId' | 'dependsOn'>, byId: Lookup): Promise<Check[]> {
  const down: Check[] = [];
  for (const id of check.dependsOn) {
    const parent = await byId(id);
    if (blocks(check, parent)) down.push(parent);
  }
  return down;
}
