import { ProbeError } from './probe-errors.js';
import { bareHost } from './resolve-target.js';

export interface HostPort {
  host: string;
  port: number;
}

/**
 * `tcp://host:port`, `udp://[::1]:53`, `smtp://host` to host and port. `defaultPorts` names
 * the accepted schemes; a scheme mapped to undefined requires an explicit port.
 */
export function parseHostPort(
  raw: string,
  defaultPorts: Readonly<Record<string, number | undefined>>,
): HostPort & { scheme: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ProbeError(`Invalid URL: ${raw}`);
  }
  const scheme = url.protocol.slice(0, -1);
  if (!Object.hasOwn(defaultPorts, scheme)) throw new ProbeError(`Unsupported URL scheme ${url.protocol}`);
  const port = url.port === '' ? defaultPorts[scheme] : Number(url.port);
  if (port === undefined) throw new ProbeError(`URL needs a port: ${scheme}://host:port`);
  return { scheme, host: bareHost(url.hostname), port };
}
