/**
 * What most public API rows share: a credential, the per-key budget, the standard error shape,
 * and (for checks) restricted keys allowed — each row adds its method, path, scope and handler.
 */
export const publicApi = { auth: 'credential', allowRestricted: true, rateLimit: 'per-key', errorShape: 'standard' } as const;
