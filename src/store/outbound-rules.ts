import { accountRule, type OutboundSettings, type PrivateRefusal } from '../domain/outbound-policy.js';
import { Lru } from '../util/lru.js';
import { whenAnswered, type Answer } from './answer.js';
import type { Store } from './store.js';

/**
 * The outbound rule of each account's connections (its probes, on the central and on prober
 * nodes, and its alert webhooks and chat messages): docs/outbound-policy.md. How an account was
 * created never changes, so an answer is kept; when the config alone decides, the store is
 * never asked.
 */
export class OutboundRules {
  private readonly known = new Lru<string, PrivateRefusal | null>(10_000);
  private readonly fixed: PrivateRefusal | null | undefined;

  constructor(
    private readonly settings: OutboundSettings,
    private readonly accounts: Pick<Store['accounts'], 'createdBySignup'>,
  ) {
    const strangers = accountRule(settings, true);
    this.fixed = strangers === accountRule(settings, false) ? strangers : undefined;
  }

  /** The account's rule: at once when known (or the config decides), else once the store answers. */
  forAccount(accountId: string): Answer<PrivateRefusal | null> {
    if (this.fixed !== undefined) return this.fixed;
    const rule = this.known.get(accountId);
    if (rule !== undefined) return rule;
    return whenAnswered(this.accounts.createdBySignup(accountId), (bySignup) => {
      const answer = accountRule(this.settings, bySignup);
      this.known.set(accountId, answer);
      return answer;
    });
  }
}
