/** The public addresses a running server serves on (issue 23): what the CLI prints when it has none of its own. */
export interface ServedAddresses {
  publicUrl: string;
  heartbeatUrl: string;
  dashboardUrl: string;
  /** Where the server itself listens, reachable from its own machine (the CLI hands it work: issue 35). */
  listenUrl?: string;
}

export interface ServedAddressesRepo {
  /** What the last server to start on this data directory recorded; null before any did. */
  get(): Promise<ServedAddresses | null>;
  record(addresses: ServedAddresses): Promise<void>;
}
