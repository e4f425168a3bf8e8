import type { Socket } from 'node:net';
import { ProbeError } from './probe-errors.js';
import type { ProbeScope } from './probe-scope.js';

/** More than any sane banner or capability list: a server streaming junk is cut off. */
const MAX_BUFFERED = 64 * 1024;

/**
 * Reads CRLF-terminated lines from a text protocol socket (SMTP, POP3, IMAP). Detach it
 * before a STARTTLS upgrade hands the socket to TLS.
 */
export class LineReader {
  private pending = '';
  private readonly lines: string[] = [];
  private ended: Error | null = null;
  private wake: (() => void) | null = null;

  constructor(private readonly socket: Socket) {
    socket.on('data', this.onData);
    socket.on('end', this.onEnd);
    socket.on('close', this.onEnd);
    socket.on('error', this.onError);
  }

  private readonly onData = (chunk: Buffer): void => {
    this.pending += chunk.toString('latin1');
    let newline: number;
    while ((newline = this.pending.indexOf('\n')) !== -1) {
      this.lines.push(this.pending.slice(0, newline).replace(/\r$/, ''));
      this.pending = this.pending.slice(newline + 1);
    }
    if (this.pending.length > MAX_BUFFERED) this.ended = new ProbeError('Server sent an overlong line');
    this.notify();
  };

  private readonly onEnd = (): void => {
    this.ended ??= new ProbeError('Connection closed by server');
    this.notify();
  };

  private readonly onError = (err: Error): void => {
    this.ended ??= err;
    this.notify();
  };

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  /** Reads lines up to and including the first for which `isLast` is true. */
  async response(scope: ProbeScope, isLast: (line: string) => boolean): Promise<string[]> {
    const collected: string[] = [];
    let total = 0;
    for (;;) {
      const line = this.lines.shift();
      if (line !== undefined) {
        collected.push(line);
        total += line.length;
        if (total > MAX_BUFFERED) throw new ProbeError('Server response too long');
        if (isLast(line)) return collected;
        continue;
      }
      if (this.ended) throw this.ended;
      await scope.race(new Promise<void>((resolve) => (this.wake = resolve)));
    }
  }

  write(line: string): void {
    this.socket.write(`${line}\r\n`);
  }

  detach(): void {
    this.socket.off('data', this.onData);
    this.socket.off('end', this.onEnd);
    this.socket.off('close', this.onEnd);
    this.socket.off('error', this.onError);
  }
}
