import { fork, type ChildProcess } from 'node:child_process';
import { isMainThread } from 'node:worker_threads';
import type { EchoOutcome, EchoRequest } from './icmp-echo.js';
import type { EchoJob, EchoReply } from './icmp-host.js';
import { bundledFile } from '../../util/bundled-file.js';

interface Waiter {
  resolve: (outcomes: EchoOutcome[]) => void;
  reject: (err: Error) => void;
}

const HOST_SCRIPT = bundledFile('icmp-host', new URL('./icmp-host.js', import.meta.url));

let host: ChildProcess | null = null;
const waiting = new Map<number, Waiter>();
let nextId = 1;

/** While nothing is pending the helper must not keep this thread's event loop alive. */
function setHeld(child: ChildProcess, held: boolean): void {
  if (held) {
    child.ref();
    child.channel?.ref();
  } else {
    child.unref();
    child.channel?.unref();
  }
}

function failAll(reason: string): void {
  for (const waiter of waiting.values()) waiter.reject(new Error(reason));
  waiting.clear();
}

function helper(): ChildProcess {
  if (host) return host;
  const child = fork(HOST_SCRIPT, [], { execArgv: [], serialization: 'json', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  child.on('message', (message: EchoReply) => {
    const waiter = waiting.get(message.id);
    if (!waiter) return;
    waiting.delete(message.id);
    if (message.outcomes) waiter.resolve(message.outcomes);
    else waiter.reject(new Error(message.error ?? 'ICMP helper failed'));
    if (waiting.size === 0) setHeld(child, false);
  });
  const gone = (): void => {
    if (host === child) host = null;
    failAll('ICMP helper exited');
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
  const id = nextId++;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    setHeld(child, true);
    const job: EchoJob = { ...request, id };
    child.send(job);
  });
}
