/**
 * `vigil healthcheck [URL]`: the container image's HEALTHCHECK, which has no curl. It asks
 * `/readyz` of the server in the same container (VIGIL_PORT, else 8080) and exits 0 when it
 * answers 200, 1 otherwise. It runs before the binary unpacks anything: a check every 30 s
 * costs one small process.
 */
export async function healthcheck(url: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const target = url ?? `http://127.0.0.1:${env.VIGIL_PORT || '8080'}/readyz`;
  try {
    const res = await fetch(target, { signal: AbortSignal.timeout(5000) });
    process.stdout.write(`${res.status} ${target}\n`);
    return res.status === 200 ? 0 : 1;
  } catch (err) {
    process.stdout.write(`unreachable ${target}: ${(err as Error).message}\n`);
    return 1;
  }
}
