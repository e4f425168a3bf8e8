import type { Clock } from '../domain/clock.js';
import type { BearerResolver, Principal } from '../core/principal.js';
import type { Store } from '../store/store.js';
import { Lru } from '../util/lru.js';
import type { TokenService } from './token-service.js';

/**
 * Turns a `vigil_at_` access token into a bearer principal (spec 5.9): the token's scopes, no
 * restriction, `key: null`, and its grant as the rate-limit bucket (so refreshing does not
 * reset the limit). Like API keys, resolved tokens are cached until any credential changes
 * anywhere (a claim, a revocation, a deleted account, a CLI write).
 */
export class OAuthBearerResolver implements BearerResolver {
  private readonly cache = new Lru<string, { principal: Principal; expiresAt: number }>(10_000);
  private cacheVersion = '';

  constructor(
    private readonly store: Store,
    private readonly tokens: TokenService,
    private readonly clock: Clock,
  ) {}

  async resolve(token: string, now: number = this.clock.now()): Promise<Principal | null> {
    const version = this.store.credentialsVersion();
    if (version !== this.cacheVersion) {
      this.cache.clear();
      this.cacheVersion = version;
    }
    const hit = this.cache.get(token);
    if (hit) return hit.expiresAt > now ? hit.principal : null;

    const access = await this.tokens.authenticate(token);
    if (!access) return null;
    const account = await this.store.accounts.byId(access.accountId);
    if (!account) return null;
    // The audit log names the agent as its signup did (its agent_name), by its grant.
    const signup = await this.store.oauth.signupOf(account.id);
    const principal: Principal = {
      kind: 'bearer',
      credentialId: access.grantId,
      account,
      scopes: access.scopes,
      access: null,
      key: null,
      actor: { kind: 'agent', id: access.grantId, name: signup?.agentName ?? 'agent' },
    };
    this.cache.set(token, { principal, expiresAt: access.expiresAt });
    return principal;
  }
}
