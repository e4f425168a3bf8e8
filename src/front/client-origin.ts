/** Who sent a request and over which scheme, as Vigil believes it. */
export interface ClientOrigin {
  address: string;
  scheme: 'http' | 'https';
}

/** The last entry of a comma-separated forwarded header: the one our own proxy added. */
function lastHop(value: string | undefined): string | undefined {
  const hop = value?.split(',').pop()?.trim();
  return hop ? hop : undefined;
}

/**
 * The client's address and scheme. Behind a reverse proxy (`server.trustProxy`) they come from
 * X-Forwarded-For and X-Forwarded-Proto, taking the entry the proxy appended (a client can write
 * anything before it); otherwise from the connection, and any forwarded header is ignored, so a
 * client talking to Vigil directly cannot pretend to be someone else.
 */
export function clientOrigin(peer: string, headers: Record<string, string>, trustProxy: boolean): ClientOrigin {
  if (!trustProxy) return { address: peer, scheme: 'http' };
  const proto = lastHop(headers['x-forwarded-proto'])?.toLowerCase();
  return {
    address: lastHop(headers['x-forwarded-for']) ?? peer,
    scheme: proto === 'https' ? 'https' : 'http',
  };
}
