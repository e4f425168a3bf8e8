import { Type, type Static } from '@sinclair/typebox';

/** What a plan allows (config `plans.<tier>`). */
export const Plan = Type.Object({
  maxChecks: Type.Number(),
  minCheckIntervalMinutes: Type.Number(),
  maxWebhooks: Type.Number(),
  maxApiKeys: Type.Number(),
  regionChoice: Type.Boolean(),
  domainIntel: Type.Boolean(),
  minHeartbeatIntervalSeconds: Type.Number(),
});
export type PlanLimits = Static<typeof Plan>;

/** Tiers, lowest first. */
export const TIERS = ['free', 'indie', 'nano', 'pro'] as const;
export type Tier = (typeof TIERS)[number];

/** The plan limits in force for an account: its tier's, with the account's own overrides. */
export function limitsFor(
  config: { plans: Record<Tier, PlanLimits> },
  account: { tier: Tier; maxChecksOverride: number | null },
): PlanLimits {
  const plan = config.plans[account.tier];
  return account.maxChecksOverride === null ? plan : { ...plan, maxChecks: account.maxChecksOverride };
}

export function tierAtLeast(account: { tier: Tier }, tier: Tier): boolean {
  return TIERS.indexOf(account.tier) >= TIERS.indexOf(tier);
}
