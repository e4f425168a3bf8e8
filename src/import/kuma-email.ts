import type { EmailSettings } from '../store/alert-store.js';

/** What the import does with a Kuma SMTP notification's addresses, routed to its monitors' checks. */
export type EmailPlan =
  | { kind: 'update'; patch: { recipients: string[]; checkIds: string[] } }
  | { kind: 'covered' }
  | { kind: 'refused'; reason: string };

const addressSet = (list: readonly string[]) => new Set(list.map((a) => a.trim().toLowerCase()));

function sameAddresses(a: readonly string[], b: readonly string[]): boolean {
  const x = addressSet(a);
  const y = addressSet(b);
  return x.size === y.size && [...x].every((v) => y.has(v));
}

/**
 * Vigil has one email setting per account: one list of recipients and one routing. Kuma's
 * addresses routed to these checks can therefore be applied exactly only when the account has
 * no email setting yet (it becomes theirs, routed to the checks), or has these very addresses
 * (its routing gains the checks, or covers every check already). Merged into anyone else's
 * list, Kuma's recipients would get that list's alerts and the others these checks': refused,
 * and the reason says what to do.
 */
export function kumaEmailRoute(current: EmailSettings | null, recipients: string[], checkIds: string[]): EmailPlan {
  if (current === null) return { kind: 'update', patch: { recipients, checkIds } };
  if (!sameAddresses(current.recipients, recipients)) {
    const route = current.checkIds.length === 0 && current.folders.length === 0 ? 'every check' : 'its routed checks';
    return {
      kind: 'refused',
      reason:
        `the account already sends email alerts to ${current.recipients.join(', ')} (${route}), and Vigil has one recipient list per account: ` +
        `adding ${recipients.join(', ')} would send them those alerts too, not only these checks', and these checks' to the others. ` +
        'Not imported: change the list yourself with PATCH /v1/public/alerts/email if that is what you want',
    };
  }
  if (current.checkIds.length === 0 && current.folders.length === 0) return { kind: 'covered' };
  return { kind: 'update', patch: { recipients: current.recipients, checkIds: [...new Set([...current.checkIds, ...checkIds])] } };
}
