import type { ChecksService } from '../core/checks-service.js';
import type { Clock } from '../domain/clock.js';
import { hashSecret, newId } from '../domain/secrets.js';
import { newUser, SYSTEM_ACTOR } from '../domain/people.js';
import { AuditLog } from '../core/audit-log.js';
import type { Store } from '../store/store.js';
import type { OAuthRepo } from '../store/oauth-repo.js';
import { CLAIM_TOKEN_PATTERN } from './tokens.js';

/** The checks an unclaimed account's pause (after 7 days) stopped carry this reason. */
export const UNCLAIMED_PAUSE_REASON = 'Paused: the account was not claimed within 7 days of its agent signup';
const CLAIM_RESUME_REASON = 'Resumed: the account was claimed';

/** Where a claim link stands: `open` shows the button, `claimed` was used, `invalid` is unknown or expired. */
export type ClaimView =
  | { state: 'open'; email: string; agentName: string | null }
  | { state: 'done'; email: string; resumedChecks: number }
  | { state: 'claimed'; email: string }
  | { state: 'invalid' };

/**
 * The claim of an agent-created account (spec 3, decisions §9): the link from the claim email
 * works once and until the account would be deleted. Claiming makes alerts deliverable and
 * resumes the checks the 7-day pause stopped (not those a user paused).
 */
export class ClaimService {
  constructor(
    private readonly store: Store,
    private readonly repo: OAuthRepo,
    private readonly checks: ChecksService,
    private readonly clock: Clock,
  ) {}

  async inspect(token: string): Promise<ClaimView> {
    return (await this.find(token)).view;
  }

  async claim(token: string): Promise<ClaimView> {
    const claimed = await this.store.transaction(async () => {
      const { view, accountId } = await this.find(token);
      if (view.state !== 'open' || accountId === null) return { view, accountId: null };
      if (!(await this.repo.markClaimed(accountId, this.clock.now()))) return { view: { state: 'claimed', email: view.email } as ClaimView, accountId: null };
      await this.claimed(accountId, view.email);
      return { view, accountId };
    });
    if (claimed.accountId === null || claimed.view.state !== 'open') return claimed.view;
    const resumedChecks = await this.checks.resumeAccount(claimed.accountId, UNCLAIMED_PAUSE_REASON, CLAIM_RESUME_REASON);
    return { state: 'done', email: claimed.view.email, resumedChecks };
  }

  /**
   * The operator's claim (`vigil account claim`), for servers without SMTP where no claim email
   * can reach the user. Returns how many checks the 7-day pause had stopped and were resumed.
   */
  async claimAccount(accountId: string): Promise<number> {
    const changed = await this.store.transaction(async () => {
      const account = await this.store.accounts.byId(accountId);
      if (!account || account.claimed) return false;
      await this.repo.markClaimed(accountId, this.clock.now());
      await this.claimed(accountId, account.email);
      return true;
    });
    return changed ? this.checks.resumeAccount(accountId, UNCLAIMED_PAUSE_REASON, CLAIM_RESUME_REASON) : 0;
  }

  /**
   * The account is claimed, in the caller's unit of work: whoever claimed it owns it (issue 28), as
   * a member with the account's email unless that address is a member already.
   */
  private async claimed(accountId: string, email: string): Promise<void> {
    const now = this.clock.now();
    await this.store.accounts.setClaimed(accountId);
    const audit = new AuditLog(this.store, this.clock);
    await audit.record({ actor: SYSTEM_ACTOR }, accountId, 'account.claim', { kind: 'account', id: accountId, name: email }, ['claimed']);
    if (await this.store.users.byEmail(email)) return;
    const owner = newUser(newId('usr'), accountId, email, 'owner', null, now);
    await this.store.users.insert(owner);
    await audit.record({ actor: SYSTEM_ACTOR }, accountId, 'member.create', { kind: 'member', id: owner.id, name: email }, ['email', 'role']);
  }

  private async find(token: string): Promise<{ view: ClaimView; accountId: string | null }> {
    const invalid = { view: { state: 'invalid' } as ClaimView, accountId: null };
    if (!CLAIM_TOKEN_PATTERN.test(token)) return invalid;
    const signup = await this.repo.signupByClaimHash(hashSecret(token));
    const account = signup ? await this.store.accounts.byId(signup.accountId) : null;
    if (!signup || !account) return invalid;
    if (signup.claimedAt !== null || account.claimed) return { view: { state: 'claimed', email: account.email }, accountId: null };
    if (signup.claimExpiresAt <= this.clock.now()) return invalid;
    return { view: { state: 'open', email: account.email, agentName: signup.agentName }, accountId: account.id };
  }
}
