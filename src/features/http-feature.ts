import type { FeatureModule } from './feature.js';
import { RequestPipeline } from '../front/request-pipeline.js';

declare module './feature.js' {
  interface Provided {
    /** Every request's way through the front: auth, limits, idempotency, validation, the route. */
    pipeline: RequestPipeline;
  }
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** The front: the request pipeline over the routes of every feature, so it comes last in the list. */
export const httpFeature: FeatureModule = {
  name: 'http',
  build({ routes, rateLimiter, idempotency, store, config, clock, log, membership: { shared } }, parts) {
    parts.give('pipeline', new RequestPipeline({
      routes: routes.all, auth: parts.need('auth'), rateLimiter, idempotency, store, config, clock, log,
      // Several centrals: a central whose lease lapsed leaves requests to the others.
      available: shared ? () => shared.ownership.holding() : undefined,
    }));
    return { jobs: [{ name: 'idempotency-prune', scope: 'one-central', everyMs: HOUR, jitterMs: MINUTE, run: () => idempotency.prune() }] };
  },
};
