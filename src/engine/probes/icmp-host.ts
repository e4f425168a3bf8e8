/**
 * Child process that sends ICMP echoes for the probe workers (see icmp-client.ts). It lives
 * as long as the worker that forked it: a closed IPC channel ends it.
 */
import { echo, type EchoOutcome, type EchoRequest } from './icmp-echo.js';

export interface EchoJob extends EchoRequest {
  id: number;
}

export interface EchoReply {
  id: number;
  outcomes?: EchoOutcome[];
  error?: string;
}

function reply(message: EchoReply): void {
  process.send?.(message);
}

process.on('message', (job: EchoJob) => {
  echo(job).then(
    (outcomes) => reply({ id: job.id, outcomes }),
    (err: unknown) => reply({ id: job.id, error: err instanceof Error ? err.message : String(err) }),
  );
});
process.on('disconnect', () => process.exit(0));
