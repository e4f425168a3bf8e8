import { randomBytes } from 'node:crypto';
import type { Scope } from '../domain/records.js';

/** Token formats and lifetimes (spec 5.9–5.10, 8; decisions §1). */

export const ACCESS_TOKEN_PREFIX = 'vigil_at_';
export const REFRESH_TOKEN_PREFIX = 'vigil_rt_';
export const ACCESS_TOKEN_PATTERN = /^vigil_at_[0-9a-f]{64}$/;
export const REFRESH_TOKEN_PATTERN = /^vigil_rt_[0-9a-f]{64}$/;
/** The secret in a claim link `{app_url}/claim/<token>`. */
export const CLAIM_TOKEN_PATTERN = /^[0-9a-f]{64}$/;

export const DAY_MS = 24 * 60 * 60 * 1000;
export const ACCESS_TOKEN_TTL_MS = 30 * DAY_MS;
/** Counted from each refresh token's issue: an agent that refreshes within 180 days keeps access. */
export const REFRESH_TOKEN_TTL_MS = 180 * DAY_MS;
/** As long as an unclaimed account lives: the link works until the account would be deleted. */
export const CLAIM_LINK_TTL_MS = 30 * DAY_MS;
export const UNCLAIMED_PAUSE_AFTER_MS = 7 * DAY_MS;
export const UNCLAIMED_DELETE_AFTER_MS = 30 * DAY_MS;

/** What an agent signup is granted (spec 4.11). No `checks:delete`: the human keeps that. */
export const SIGNUP_SCOPES: readonly Scope[] = ['checks:read', 'checks:write', 'alerts:read', 'alerts:write'];

const secret = () => randomBytes(32).toString('hex');
export const newAccessToken = (): string => ACCESS_TOKEN_PREFIX + secret();
export const newRefreshToken = (): string => REFRESH_TOKEN_PREFIX + secret();
export const newClaimToken = (): string => secret();

/** Grant ids: the same shape as every other id (`grt_` plus 80 random bits). */
export const newGrantId = (): string => `grt_${randomBytes(10).toString('hex')}`;
