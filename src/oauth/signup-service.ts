import type { Config } from '../config.js';
import type { Clock } from '../domain/clock.js';
import { oauthError } from '../domain/errors.js';
import type { Mailer } from '../alerts/delivery/mailer.js';
import type { Account } from '../domain/records.js';
import { hashSecret, newId } from '../domain/secrets.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/store.js';
import { claimEmail } from './claim-email.js';
import { parseSignupEmail } from './email-address.js';
import { canReceiveMail, type MailDomainResolver } from './email-domain.js';
import { nextSteps } from './next-steps.js';
import type { OAuthRepo } from '../store/oauth-repo.js';
import type { TokenResponse, TokenService } from './token-service.js';
import { AuditLog } from '../core/audit-log.js';
import { CLAIM_LINK_TTL_MS, DAY_MS, newClaimToken, newGrantId, SIGNUP_SCOPES, UNCLAIMED_DELETE_AFTER_MS, UNCLAIMED_PAUSE_AFTER_MS } from './tokens.js';

export interface SignupInput {
  email: string;
  agent_name?: string;
}

/** Spec 2.11. */
export interface SignupResponse extends TokenResponse {
  account: { email: string; status: 'unclaimed'; claim_email_sent: boolean };
  mcp_url: string;
  api_base: string;
  next_steps: string;
}

export interface SignupDeps {
  store: Store;
  repo: OAuthRepo;
  tokens: TokenService;
  mailer: Mailer;
  resolver: MailDomainResolver;
  config: Config;
  clock: Clock;
  log: Logger;
  /** How long a signup waits for the mail server before answering claim_email_sent: false. */
  claimEmailWaitMs?: number;
}

/** What agents sign up for: the smallest plan; the human upgrades after claiming. */
export const SIGNUP_TIER = 'free';
const AGENT_NAME_MAX = 60;
const CLAIM_EMAIL_WAIT_MS = 15_000;

/**
 * Agent signup (spec 4.11): one call creates an unclaimed account with a token pair and mails
 * its owner the claim link. Every error is an RFC 6749-style `{error, error_description}`.
 */
export class SignupService {
  constructor(private readonly deps: SignupDeps) {}

  /** `address`: the client's, for the audit log. */
  async signup(input: SignupInput, address?: string): Promise<SignupResponse> {
    const { config, clock } = this.deps;
    if (!config.signup.enabled) throw oauthError(503, 'temporarily_unavailable', 'Agent signup is switched off on this server');
    const email = parseSignupEmail(input.email);
    if (!email) throw oauthError(400, 'invalid_request', 'email must be a valid email address (name@domain.tld)');
    const agentName = cleanAgentName(input.agent_name);
    await this.assertAvailable(email.address, clock.now());

    if (config.signup.verifyEmailDomain && (await canReceiveMail(email.domain, this.deps.resolver)) === 'no') {
      throw oauthError(400, 'invalid_request', `${email.address} cannot receive mail: ${email.domain} has no mail server (no MX and no A/AAAA record, or a null MX)`);
    }

    const claimToken = newClaimToken();
    const { account, tokens } = await this.deps.store.transaction(async () => {
      const now = clock.now();
      // Again: the DNS lookup let other signups in.
      await this.assertAvailable(email.address, now);
      const created: Account = { id: newId('acc'), email: email.address, tier: SIGNUP_TIER, maxChecksOverride: null, claimed: false, createdAt: now };
      await this.deps.store.accounts.insert(created);
      await this.deps.repo.insertSignup(
        { accountId: created.id, agentName, claimExpiresAt: now + CLAIM_LINK_TTL_MS, claimedAt: null, createdAt: now },
        hashSecret(claimToken),
      );
      const grantId = newGrantId();
      const tokens = await this.deps.tokens.issueGrant(created.id, SIGNUP_SCOPES, grantId);
      // The agent made the account: the audit log names it as its later changes do (its grant).
      const source = { actor: { kind: 'agent' as const, id: grantId, name: agentName ?? 'agent' }, address };
      await new AuditLog(this.deps.store, clock).record(source, created.id, 'account.create', { kind: 'account', id: created.id, name: created.email }, ['email', 'tier']);
      return { account: created, tokens };
    });

    const sent = await this.sendClaimEmail(account, agentName, `${config.publicUrl}/claim/${claimToken}`);
    const apiBase = `${config.publicUrl}/v1`;
    const mcpUrl = `${config.publicUrl}/mcp/v1`;
    return {
      ...tokens,
      account: { email: account.email, status: 'unclaimed', claim_email_sent: sent },
      mcp_url: mcpUrl,
      api_base: apiBase,
      next_steps: nextSteps({ apiBase, mcpUrl, tokenEndpoint: `${config.publicUrl}/oauth/token`, email: account.email, claimEmailSent: sent }),
    };
  }

  /** 409 for a taken address, 429 past the daily limit (counted per UTC day). */
  private async assertAvailable(address: string, now: number): Promise<void> {
    if (await this.deps.store.accounts.byEmail(address)) {
      throw oauthError(409, 'account_exists', `An account for ${address} already exists; its owner can create an API key for you`);
    }
    const limit = this.deps.config.signup.dailyLimit;
    const dayStart = Math.floor(now / DAY_MS) * DAY_MS;
    if ((await this.deps.repo.countSignupsSince(dayStart)) >= limit) {
      const retryAfter = String(Math.max(1, Math.ceil((dayStart + DAY_MS - now) / 1000)));
      throw oauthError(429, 'temporarily_unavailable', `This server has reached its limit of ${limit} agent signups today (UTC); try again tomorrow`).withHeaders({
        'Retry-After': retryAfter,
        'RateLimit-Limit': String(limit),
        'RateLimit-Remaining': '0',
        'RateLimit-Reset': retryAfter,
      });
    }
  }

  /** True when the mail server took the message; a failure is logged and reported, never fatal. */
  private async sendClaimEmail(account: Account, agentName: string | null, claimUrl: string): Promise<boolean> {
    const { mailer, log, claimEmailWaitMs = CLAIM_EMAIL_WAIT_MS } = this.deps;
    if (!mailer.configured) {
      log.warn({ accountId: account.id }, 'agent signup: no claim email sent, smtp.url is not configured');
      return false;
    }
    const mail = claimEmail({
      email: account.email,
      agentName,
      claimUrl,
      createdAt: account.createdAt,
      pauseAt: account.createdAt + UNCLAIMED_PAUSE_AFTER_MS,
      deleteAt: account.createdAt + UNCLAIMED_DELETE_AFTER_MS,
    });
    let timer: NodeJS.Timeout | undefined;
    // A mail server that accepts the connection and then stalls must not hold the signup for minutes.
    const stalled = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer from the mail server within ${claimEmailWaitMs} ms`)), claimEmailWaitMs);
    });
    const sending = mailer.send(mail);
    // Once the wait is over, a late failure has nobody to tell.
    sending.catch(() => {});
    try {
      await Promise.race([sending, stalled]);
      return true;
    } catch (err) {
      log.warn({ accountId: account.id, err: (err as Error).message }, 'agent signup: the claim email could not be sent');
      return false;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Trimmed; empty means "no name". Control characters would forge lines in the email. */
function cleanAgentName(raw: string | undefined): string | null {
  const name = raw?.trim() ?? '';
  if (name === '') return null;
  if ([...name].length > AGENT_NAME_MAX) throw oauthError(400, 'invalid_request', `agent_name must be at most ${AGENT_NAME_MAX} characters`);
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(name)) throw oauthError(400, 'invalid_request', 'agent_name must not contain control characters');
  return name;
}
