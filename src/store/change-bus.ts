/**
 * What one central tells the others at once (docs/high-availability.md): a topic and a small
 * payload. Over PostgreSQL it travels by LISTEN/NOTIFY; a single SQLite server has no one to
 * tell, and its bus delivers in-process (to itself, after the current turn), so one code path
 * serves both.
 */
export type ChangeTopic =
  /** A central released check slots (stopping, rebalancing): the others renew now and claim them. */
  | 'cluster'
  /** A central put a ping or a node's result for a check it does not own in the inbox: the owners record it now. */
  | 'inbox'
  /** A check was created, changed or deleted on a central: the others schedule or drop it. */
  | 'checks'
  /** A check's owner asks for an immediate re-check by a prober node connected to another central. */
  | 'run'
  /** A central asks a prober node connected to another central for a peer re-check, and is answered. */
  | 'recheck'
  | 'rechecked'
  /** A central asks the owner of a check for its status from a probe made now (a dependant's alert waits for it), and is answered. */
  | 'verdict'
  | 'verdicted'
  /** A check's status changed on the central that owns it: the others' live streams and page caches hear of it. */
  | 'status'
  /** Requests a central counted per rate-limit bucket in the last second. */
  | 'rates';

export interface ChangeBus {
  publish(topic: ChangeTopic, payload: string): void;
  subscribe(topic: ChangeTopic, listener: (payload: string) => void): void;
  close(): void;
}

/** The bus of one process (SQLite), or of several centrals in one process (tests). */
export class InProcessBus implements ChangeBus {
  private readonly listeners = new Map<ChangeTopic, Array<(payload: string) => void>>();
  private closed = false;

  publish(topic: ChangeTopic, payload: string): void {
    const listeners = this.listeners.get(topic);
    if (!listeners || this.closed) return;
    // Like a NOTIFY, delivered after the publisher's turn, never inside it.
    setImmediate(() => {
      for (const listener of listeners) if (!this.closed) listener(payload);
    });
  }

  subscribe(topic: ChangeTopic, listener: (payload: string) => void): void {
    const list = this.listeners.get(topic) ?? [];
    list.push(listener);
    this.listeners.set(topic, list);
  }

  close(): void {
    this.closed = true;
  }
}
