import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { HttpRequest, Reply } from '../api/http-types.js';
import { IDEMPOTENCY_ARG, RAW_BODY_ARG, type BoundTool } from './tool-binding.js';
import { kindOf } from './request-params.js';

/** The front's pipeline: route match, auth, rate limit, scope, restriction, validation, idempotency. */
export type Dispatch = (req: HttpRequest) => Promise<Reply>;

/** A route's answer, decoded: the body is parsed JSON (null when there is none). */
export interface RouteAnswer {
  status: number;
  body: unknown;
  text: string;
}

/**
 * The caller's credentials are the only thing carried from the MCP request into the API call: a
 * key or token, or a member's session cookie with the Origin and Host it was checked against.
 */
const FORWARDED_HEADERS = ['x-api-key', 'authorization', 'cookie', 'origin', 'host'] as const;

/**
 * Calls REST routes on behalf of one MCP request, re-entering the same pipeline with the
 * caller's own credential, so every rule is applied exactly as for a REST client.
 */
export class RouteCaller {
  /** The MCP request was charged one unit of the per-key budget: its first call uses it. */
  private prepaid = true;

  constructor(
    private readonly dispatch: Dispatch,
    private readonly outer: HttpRequest,
  ) {}

  async call(method: string, path: string, opts: { query?: URLSearchParams; body?: unknown; text?: { contentType: string; body: string }; idempotencyKey?: string } = {}): Promise<RouteAnswer> {
    const headers: Record<string, string> = {};
    for (const name of FORWARDED_HEADERS) {
      const value = this.outer.headers[name];
      if (value !== undefined) headers[name] = value;
    }
    if (opts.idempotencyKey !== undefined) headers['idempotency-key'] = opts.idempotencyKey;
    let body = Buffer.alloc(0);
    if (opts.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = Buffer.from(JSON.stringify(opts.body));
    } else if (opts.text !== undefined) {
      headers['content-type'] = opts.text.contentType;
      body = Buffer.from(opts.text.body);
    }
    const prepaid = this.prepaid;
    this.prepaid = false;
    const reply = await this.dispatch({
      method, path, query: opts.query ?? new URLSearchParams(), headers, body, remoteAddress: this.outer.remoteAddress, prepaid,
    });
    return decode(reply);
  }

  /** Runs a tool: arguments split into path parameters, idempotency key and body or query. */
  async callTool(tool: BoundTool, args: Record<string, unknown>): Promise<CallToolResult> {
    const rest: Record<string, unknown> = { ...args };
    let path = tool.route.path;
    for (const name of tool.pathParams) {
      const value = rest[name];
      delete rest[name];
      const problem = stringProblem(value);
      if (problem) return badArgument(`${name} ${problem}`);
      path = path.replace(`:${name}`, encodeURIComponent(value as string));
    }
    const idempotencyKey = rest[IDEMPOTENCY_ARG];
    delete rest[IDEMPOTENCY_ARG];
    // The key travels as a header the caller never sees: a missing one is named as the argument.
    if (tool.route.idempotency === 'required' && (idempotencyKey === undefined || idempotencyKey === '')) {
      return badArgument(`${IDEMPOTENCY_ARG} is required: a retry with the same key returns the first answer instead of creating twice`);
    }
    if (idempotencyKey !== undefined && typeof idempotencyKey !== 'string') return badArgument(`${IDEMPOTENCY_ARG} ${stringProblem(idempotencyKey)}`);
    let text: { contentType: string; body: string } | undefined;
    if (tool.route.rawBody) {
      const raw = rest[RAW_BODY_ARG];
      delete rest[RAW_BODY_ARG];
      const problem = stringProblem(raw);
      if (problem) return badArgument(`${RAW_BODY_ARG} ${problem}`);
      text = { contentType: tool.route.rawBody.contentTypes[0]!, body: raw as string };
    }
    const answer = await this.call(tool.route.method, path, {
      idempotencyKey,
      text,
      body: tool.route.body ? rest : undefined,
      query: tool.route.query ? queryOf(rest) : undefined,
    });
    return toToolResult(answer);
  }
}

/** Why an argument that must be a non-empty string is not one, worded as the API's validation words it; null if it is. */
function stringProblem(value: unknown): string | null {
  if (value === undefined) return 'is required';
  if (typeof value !== 'string') return `must be a string, not ${kindOf(value)}`;
  return value === '' ? 'must not be empty' : null;
}

/** A tool error shaped as the API's own 400. */
function badArgument(message: string): CallToolResult {
  return toolError(message, { error: { code: 400, message } }, 400);
}

function decode(reply: Reply): RouteAnswer {
  const text = reply.raw ? reply.raw.text.toString() : reply.body === undefined ? '' : JSON.stringify(reply.body);
  let body: unknown = reply.body ?? null;
  if (reply.raw) {
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
  }
  return { status: reply.status, body, text };
}

function queryOf(args: Record<string, unknown>): URLSearchParams {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const item of value) query.append(name, typeof item === 'object' ? JSON.stringify(item) : String(item));
    else query.set(name, typeof value === 'object' ? JSON.stringify(value) : String(value));
  }
  return query;
}

/** 2xx: the REST body as it is ({data, meta?}); otherwise a tool error carrying the API's message. */
export function toToolResult(answer: RouteAnswer): CallToolResult {
  if (answer.status >= 200 && answer.status < 300) {
    const structured = isRecord(answer.body) ? { structuredContent: answer.body } : {};
    return { content: [{ type: 'text', text: answer.text }], ...structured };
  }
  return toolError(errorMessage(answer), answer.body, answer.status);
}

function toolError(message: string, body: unknown, status: number): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: message }], structuredContent: { status, ...(isRecord(body) ? body : {}) } };
}

/** Reads every error shape the API renders: standard, plain and OAuth. */
export function errorMessage(answer: RouteAnswer): string {
  const body = answer.body;
  if (isRecord(body)) {
    const error = body.error;
    if (isRecord(error) && typeof error.message === 'string') return error.message;
    if (typeof body.error_description === 'string') return body.error_description;
    if (typeof error === 'string') return error;
  }
  return `The API answered ${answer.status}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
