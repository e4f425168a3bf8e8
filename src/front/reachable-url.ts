/**
 * The server's address as a process on its own machine reaches it: a wildcard host (every
 * address) is reached on loopback, an IPv6 literal is bracketed.
 */
export function reachableUrl(host: string, port: number | string): string {
  const reach = host === '' || host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reach.includes(':') ? `[${reach}]` : reach}:${port}`;
}
