import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';

/** What the alert benchmarks share: the test CA trusted in a child process, and the bare undici baseline. */

export const TEST_CA = fileURLToPath(new URL('../../../test/helpers/fixtures/tls/ca.pem', import.meta.url));

/**
 * Runs the benchmark file `self` again in a child that trusts the receiver's CA, the way an
 * operator trusts a private CA (Node reads NODE_EXTRA_CA_CERTS at start); resolves with its report.
 */
export function inChildTrustingTestCa(self: string, name: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [self], { env: { ...process.env, NODE_EXTRA_CA_CERTS: TEST_CA }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('close', (code) => (code === 0 ? resolve(out.trimEnd()) : reject(new Error(`${name} bench exited with ${code}`))));
  });
}

/** The baseline: undici POSTing one generic payload at a time per worker, keep-alive, as many in flight as Vigil allows. */
export async function bareUndici(origin: string, body: string, total: number, inFlight: number) {
  const agent = new Agent({ connections: inFlight, keepAliveTimeout: 10_000 });
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < total) {
      next++;
      const res = await request(`${origin}/baseline`, { method: 'POST', body, headers: { 'content-type': 'application/json' }, dispatcher: agent });
      await res.body.dump();
      if (res.statusCode !== 200) throw new Error(`baseline got ${res.statusCode}`);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const ms = performance.now() - started;
  await agent.close();
  return { ms, rate: total / (ms / 1000) };
}
