import pg from 'pg';
import type { ChangeBus, ChangeTopic } from '../change-bus.js';

/** NOTIFY payloads must stay under 8,000 bytes; a longer message is refused, not cut. */
export const MAX_NOTIFY_BYTES = 7_900;

/**
 * The change bus of centrals sharing one PostgreSQL database: `NOTIFY vigil_<topic>` on the
 * pool, and one connection of its own that LISTENs (a pooled one would drop its LISTEN when
 * returned). A notification reaches every listening central, the sender's too, within
 * milliseconds of its transaction; subscribers skip their own by the name in the payload.
 * Should the listening connection drop, it reconnects and listens again; what was sent
 * meanwhile is missed, which the periodic jobs (lease renewals, the ping inbox, the checks'
 * catch-up) make up for within a second or a renewal.
 */
export class PgChangeBus implements ChangeBus {
  private readonly listeners = new Map<ChangeTopic, Array<(payload: string) => void>>();
  private client: pg.Client | null = null;
  private closed = false;
  private readonly sending = new Set<Promise<void>>();

  constructor(
    private readonly url: string,
    private readonly pool: pg.Pool,
    private readonly failed: (err: unknown) => void = () => undefined,
  ) {}

  /** Connects the listening connection (and listens to the topics subscribed so far). */
  async open(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, application_name: 'vigil-listen' });
    client.on('notification', (n) => {
      const topic = n.channel.replace(/^vigil_/, '') as ChangeTopic;
      for (const listener of this.listeners.get(topic) ?? []) {
        try {
          listener(n.payload ?? '');
        } catch (err) {
          this.failed(err);
        }
      }
    });
    const lost = () => {
      if (this.client !== client) return;
      this.client = null;
      this.reconnect();
    };
    client.on('error', (err) => {
      this.failed(err);
      lost();
    });
    client.on('end', lost);
    try {
      await client.connect();
      for (const topic of this.listeners.keys()) await client.query(`LISTEN vigil_${topic}`);
    } catch (err) {
      void client.end().catch(() => undefined);
      throw err;
    }
    this.client = client;
  }

  /** Tries again every second until the listening connection is back (or the bus is closed). */
  private reconnect(): void {
    if (this.closed) return;
    setTimeout(() => {
      if (this.closed) return;
      this.open().catch((err: unknown) => {
        this.failed(err);
        this.reconnect();
      });
    }, 1_000).unref();
  }

  publish(topic: ChangeTopic, payload: string): void {
    if (this.closed) return;
    if (Buffer.byteLength(payload) > MAX_NOTIFY_BYTES) {
      this.failed(new Error(`a ${topic} notification of ${Buffer.byteLength(payload)} bytes is over PostgreSQL's limit`));
      return;
    }
    const sent = this.pool.query('SELECT pg_notify($1, $2)', [`vigil_${topic}`, payload]).then(() => undefined, this.failed);
    this.sending.add(sent);
    void sent.finally(() => this.sending.delete(sent));
  }

  /** Settles once every notification published so far has been sent (a short-lived process, before it ends the pool). */
  async sent(): Promise<void> {
    while (this.sending.size > 0) await Promise.all([...this.sending]);
  }

  subscribe(topic: ChangeTopic, listener: (payload: string) => void): void {
    const list = this.listeners.get(topic);
    if (list) list.push(listener);
    else {
      this.listeners.set(topic, [listener]);
      this.client?.query(`LISTEN vigil_${topic}`).catch(this.failed);
    }
  }

  close(): void {
    this.closed = true;
    void this.client?.end().catch(() => undefined);
    this.client = null;
  }
}
