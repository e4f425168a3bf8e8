// The dashboard speaks only the public REST API (same routes, same rules as any client); the
// session cookie is its credential, sent automatically on same-origin requests.

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

let onSignedOut = () => {};
export function whenSignedOut(listener) {
  onSignedOut = listener;
}

export async function api(method, path, body, headers = {}) {
  const init = { method, headers: { Accept: 'application/json', ...headers }, credentials: 'same-origin' };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers['Content-Type'] = 'application/json';
  }
  const res = await fetch(`/v1/public${path}`, init);
  if (res.status === 204) return null;
  const json = await res.json().catch(() => null);
  if (!res.ok) {
    const message = json?.error?.message ?? `HTTP ${res.status}`;
    if (res.status === 401 && !path.startsWith('/sessions')) onSignedOut(message);
    throw new ApiError(res.status, message);
  }
  return json;
}

/** Creates need an Idempotency-Key (spec 4.3); a retry of the same submit reuses it. */
export const newIdempotencyKey = () => crypto.randomUUID();
