/** Polls `probe` until it returns something other than undefined, at most `tries` times `everyMs` apart. */
export async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, tries = 300, everyMs = 100): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`gave up waiting for ${what}`);
}
