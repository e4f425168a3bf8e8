import type { AlertContent } from '../alert-content.js';

/**
 * The generic payload, exactly as decisions §8 fixes it; the test payload has the same shape
 * with `test: true` and event `website_down`.
 */
export function genericPayload(c: AlertContent) {
  return {
    event: c.event,
    test: c.test,
    timestamp: new Date(c.at).toISOString(),
    check: { id: c.check.id, name: c.check.name, url: c.check.url, type: c.check.type, status: c.check.status },
    previousStatus: c.previousStatus,
    // Issue 17: a repeat website_down while the check stays down says so; other alerts keep decisions §8's exact shape.
    ...(c.reminder ? { reminder: true } : {}),
    details: {
      statusCode: c.details.statusCode,
      responseTime: c.details.responseTime,
      error: c.details.error,
      region: c.details.region,
      regions: c.details.regions,
    },
  };
}
