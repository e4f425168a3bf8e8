// Typings for the two untyped dependencies, limited to what the probes use.

declare module 'dns-packet' {
  export interface Question {
    name: string;
    type: string;
    class?: string;
  }
  export interface Answer {
    name: string;
    type: string;
    class?: string;
    ttl?: number;
    /** A/AAAA/CNAME/NS: string; MX: {preference, exchange}; TXT: Buffer[] (or string). */
    data: unknown;
  }
  export interface Packet {
    id?: number;
    type?: 'query' | 'response';
    flags?: number;
    rcode?: string;
    flag_tc?: boolean;
    questions?: Question[];
    answers?: Answer[];
    authorities?: Answer[];
    additionals?: Answer[];
  }
  const dnsPacket: {
    RECURSION_DESIRED: number;
    AUTHORITATIVE_ANSWER: number;
    encode(packet: Packet): Buffer;
    decode(buffer: Buffer): Packet;
  };
  export default dnsPacket;
}

declare module 'net-ping' {
  import type { EventEmitter } from 'node:events';

  export interface SessionOptions {
    networkProtocol?: number;
    packetSize?: number;
    retries?: number;
    sessionId?: number;
    timeout?: number;
    ttl?: number;
  }
  export interface Session extends EventEmitter {
    /** Read by each pingHost() call, so it may be changed per request. */
    timeout: number;
    pingHost(target: string, callback: (error: Error | null, target: string, sent?: Date, received?: Date) => void): this;
    close(): this;
  }
  const netPing: {
    createSession(options?: SessionOptions): Session;
    NetworkProtocol: { IPv4: number; IPv6: number };
  };
  export default netPing;
}
