import type { ProbeResult, ProbeTask } from '../../domain/probe-types.js';
import { openConnection, startTls } from './connect.js';
import { LineReader } from './line-reader.js';
import { imap, pop3, smtp, type MailDialect, type MailSession } from './mail-dialects.js';
import { describeError, ProbeError } from './probe-errors.js';
import { emptyResult, snippetOf, timingOf } from './result.js';
import { runScoped } from './run-scoped.js';
import { parseHostPort } from './host-port.js';

/** How long QUIT/LOGOUT may take after the verdict is in. */
const QUIT_GRACE_MS = 1000;

const MODES: Record<string, { dialect: MailDialect; implicitTls: boolean }> = {
  smtp: { dialect: smtp, implicitTls: false },
  smtps: { dialect: smtp, implicitTls: true },
  pop3: { dialect: pop3, implicitTls: false },
  pop3s: { dialect: pop3, implicitTls: true },
  imap: { dialect: imap, implicitTls: false },
  imaps: { dialect: imap, implicitTls: true },
};

const DEFAULT_PORTS = { smtp: 25, smtps: 465, pop3: 110, pop3s: 995, imap: 143, imaps: 993 };

/**
 * `smtp`, `pop3`, `imap` checks (and their implicit-TLS `s` schemes): up when the greeting is
 * positive and, when a plain server offers STARTTLS, the upgrade succeeds. Timing: dns,
 * connect, tls (implicit handshake or STARTTLS upgrade), ttfb (connection ready → greeting),
 * total (→ end of the TLS upgrade, before QUIT).
 */
export function probeMail(task: ProbeTask): Promise<ProbeResult> {
  return runScoped(task, async (scope, seen) => {
    const { scheme, host, port } = parseHostPort(task.url, DEFAULT_PORTS);
    const mode = MODES[scheme]!;
    const connection = await openConnection(scope, {
      host,
      port,
      tls: mode.implicitTls,
      refusePrivate: task.refusePrivate,
    });
    seen.ssl = connection.ssl;
    const session: MailSession = { reader: new LineReader(connection.socket), scope };
    const { banner, positive } = await mode.dialect.greeting(session);
    const phases = { ...connection.phases, ttfb: scope.now() - connection.readyAt };
    const snippet = snippetOf(Buffer.from(banner, 'latin1'));
    seen.snippet = snippet;
    seen.timing = timingOf({ ...phases, total: scope.now() });
    seen.responseTime = seen.timing.total;
    if (!positive) {
      await scope.grace(mode.dialect.quit(session), QUIT_GRACE_MS);
      throw new ProbeError(`Server not ready: ${banner.split('\n')[0] ?? ''}`);
    }
    let ssl = connection.ssl;
    if (!mode.implicitTls && (await mode.dialect.offersStartTls(session))) {
      await mode.dialect.requestStartTls(session);
      session.reader.detach();
      try {
        const upgraded = await startTls(scope, connection.socket, host);
        phases.tls = upgraded.ms;
        ssl = upgraded.ssl;
        seen.ssl = ssl;
        session.reader = new LineReader(upgraded.socket);
      } catch (err) {
        if (scope.expired) throw err;
        throw new ProbeError(`STARTTLS failed: ${describeError(err)}`);
      }
    }
    const timing = timingOf({ ...phases, total: scope.now() });
    await scope.grace(mode.dialect.quit(session), QUIT_GRACE_MS);
    return { ...emptyResult(scope.startedAt), ok: true, responseTime: timing.total, timing, snippet, ssl };
  });
}
