import type { Principal } from './principal.js';
import type { ApiKey } from '../domain/records.js';
import type { Store } from '../store/store.js';

/**
 * What a key row grants right now: its principal, or why it grants nothing. The API key
 * authenticator and dashboard sessions (which rest on a key) both ask this, so a revoked,
 * disabled or expired key stops both at once.
 */
export async function keyPrincipal(store: Pick<Store, 'accounts'>, key: ApiKey, now: number): Promise<Principal | string> {
  if (key.revokedAt !== null) return 'API key has been revoked';
  if (key.disabled) return 'API key is disabled';
  if (key.expiresAt !== null && key.expiresAt <= now) return 'API key has expired';
  const account = await store.accounts.byId(key.accountId);
  if (!account) return 'Invalid API key';
  return {
    kind: 'api_key',
    credentialId: key.id,
    account,
    scopes: key.scopes,
    access: key.access,
    key: { expiresAt: key.expiresAt, access: key.access },
  };
}
