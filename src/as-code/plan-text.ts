import type { FieldChange, Plan } from './plan.js';

const SIGN = { create: '+', update: '~', delete: '-' } as const;

/** A section's objects as a count reads: `1 check`, `2 status pages`. */
const OBJECTS: Record<keyof Plan['notInFile'], [string, string]> = {
  checks: ['check', 'checks'],
  webhooks: ['webhook', 'webhooks'],
  statusPages: ['status page', 'status pages'],
  maintenanceWindows: ['maintenance window', 'maintenance windows'],
};

export function counted(n: number, [one, many]: readonly [string, string]): string {
  return `${n} ${n === 1 ? one : many}`;
}

function value(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function field(change: FieldChange, withFrom: boolean): string {
  if (!('to' in change)) return change.field;
  return withFrom ? `${change.field}: ${value(change.from)} → ${value(change.to)}` : `${change.field}: ${value(change.to)}`;
}

/**
 * A plan as the CLI prints it and the API returns it in `text`: one line per change (`+ create`,
 * `~ update` with the fields that change, `- delete`), then what is unchanged or left alone.
 * Secret values are not in the plan, so they cannot be printed.
 */
export function planText(plan: Plan, options: { prune: boolean }): string {
  const lines = plan.changes.map((c) => {
    const name = c.section === 'email' ? 'email' : `${c.section}.${c.key}`;
    const renamed = c.renamedFrom ? ` (renamed from ${c.section}.${c.renamedFrom})` : '';
    const fields = c.fields.map((f) => field(f, c.action === 'update')).join(', ');
    return `${SIGN[c.action]} ${c.action} ${name}${renamed}${fields ? (c.action === 'create' ? ` (${fields})` : `: ${fields}`) : ''}`;
  });
  const { summary } = plan;
  if (summary.unchanged > 0) lines.push(`= ${summary.unchanged} unchanged`);
  const left = (Object.entries(plan.notInFile) as Array<[keyof Plan['notInFile'], number]>).filter(([, n]) => n > 0).map(([section, n]) => counted(n, OBJECTS[section]));
  if (left.length > 0 && !options.prune) lines.push(`  not in the file, left alone: ${left.join(', ')} (--prune deletes them)`);
  for (const warning of plan.warnings) lines.push(`! warning: ${warning}`);
  lines.push(
    summary.create + summary.update + summary.delete === 0
      ? 'No changes.'
      : `Plan: ${summary.create} to create, ${summary.update} to update, ${summary.delete} to delete, ${summary.unchanged} unchanged.`,
  );
  return `${lines.join('\n')}\n`;
}
