import { fork, type ChildProcess } from 'node:child_process';
import { isMainThread } from 'node:worker_threads';
import type { EchoOutcome, EchoRequest } from './icmp-echo.js';
import type { EchoJob, EchoReply } from './icmp-host.js';
import { bundledFile } from '../../util/bundled-file.js';
import { RequestChannel } from '../../util/request-channel.js';

const HOST_SCRIPT = bundledFile('icmp-host', new URL('./icmp-host.js', import.meta.url));

let host: ChildProcess | null = null;
/** While nothing is pending the helper must not keep this thread's event loop alive. */
const channel = new RequestChannel<EchoOutcome[]>((busy) => {
  if (host === null) return;
  if (busy) {
    host.ref();
    host.channel?.ref();
  } else {
    host.unref();
    host.channel?.unref();
  }
});

function helper(): ChildProcess {
  if (host) return host;
  const child = fork(HOST_SCRIPT, [], { execArgv: [], serialization: 'json', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  child.on('message', (message: EchoReply) => {
    if (message.outcomes) channel.resolve(message.id, message.outcomes);
    else channel.reject(message.id, new Error(message.error ?? 'ICMP helper failed'));
  });
  const gone = (): void => {
    if (host === child) host = null;
    channel.rejectAll(new Error('ICMP helper exited'));
  };
  child.on('exit', gone);
  child.on('error', gone);
  host = child;
  return child;
}

/**
 * Sends ICMP echoes. net-ping crashes the process when used from a worker thread (its raw
 * socket polls libuv's default loop), so probe threads hand the job to a helper process
 * they own; the main thread (tests, a CLI) sends directly.
 */
export async function sendEchoes(request: EchoRequest): Promise<EchoOutcome[]> {
  if (isMainThread) {
    // Imported lazily: a worker thread must not even load the native addon.
    const { echo } = await import('./icmp-echo.js');
    return echo(request);
  }
  const child = helper();
  return channel.request(undefined, (id) => {
    const job: EchoJob = { ...request, id };
    child.send(job);
  });
}
