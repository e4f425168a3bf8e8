import netPing from 'net-ping';

/**
 * Why ICMP tests cannot run on this machine, or false when they can: real pings need a raw
 * socket, which only root or a process with CAP_NET_RAW may open. Tests pass it as `skip`, so
 * the run says what is missing instead of failing or passing silently.
 */
export const NO_RAW_SOCKETS: string | false = (() => {
  try {
    netPing.createSession().close();
    return false;
  } catch (err) {
    return `needs raw-socket privileges (root or CAP_NET_RAW): ${(err as Error).message}`;
  }
})();
