import type { Config, PlanLimits } from '../config.js';
import type { Account } from './records.js';

/** The plan limits in force for an account: its tier's, with the account's own overrides. */
export function limitsFor(config: Config, account: Account): PlanLimits {
  const plan = config.plans[account.tier];
  return account.maxChecksOverride === null ? plan : { ...plan, maxChecks: account.maxChecksOverride };
}

const TIER_ORDER = ['free', 'indie', 'nano', 'pro'] as const;
export function tierAtLeast(account: Account, tier: (typeof TIER_ORDER)[number]): boolean {
  return TIER_ORDER.indexOf(account.tier) >= TIER_ORDER.indexOf(tier);
}
