import type { ConfigInput } from '../config.js';
import { createLogger } from '../log.js';
import { Prober } from './prober.js';

/** `vigil prober`: runs until SIGTERM/SIGINT, or exits 1 when the central refuses the token. */
export function runProber(opts: { servers: string[]; token: string; config: ConfigInput }): Promise<number> {
  const log = createLogger(opts.config.logLevel);
  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (code: number) => {
      if (stopping) return;
      stopping = true;
      prober.stop().then(
        () => resolve(code),
        (err: unknown) => {
          log.error({ err }, 'prober shutdown failed');
          resolve(1);
        },
      );
    };
    const prober = new Prober({ ...opts, log, onRefused: () => stop(1) });
    process.on('SIGTERM', () => stop(0));
    process.on('SIGINT', () => stop(0));
    prober.start();
  });
}
