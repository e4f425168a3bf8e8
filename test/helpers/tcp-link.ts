import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP forwarder on loopback between one process and a server (a central and its PostgreSQL),
 * that a test can cut as a network partition does: nothing is refused or closed, bytes simply
 * stop flowing both ways (queries and connection attempts hang), until `heal()`.
 */
export interface TcpLink {
  port: number;
  /** Stops every byte both ways; new connections are accepted and held. */
  cut(): void;
  /** Lets bytes flow again, on the connections held as on new ones. */
  heal(): void;
  close(): Promise<void>;
}

export async function startTcpLink(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpLink> {
  let cut = false;
  const pairs = new Set<{ client: Socket; upstream: Socket | null }>();
  const join = (pair: { client: Socket; upstream: Socket | null }) => {
    if (!pair.upstream) {
      pair.upstream = connect(targetPort, targetHost);
      pair.upstream.on('error', () => pair.client.destroy());
      pair.upstream.on('close', () => pair.client.destroy());
    }
    pair.client.pipe(pair.upstream);
    pair.upstream.pipe(pair.client);
    pair.client.resume();
    pair.upstream.resume();
  };
  const server: Server = createServer({ pauseOnConnect: true }, (client) => {
    const pair = { client, upstream: null as Socket | null };
    pairs.add(pair);
    client.on('error', () => pair.upstream?.destroy());
    client.on('close', () => {
      pair.upstream?.destroy();
      pairs.delete(pair);
    });
    if (!cut) join(pair);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    cut() {
      cut = true;
      for (const { client, upstream } of pairs) {
        client.unpipe();
        upstream?.unpipe();
        client.pause();
        upstream?.pause();
      }
    },
    heal() {
      cut = false;
      for (const pair of pairs) join(pair);
    },
    async close() {
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream?.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
