import type { Clock } from '../domain/clock.js';
import { AuditLog } from '../core/audit-log.js';
import { SYSTEM_ACTOR } from '../domain/people.js';
import { oauthError, type ApiError } from '../domain/errors.js';
import type { Scope } from '../domain/records.js';
import { hashSecret, newId } from '../domain/secrets.js';
import type { Store } from '../store/store.js';
import type { FoundToken, OAuthRepo, OAuthToken, TokenKind } from '../store/oauth-repo.js';
import {
  ACCESS_TOKEN_PATTERN,
  ACCESS_TOKEN_TTL_MS,
  newAccessToken,
  newGrantId,
  newRefreshToken,
  REFRESH_TOKEN_PATTERN,
  REFRESH_TOKEN_TTL_MS,
} from './tokens.js';

/** The token response of RFC 6749 §5.1 (decisions §9), shared by signup and refresh. */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

export interface RefreshRequest {
  grant_type?: string;
  refresh_token?: string;
  scope?: string;
}

/** An access token that authenticates: its grant (the rate-limit bucket), account and scopes. */
export interface ValidAccess {
  grantId: string;
  accountId: string;
  scopes: Scope[];
  expiresAt: number;
}

/**
 * Issues, rotates and checks tokens. Refresh tokens rotate on use; presenting a spent one is
 * taken as theft (RFC 6819 §5.2.2.3) and revokes the whole grant, the thief's new tokens too.
 */
export class TokenService {
  constructor(
    private readonly store: Store,
    private readonly repo: OAuthRepo,
    private readonly clock: Clock,
  ) {}

  /** A new grant with its first token pair (agent signup), inside the caller's transaction. */
  async issueGrant(accountId: string, scopes: readonly Scope[], grantId: string = newGrantId()): Promise<TokenResponse> {
    const now = this.clock.now();
    await this.repo.insertGrant({ id: grantId, accountId, scopes: [...scopes], revokedAt: null, createdAt: now });
    return this.issuePair(grantId, accountId, scopes, scopes, now);
  }

  /** POST /oauth/token (spec 4.12): every failure is an RFC 6749 error with Cache-Control: no-store. */
  async refresh(form: RefreshRequest): Promise<TokenResponse> {
    // RFC 6749 §3.2: a parameter sent without a value counts as omitted.
    const grantType = form.grant_type || undefined;
    const presented = form.refresh_token || undefined;
    if (grantType === undefined) throw tokenError('invalid_request', 'grant_type is required');
    if (grantType !== 'refresh_token') {
      throw tokenError('unsupported_grant_type', `grant_type ${grantType} is not supported; this server issues tokens by agent signup and refreshes them with grant_type=refresh_token`);
    }
    if (presented === undefined) throw tokenError('invalid_request', 'refresh_token is required');

    const outcome = await this.store.transaction(() => this.rotate(presented, form.scope));
    // Thrown after the transaction, so the revocation of a reused token's grant is committed.
    if ('error' in outcome) throw outcome.error;
    return outcome.tokens;
  }

  /** The access token's grant and scopes, or null when it is unknown, expired or revoked. */
  async authenticate(accessToken: string): Promise<ValidAccess | null> {
    if (!ACCESS_TOKEN_PATTERN.test(accessToken)) return null;
    const token = await this.repo.tokenByHash(hashSecret(accessToken));
    if (!token || token.kind !== 'access' || token.grantRevokedAt !== null) return null;
    if (token.expiresAt <= this.clock.now()) return null;
    return { grantId: token.grantId, accountId: token.accountId, scopes: token.scopes, expiresAt: token.expiresAt };
  }

  private async rotate(presented: string, scopeParam: string | undefined): Promise<{ tokens: TokenResponse } | { error: ApiError }> {
    const now = this.clock.now();
    const token = REFRESH_TOKEN_PATTERN.test(presented) ? await this.repo.tokenByHash(hashSecret(presented)) : null;
    if (!token || token.kind !== 'refresh') return { error: tokenError('invalid_grant', 'The refresh token is not valid') };
    if (token.grantRevokedAt !== null) return { error: tokenError('invalid_grant', 'The refresh token has been revoked') };
    if (token.usedAt !== null) {
      await this.repo.revokeGrant(token.grantId, now);
      const reuse = { actor: { ...SYSTEM_ACTOR, name: 'Vigil (a spent refresh token was presented again)' } };
      await new AuditLog(this.store, this.clock).record(reuse, token.accountId, 'agent.revoke', { kind: 'agent', id: token.grantId, name: 'agent' }, ['revokedAt']);
      return {
        error: tokenError('invalid_grant', 'The refresh token was already used; every token of this grant is now revoked. Sign up again or ask the account owner for an API key'),
      };
    }
    if (token.expiresAt <= now) return { error: tokenError('invalid_grant', 'The refresh token has expired') };
    const scopes = narrowedScopes(token, scopeParam);
    if (scopes === null) {
      return { error: tokenError('invalid_scope', `scope may only name scopes of the grant: ${token.scopes.join(' ')}`) };
    }
    if (!(await this.repo.markUsed(token.id, now))) return { error: tokenError('invalid_grant', 'The refresh token was already used') };
    return { tokens: await this.issuePair(token.grantId, token.accountId, scopes, token.scopes, now) };
  }

  private async issuePair(grantId: string, accountId: string, accessScopes: readonly Scope[], grantScopes: readonly Scope[], now: number): Promise<TokenResponse> {
    const access = newAccessToken();
    const refresh = newRefreshToken();
    await this.insert(access, 'access', grantId, accountId, accessScopes, now + ACCESS_TOKEN_TTL_MS, now);
    // The refresh token keeps the grant's full scope (RFC 6749 §6), whatever the access token narrowed to.
    await this.insert(refresh, 'refresh', grantId, accountId, grantScopes, now + REFRESH_TOKEN_TTL_MS, now);
    return {
      access_token: access,
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_TTL_MS / 1000,
      refresh_token: refresh,
      scope: accessScopes.join(' '),
    };
  }

  private async insert(secret: string, kind: TokenKind, grantId: string, accountId: string, scopes: readonly Scope[], expiresAt: number, now: number): Promise<void> {
    const token: OAuthToken = { id: newId('tok'), grantId, accountId, kind, scopes: [...scopes], expiresAt, usedAt: null, createdAt: now };
    await this.repo.insertToken(token, hashSecret(secret));
  }
}

/** The requested scope (RFC 6749 §6) when it stays within the grant; the grant's when absent. */
function narrowedScopes(token: FoundToken, scopeParam: string | undefined): Scope[] | null {
  if (!scopeParam || scopeParam.trim() === '') return token.scopes;
  const requested = [...new Set(scopeParam.trim().split(/\s+/))];
  if (!requested.every((s) => (token.scopes as string[]).includes(s))) return null;
  return requested as Scope[];
}

/** Token endpoint errors must not be cached either (RFC 6749 §5.2 with §5.1). */
export function tokenError(code: string, description: string): ApiError {
  return oauthError(400, code, description).withHeaders(NO_STORE);
}

export const NO_STORE: Record<string, string> = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
