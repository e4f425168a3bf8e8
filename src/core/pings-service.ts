import type { HeartbeatMonitor, PingMetadata, PingSignal } from '../engine/heartbeats.js';

/**
 * Heartbeat pings (spec §3), as the ping route sends them: the monitor that owns the check's
 * deadline and live entry records the ping; the answer comes once it is committed.
 */
export class PingsService {
  constructor(private readonly monitor: Pick<HeartbeatMonitor, 'ping' | 'pingKuma'>) {}

  /** False for an unknown token (404), true once the ping is durable. */
  ping(token: string, signal: PingSignal, meta: PingMetadata): Promise<boolean> {
    return this.monitor.ping(token, signal, meta);
  }

  /** A ping on Uptime Kuma's push URL of a check `vigil import kuma` made: the same as the check's own. */
  pingKuma(kumaToken: string, signal: PingSignal, meta: PingMetadata): Promise<boolean> {
    return this.monitor.pingKuma(kumaToken, signal, meta);
  }
}
