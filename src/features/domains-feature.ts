import type { FeatureModule } from './feature.js';
import { DomainMonitor } from '../engine/domains/domain-monitor.js';
import { RdapBootstrap } from '../engine/domains/rdap-bootstrap.js';
import { RdapClient } from '../engine/domains/rdap-client.js';

declare module './feature.js' {
  interface Provided {
    /** Domain expiry lookups (RDAP) on the engine's wheel. */
    domains: DomainMonitor;
  }
}

/** Domain expiry: RDAP lookups of domain and website checks, on the engine's wheel. */
export const domainsFeature: FeatureModule = {
  name: 'domains',
  build({ store, config, clock, log, liveChecks: live, membership }, parts) {
    const rdap = config.rdap;
    const bootstrap = new RdapBootstrap({ overrides: rdap.servers, url: rdap.bootstrapUrl, timeoutMs: rdap.timeoutMs, clock, log });
    const domains = new DomainMonitor({
      store, watch: store.alerts.domainWatch, recorder: parts.need('recorder'), live, wheel: parts.need('engine').wheel, checks: parts.need('checks'),
      rdap: new RdapClient(bootstrap, rdap.timeoutMs), clock, config, log, ownership: membership.shared?.ownership,
    });
    parts.give('domains', domains);
    return {
      start: () => domains.start(),
      stop: () => domains.stop(),
    };
  },
};
