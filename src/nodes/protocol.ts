import { Type, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { ProbeResult, ProbeTask } from '../domain/probe-types.js';

/**
 * The node protocol: JSON text frames over one WebSocket that the node opens to the central
 * (`GET /v1/nodes/connect`, `Authorization: Bearer vigil_node_…`). The central validates every
 * frame a node sends against the schemas below; the node trusts the server it chose (and, over
 * wss, verified).
 *
 * Results carry a node-scoped sequence: `epoch` names the node's outbox (a new data directory
 * starts a new one), `seq` counts within it. The central records each (epoch, seq) once and
 * acknowledges the highest it has made durable; the node drops what is acknowledged.
 */

export const NODE_PATH = '/v1/nodes/connect';
/** Largest frame either side accepts; a node keeps its batches well under it. */
export const MAX_FRAME_BYTES = 1024 * 1024;
/** Results per batch, and the bytes a batch's results may take (a frame stays under MAX_FRAME_BYTES). */
export const MAX_BATCH = 100;
export const MAX_BATCH_BYTES = 768 * 1024;

/** One check a node probes on its own wheel, at the same phase the central would. */
export interface AssignedCheck {
  id: string;
  intervalMs: number;
  task: ProbeTask;
}

export type CentralMessage =
  /** First frame: who the node is and the newest result the central has recorded from it. */
  | { type: 'welcome'; nodeId: string; region: string; epoch: string | null; seq: number }
  /** Checks to probe; `reset` replaces the whole set (the first frame of a full assignment). */
  | { type: 'assign'; reset: boolean; checks: AssignedCheck[]; runNow: string[] }
  | { type: 'unassign'; ids: string[] }
  /** Probe an assigned check now (a failure below the threshold asks for an immediate recheck). */
  | { type: 'run'; id: string }
  /** A peer re-check: probe this once, answer with `recheckResult` (never through the outbox). */
  | { type: 'recheck'; rid: number; task: ProbeTask }
  | { type: 'ack'; epoch: string; seq: number }
  /** Clock offset (NTP-style): the node answers with `pong` at once. */
  | { type: 'ping'; t0: number };

const Timing = Type.Object({ dns: Type.Number(), connect: Type.Number(), tls: Type.Number(), ttfb: Type.Number(), total: Type.Number() });
const Str = (max: number) => Type.String({ maxLength: max });
const NullableStr = (max: number) => Type.Union([Str(max), Type.Null()]);

const SslInfo = Type.Object({
  valid: Type.Boolean(),
  error: NullableStr(2000),
  issuer: Str(2000),
  subject: Str(2000),
  validFrom: Str(100),
  validTo: Str(100),
  serialNumber: Str(200),
  fingerprint: Str(200),
});

export const ProbeResultSchema = Type.Object({
  ok: Type.Boolean(),
  statusCode: Type.Union([Type.Integer({ minimum: 0, maximum: 999 }), Type.Null()]),
  responseTime: Type.Union([Type.Number({ minimum: 0 }), Type.Null()]),
  timing: Type.Union([Timing, Type.Null()]),
  error: NullableStr(2000),
  snippet: NullableStr(8192),
  ssl: Type.Union([SslInfo, Type.Null()]),
  location: NullableStr(8192),
  startedAt: Type.Number({ minimum: 0 }),
});

const Epoch = Type.String({ minLength: 1, maxLength: 64 });

export const NodeMessageSchema = Type.Union([
  Type.Object({ type: Type.Literal('hello'), version: Str(64), epoch: Epoch }),
  Type.Object({
    type: Type.Literal('results'),
    epoch: Epoch,
    items: Type.Array(
      Type.Object({ seq: Type.Integer({ minimum: 1 }), checkId: Str(64), result: ProbeResultSchema }),
      { maxItems: MAX_BATCH },
    ),
  }),
  Type.Object({ type: Type.Literal('recheckResult'), rid: Type.Integer(), result: ProbeResultSchema }),
  Type.Object({
    type: Type.Literal('pong'),
    t0: Type.Number(),
    t1: Type.Number(),
    t2: Type.Number(),
    outboxDepth: Type.Integer({ minimum: 0 }),
    dropped: Type.Integer({ minimum: 0 }),
    probesPerSecond: Type.Number({ minimum: 0 }),
  }),
]);

export type NodeMessage = Static<typeof NodeMessageSchema>;
export type ResultItem = Extract<NodeMessage, { type: 'results' }>['items'][number];

const checkNodeMessage = TypeCompiler.Compile(NodeMessageSchema);

/** A node's frame, or null when it is not valid JSON of a known shape. */
export function parseNodeMessage(text: string): NodeMessage | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  return checkNodeMessage.Check(value) ? (value as NodeMessage) : null;
}

/** Structural check that a validated result is a ProbeResult (the schema mirrors the type). */
export const asProbeResult = (r: Static<typeof ProbeResultSchema>): ProbeResult => r;
