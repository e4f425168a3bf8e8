import type { Clock } from '../domain/clock.js';
import { errors } from '../domain/errors.js';
import type { BearerResolver, Principal } from '../core/principal.js';
import { keyPrincipal } from '../core/key-principal.js';
import { sessionToken } from '../people/sessions-service.js';
import { API_KEY_PATTERN, API_KEY_PREFIX, hashSecret } from '../domain/secrets.js';
import { Lru } from '../util/lru.js';
import { whenAnswered, type Answer, type Store } from '../store/store.js';

/** Turns a dashboard session cookie into a principal, or throws the 401 saying why not. */
export interface SessionResolver {
  resolve(token: string, challenge: string): Answer<Principal>;
}

/**
 * Resolves X-Api-Key or Authorization: Bearer into a principal. Every request reads the key's
 * current row, so a key revoked or disabled from the CLI fails on the very next request.
 * An API key is accepted as a bearer token too (many MCP clients and every Prometheus scraper
 * can send only `Authorization: Bearer`), with exactly the principal X-Api-Key would give.
 */
export class Authenticator {
  private readonly bearers: BearerResolver[] = [];
  private sessions: { resolver: SessionResolver; publicOrigin: string } | null = null;
  /**
   * Valid keys already resolved, dropped whenever any credential changes anywhere (the store's
   * credentialsVersion covers other processes too), so the CLI's revoke still bites at once.
   */
  private readonly cache = new Lru<string, { principal: Principal; expiresAt: number | null }>(10_000);
  private cacheVersion = '';

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly challenge: string,
  ) {}

  addBearerResolver(resolver: BearerResolver): void {
    this.bearers.push(resolver);
  }

  /** Session cookies are accepted once this is set; mutations with one must come from the public origin. */
  setSessionResolver(resolver: SessionResolver, publicUrl: string): void {
    this.sessions = { resolver, publicOrigin: new URL(publicUrl).origin };
  }

  /** Synchronous when the key is cached (the hot path); otherwise the promise of the principal. */
  authenticate(headers: Record<string, string>, challenge = this.challenge, method = 'GET'): Answer<Principal> {
    const apiKey = headers['x-api-key'];
    if (apiKey !== undefined) return this.fromApiKey(apiKey.trim(), challenge);
    const authorization = headers['authorization'];
    if (authorization !== undefined) {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
      if (!match) throw this.fail('Authorization header must be "Bearer <token>"', challenge);
      return this.fromBearer(match[1]!, challenge);
    }
    const session = this.sessions ? sessionToken(headers['cookie']) : null;
    if (session !== null) {
      if (method !== 'GET' && method !== 'HEAD') this.requireSameOrigin(headers);
      return this.sessions!.resolver.resolve(session, challenge);
    }
    throw errors.unauthorized('Missing credentials: send X-Api-Key or Authorization: Bearer', challenge);
  }

  /**
   * A cookie rides along on any request the browser makes, so a change it authorises must come
   * from a page of ours: the Origin is Vigil's public origin or the host the request was sent to.
   */
  private requireSameOrigin(headers: Record<string, string>): void {
    const origin = headers['origin'];
    if (origin !== undefined && (origin === this.sessions!.publicOrigin || hostOf(origin) === headers['host'])) return;
    throw errors.forbidden(`A change made with a session cookie must come from ${this.sessions!.publicOrigin} (Origin: ${origin ?? 'none'})`);
  }

  private fromApiKey(secret: string, challenge: string): Answer<Principal> {
    const version = this.store.credentialsVersion();
    if (version !== this.cacheVersion) {
      this.cache.clear();
      this.cacheVersion = version;
    }
    const hit = this.cache.get(secret);
    if (hit) {
      if (hit.expiresAt !== null && hit.expiresAt <= this.clock.now()) throw this.fail('API key has expired', challenge);
      return hit.principal;
    }
    return this.lookupApiKey(secret, challenge).then((principal) => {
      this.cache.set(secret, { principal, expiresAt: principal.key!.expiresAt });
      return principal;
    });
  }

  private async lookupApiKey(secret: string, challenge: string): Promise<Principal> {
    if (!API_KEY_PATTERN.test(secret)) throw this.fail('Invalid API key', challenge);
    const key = await this.store.keys.byHash(hashSecret(secret));
    if (!key) throw this.fail('Invalid API key', challenge);
    const principal = await keyPrincipal(this.store, key, this.clock.now());
    if (typeof principal === 'string') throw this.fail(principal, challenge);
    return principal;
  }

  private fromBearer(token: string, challenge: string): Answer<Principal> {
    if (token.startsWith(API_KEY_PREFIX)) return this.fromApiKey(token, challenge);
    return this.fromResolvers(token, challenge, this.clock.now(), 0);
  }

  /** The first bearer resolver that knows the token, in the order they were added. */
  private fromResolvers(token: string, challenge: string, now: number, i: number): Answer<Principal> {
    const resolver = this.bearers[i];
    if (resolver === undefined) throw this.fail('Invalid or expired access token', challenge);
    return whenAnswered(resolver.resolve(token, now), (principal) => principal ?? this.fromResolvers(token, challenge, now, i + 1));
  }

  private fail(message: string, challenge: string) {
    return errors.unauthorized(message, `${challenge}, error="invalid_token"`);
  }
}

function hostOf(origin: string): string | null {
  try {
    return new URL(origin).host;
  } catch {
    return null;
  }
}
