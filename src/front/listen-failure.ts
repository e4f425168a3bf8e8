import { createServer } from 'node:net';
import { StartupError } from '../util/startup-error.js';

/**
 * uWS says only that it could not listen. Binding the same address with Node's net module
 * learns why, so the operator reads what to do instead of "cannot listen".
 */
export async function explainListenFailure(host: string, port: number): Promise<StartupError> {
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const code = await new Promise<string | null>((resolve) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(null)));
  });
  const advice: Record<string, string> = {
    EADDRINUSE: `the address is in use by another process; stop it, or set server.port (VIGIL_PORT) to a free port`,
    EACCES: `ports below 1024 need privileges: use a higher port behind a reverse proxy, or grant CAP_NET_BIND_SERVICE`,
    EADDRNOTAVAIL: `${host} is not an address of this machine; set server.host (VIGIL_HOST)`,
    ENOTFOUND: `${host} does not resolve; set server.host (VIGIL_HOST) to an address of this machine`,
  };
  const why = code === null ? 'the address could not be bound' : (advice[code] ?? code);
  return new StartupError(`cannot listen on ${where}: ${why}`);
}
