import type { Static, TSchema } from '@sinclair/typebox';
import type { ErrorShape } from '../domain/errors.js';
import type { Principal } from '../core/principal.js';
import type { Scope } from '../domain/records.js';

/** Bodies above this are not kept: the rest is read and discarded, and the answer is 413 (front/body-drain.ts). */
export const MAX_BODY_BYTES = 1024 * 1024;

/** A request as handlers see it: transport-free (DESIGN 1). */
export interface HttpRequest {
  method: string;
  /** Path without the query string, e.g. /v1/public/checks/chk_1. */
  path: string;
  query: URLSearchParams;
  /** Header names lower-cased. */
  headers: Record<string, string>;
  body: Buffer;
  /** The client's address: the peer's, or X-Forwarded-For's when server.trustProxy is set. */
  remoteAddress: string;
  /** How the client reached Vigil: X-Forwarded-Proto's scheme when server.trustProxy is set. */
  scheme?: 'http' | 'https';
  /** The body passed MAX_BODY_BYTES and was discarded: the answer is a 413 in the route's error shape. */
  oversized?: boolean;
  /** The per-key budget was already charged for it: the first tool call inside an MCP request. */
  prepaid?: boolean;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  /** Serialised as JSON unless `raw` is set. Undefined with no raw means no body (e.g. 304). */
  body?: unknown;
  raw?: { contentType: string; text: string | Buffer };
  /**
   * A response that stays open (server-sent events): the status and headers are written, then
   * this is called with the open connection. The body is never ended by the adapter.
   */
  stream?: (sink: StreamSink) => void;
}

/** The open end of a streamed response. */
export interface StreamSink {
  /** False once the client has gone (nothing is written then). */
  write(text: string): boolean;
  end(): void;
  /** Called once when the client hangs up or end() is called. */
  onClose(listener: () => void): void;
}

export interface HandlerContext<B, Q> {
  req: HttpRequest;
  params: Record<string, string>;
  body: B;
  query: Q;
  /** Present on every route whose auth is 'credential'. */
  principal: Principal;
  /** Aborted by shutdown or a client that hung up; long handlers may listen. */
  now: number;
}

export type BodyKind = 'json' | 'form' | 'any';

/** One row of the route table (DESIGN 2): everything the pipeline applies before the handler. */
export interface Route<B extends TSchema = TSchema, Q extends TSchema = TSchema> {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  summary: string;
  tag: string;
  /** 'credential': X-Api-Key or Bearer token. 'none': public (heartbeats, OAuth, discovery). */
  auth: 'credential' | 'none';
  scope?: Scope;
  /** Whether a key restricted to checks or folders may call it. */
  allowRestricted: boolean;
  /**
   * 'per-key': the credential's budget; 'status': the status endpoints' own; 'per-address': a
   * route anyone may call unauthenticated that costs a hash, a mail or a row (sign-in, signup,
   * claim, subscribe), counted per client address (`rateLimits.perAddressPerMinute`).
   */
  rateLimit: 'per-key' | 'status' | 'per-address' | 'none';
  idempotency: 'required' | 'optional' | 'none';
  /**
   * The handler and its idempotency record commit as one unit of work (a store transaction,
   * docs/architecture.md#transactions). Only a handler that awaits nothing but store work may
   * set it; a handler that awaits anything else (mail, webhooks, DNS) records its idempotency
   * after it returns.
   */
  transaction?: boolean;
  errorShape: ErrorShape;
  bodyKind?: BodyKind;
  body?: B;
  /**
   * A body the handler reads as text itself (no `body` schema): its content types, for OpenAPI
   * and for the MCP tool that passes it as one string argument.
   */
  rawBody?: { contentTypes: readonly string[]; description: string; schema?: TSchema };
  query?: Q;
  /**
   * Query parameters beyond `query`'s (front/query-names.ts): `refused` (the default: a 400 with
   * a "did you mean"), `typos-refused` (pages and badges: only near-misses of their own are
   * refused, so a cache-buster or tracking tag on a shared link still works), `accepted` (read
   * by the handler itself: heartbeat metadata, an identity provider's callback).
   */
  unknownQuery?: 'refused' | 'typos-refused' | 'accepted';
  /** Documented responses for OpenAPI: status -> schema (or null for no body). */
  responses: Record<number, TSchema | null>;
  /** Included in the OpenAPI document (false for HTML pages). */
  documented?: boolean;
  /** WWW-Authenticate of this route's 401s when it is its own protected resource (RFC 9728); the API's otherwise. */
  challenge?: string;
  /**
   * Checks that need I/O (DNS) before the handler runs in its transaction; they may
   * throw an ApiError. Return undefined when there is nothing to wait for.
   */
  precheck?: (ctx: HandlerContext<Static<B>, Static<Q>>) => Promise<void> | undefined;
  /**
   * The handler's own access checks (a restricted key's checks and folders), without acting:
   * run before an Idempotency-Key replay, so a replay is answered only to a caller allowed to
   * make the request. A restricted key replaying on a route without it is refused.
   */
  authorize?: (ctx: HandlerContext<Static<B>, Static<Q>>) => unknown;
  handler: (ctx: HandlerContext<Static<B>, Static<Q>>) => Reply | Promise<Reply>;
}

/** Declares a route with its body and query types flowing into the handler. */
export function defineRoute<B extends TSchema = TSchema, Q extends TSchema = TSchema>(route: Route<B, Q>): Route {
  return route as unknown as Route;
}

export const ok = (body: unknown, status = 200, headers?: Record<string, string>): Reply => ({ status, body, headers });

/** JSON already serialised. */
export function jsonReply(text: string | Buffer, status = 200): Reply {
  return { status, raw: { contentType: 'application/json; charset=utf-8', text } };
}
