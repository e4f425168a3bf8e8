import { accountRule, type OutboundSettings, type PrivateRefusal } from '../domain/outbound-policy.js';
import { Lru } from '../util/lru.js';
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
  /** Accounts whose rule the store is being asked for: the checks of an account scheduled at start ask once. */
  private readonly asking = new Map<string, Promise<PrivateRefusal | null>>();

  constructor(
    private readonly settings: OutboundSettings,
    private readonly accounts: Pick<Store['accounts'], 'createdBySignup'>,
  ) {
    const strangers = accountRule(settings, true);
    this.fixed = strangers === accountRule(settings, false) ? strangers : undefined;
  }

  /** The account's rule when known now (cached, or the config decides); else undefined: ask forAccount. */
  knownFor(accountId: string): PrivateRefusal | null | undefined {
    return this.fixed !== undefined ? this.fixed : this.known.get(accountId);
  }

  /** The account's rule once the store has answered (one question per account at a time). */
  forAccount(accountId: string): Promise<PrivateRefusal | null> {
    const known = this.knownFor(accountId);
    if (known !== undefined) return Promise.resolve(known);
    let asked = this.asking.get(accountId);
    if (asked === undefined) {
      asked = this.accounts.createdBySignup(accountId).then((bySignup) => {
        const answer = accountRule(this.settings, bySignup);
        this.known.set(accountId, answer);
        return answer;
      }).finally(() => this.asking.delete(accountId));
      this.asking.set(accountId, asked);
    }
    return asked;
  }
}
