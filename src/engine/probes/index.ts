import type { ProbeType } from '../../domain/check-types.js';
import type { ProbeResult, ProbeTask } from '../../domain/probe-types.js';
import { probeDns } from './dns.js';
import { probeHttp } from './http.js';
import { probeMail } from './mail.js';
import { probePing } from './ping.js';
import { probeTcp } from './tcp.js';
import { probeUdp } from './udp.js';
import { probeWebSocket } from './websocket.js';

/** Runs one probe. Never throws: every failure is a result with `ok: false`. */
export type Probe = (task: ProbeTask) => Promise<ProbeResult>;

export const PROBES: Readonly<Record<ProbeType, Probe>> = {
  website: probeHttp,
  rest_endpoint: probeHttp,
  redirect: probeHttp,
  ping: probePing,
  tcp: probeTcp,
  udp: probeUdp,
  dns: probeDns,
  websocket: probeWebSocket,
  smtp: probeMail,
  pop3: probeMail,
  imap: probeMail,
};
