/**
 * The one error registry. Every error Vigil answers with is created here, with its HTTP status,
 * a stable machine code (for logs and tests) and a message; handlers throw these and the front
 * renders them in the shape the spec and decisions §7 fix for the route.
 */
export type ErrorShape =
  /** `{error: {code: <status>, message}}`: everywhere unless the spec shows another shape. */
  | 'standard'
  /** `{error: message}`: multi-range stats validation. */
  | 'plain'
  /** `{error, error_description}`: OAuth endpoints (RFC 6749). */
  | 'oauth'
  /** `{ok: false, error}`: heartbeat ingest. */
  | 'heartbeat';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
    /** Overrides the route's shape (e.g. stats range errors inside a standard-shaped route). */
    readonly shape?: ErrorShape,
    /** Extra fields of the standard error object, e.g. `delivered` of a failed email test (spec 4.8). */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }

  withHeaders(headers: Record<string, string>): ApiError {
    return new ApiError(this.status, this.code, this.message, { ...this.headers, ...headers }, this.shape, this.details);
  }
}

export const errors = {
  badRequest: (message: string) => new ApiError(400, 'bad_request', message),
  invalidJson: () => new ApiError(400, 'invalid_json', 'Request body is not valid JSON'),
  rangeInvalid: (message: string) => new ApiError(400, 'invalid_range', message, {}, 'plain'),
  unauthorized: (message: string, challenge: string) =>
    new ApiError(401, 'unauthorized', message, { 'WWW-Authenticate': challenge }),
  forbidden: (message: string) => new ApiError(403, 'forbidden', message),
  accountUnclaimed: () =>
    new ApiError(403, 'account_unclaimed', 'account_unclaimed: claim the account from the email sent at signup to enable alerts'),
  notFound: (message: string) => new ApiError(404, 'not_found', message),
  routeNotFound: (method: string, path: string) =>
    new ApiError(404, 'route_not_found', `No endpoint matches ${method} ${path}`),
  conflict: (message: string) => new ApiError(409, 'conflict', message),
  preconditionFailed: (message: string) => new ApiError(412, 'precondition_failed', message),
  payloadTooLarge: (limit: number) =>
    new ApiError(413, 'payload_too_large', `Request body is larger than ${limit} bytes`),
  unprocessable: (message: string) => new ApiError(422, 'unprocessable', message),
  rateLimited: (retryAfterSeconds: number) =>
    new ApiError(429, 'rate_limited', `Rate limit exceeded; retry in ${retryAfterSeconds} s`, {
      'Retry-After': String(retryAfterSeconds),
    }),
  internal: () => new ApiError(500, 'internal', 'Internal server error'),
  badGateway: (message: string) => new ApiError(502, 'bad_gateway', message),
  emailTestFailed: (message: string, delivered: string[]) =>
    new ApiError(502, 'email_test_failed', message, {}, undefined, { delivered }),
  unavailable: (message: string) => new ApiError(503, 'unavailable', message),
} as const;

/** OAuth (RFC 6749) errors: `error` is the machine code itself. */
export function oauthError(status: number, code: string, description: string): ApiError {
  return new ApiError(status, code, description, {}, 'oauth');
}

/** The front's own errors (validation, JSON, limits, crashes) on an OAuth route, in RFC 6749's words. */
const OAUTH_CODES: Record<string, string> = {
  bad_request: 'invalid_request',
  invalid_json: 'invalid_request',
  payload_too_large: 'invalid_request',
  rate_limited: 'temporarily_unavailable',
  unavailable: 'temporarily_unavailable',
  internal: 'server_error',
};

export function errorBody(err: ApiError, routeShape: ErrorShape): unknown {
  switch (err.shape ?? routeShape) {
    case 'plain':
      return { error: err.message };
    case 'oauth':
      return { error: OAUTH_CODES[err.code] ?? err.code, error_description: err.message };
    case 'heartbeat':
      return { ok: false, error: err.code };
    case 'standard':
      return { error: { code: err.status, message: err.message, ...err.details } };
  }
}
