import type { LineReader } from './line-reader.js';
import { ProbeError } from './probe-errors.js';
import type { ProbeScope } from './probe-scope.js';

export interface MailSession {
  reader: LineReader;
  scope: ProbeScope;
}

/** The few commands a mail probe needs, in one protocol's words. */
export interface MailDialect {
  /** The greeting, and whether it says the server is ready. */
  greeting(session: MailSession): Promise<{ banner: string; positive: boolean }>;
  offersStartTls(session: MailSession): Promise<boolean>;
  /** Asks the server to start TLS; throws when it refuses. */
  requestStartTls(session: MailSession): Promise<void>;
  quit(session: MailSession): Promise<unknown>;
}

const anyLine = (): boolean => true;
const last = (lines: string[]): string => lines[lines.length - 1] ?? '';

// SMTP: "250-…" continues a reply, "250 …" ends it (RFC 5321 4.2.1).
const smtpEnd = (line: string): boolean => !/^\d{3}-/.test(line);
const smtpCode = (lines: string[]): number => Number(last(lines).slice(0, 3));

export const smtp: MailDialect = {
  async greeting({ reader, scope }) {
    const lines = await reader.response(scope, smtpEnd);
    return { banner: lines.join('\n'), positive: smtpCode(lines) === 220 };
  },
  async offersStartTls({ reader, scope }) {
    reader.write('EHLO vigil');
    const lines = await reader.response(scope, smtpEnd);
    return smtpCode(lines) === 250 && lines.some((l) => /^250[ -]STARTTLS\b/i.test(l));
  },
  async requestStartTls({ reader, scope }) {
    reader.write('STARTTLS');
    const lines = await reader.response(scope, smtpEnd);
    if (smtpCode(lines) !== 220) throw new ProbeError(`STARTTLS refused: ${last(lines)}`);
  },
  quit({ reader, scope }) {
    reader.write('QUIT');
    return reader.response(scope, smtpEnd);
  },
};

const pop3Ok = (line: string): boolean => /^\+OK\b/i.test(line);

export const pop3: MailDialect = {
  async greeting({ reader, scope }) {
    const [line = ''] = await reader.response(scope, anyLine);
    return { banner: line, positive: pop3Ok(line) };
  },
  async offersStartTls({ reader, scope }) {
    reader.write('CAPA');
    const [status = ''] = await reader.response(scope, anyLine);
    if (!pop3Ok(status)) return false;
    const capabilities = await reader.response(scope, (l) => l === '.');
    return capabilities.some((l) => /^STLS\b/i.test(l));
  },
  async requestStartTls({ reader, scope }) {
    reader.write('STLS');
    const [line = ''] = await reader.response(scope, anyLine);
    if (!pop3Ok(line)) throw new ProbeError(`STARTTLS refused: ${line}`);
  },
  quit({ reader, scope }) {
    reader.write('QUIT');
    return reader.response(scope, anyLine);
  },
};

/** Reads an IMAP command's untagged lines up to its tagged completion. */
const tagged = (tag: string) => (line: string): boolean => line.startsWith(`${tag} `);

export const imap: MailDialect = {
  async greeting({ reader, scope }) {
    const [line = ''] = await reader.response(scope, anyLine);
    return { banner: line, positive: /^\* (OK|PREAUTH)\b/i.test(line) };
  },
  async offersStartTls({ reader, scope }) {
    reader.write('a1 CAPABILITY');
    const lines = await reader.response(scope, tagged('a1'));
    return /^a1 OK\b/i.test(last(lines)) && lines.some((l) => /^\* CAPABILITY\b/i.test(l) && /\bSTARTTLS\b/i.test(l));
  },
  async requestStartTls({ reader, scope }) {
    reader.write('a2 STARTTLS');
    const lines = await reader.response(scope, tagged('a2'));
    if (!/^a2 OK\b/i.test(last(lines))) throw new ProbeError(`STARTTLS refused: ${last(lines)}`);
  },
  quit({ reader, scope }) {
    reader.write('a3 LOGOUT');
    return reader.response(scope, tagged('a3'));
  },
};
