import type { FeatureModule } from './feature.js';
import { OutboundRules } from '../store/outbound-rules.js';
import { ChecksService } from '../core/checks-service.js';

declare module './feature.js' {
  interface Provided {
    checks: ChecksService;
    /** One outbound rule per account for its probes (here and on nodes) and its alert deliveries. */
    outbound: OutboundRules;
  }
}

/** Checks themselves: the service every other feature follows for their edits. */
export const checksFeature: FeatureModule = {
  name: 'checks',
  build({ store, config, clock }, parts) {
    const checks = new ChecksService(store, config, clock);
    parts.give('checks', checks);
    parts.give('outbound', new OutboundRules(config, store.accounts));
    return {
      // Checks the CLI created or changed on this data directory start probing within a second.
      jobs: [{ name: 'checks-catch-up', scope: 'every-central', everyMs: 1_000, run: () => checks.catchUp() }],
    };
  },
};
