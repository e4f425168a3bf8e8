import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema, ErrorCode, GetPromptRequestSchema, InitializeRequestSchema, isJSONRPCRequest, ListPromptsRequestSchema,
  ListResourcesRequestSchema, ListToolsRequestSchema, ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

/**
 * The schemas of the requests this server answers, by method: a Map, so a method named like a
 * property of every object (`constructor`, `toString`) is simply not ours (-32601 from the SDK).
 */
const REQUESTS = new Map<string, { safeParse(value: unknown): { success: boolean; error?: { issues: readonly Issue[] } } }>([
  ['initialize', InitializeRequestSchema],
  ['tools/list', ListToolsRequestSchema],
  ['tools/call', CallToolRequestSchema],
  ['resources/list', ListResourcesRequestSchema],
  ['resources/read', ReadResourceRequestSchema],
  ['prompts/list', ListPromptsRequestSchema],
  ['prompts/get', GetPromptRequestSchema],
]);

interface Issue {
  code: string;
  path: readonly PropertyKey[];
  message: string;
  expected?: string;
}

/**
 * Answers a request whose params are not the shape MCP defines with JSON-RPC's -32602 Invalid
 * params and one line naming the problem (`params.arguments must be an object, not a string`).
 * The SDK checks the shape itself, but a failure there comes back as -32603 Internal error with
 * the schema library's dump as its message. Installed on a connected transport, in front of the
 * server that reads it.
 */
export function answerMalformedRequests(transport: Transport): void {
  const deliver = transport.onmessage;
  if (!deliver) throw new Error('answerMalformedRequests: connect the server to the transport first');
  transport.onmessage = (message, extra) => {
    const problem = isJSONRPCRequest(message) ? paramsProblem(message) : null;
    if (problem === null || !isJSONRPCRequest(message)) {
      deliver(message, extra);
      return;
    }
    void transport.send({ jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InvalidParams, message: problem } });
  };
}

/** What is wrong with a request's params, in one line, or null when they have their method's shape (or the method is not ours). */
export function paramsProblem(request: { method: string; params?: unknown }): string | null {
  const parsed = REQUESTS.get(request.method)?.safeParse(request);
  const issue = parsed && !parsed.success ? parsed.error?.issues[0] : undefined;
  if (!issue) return null;
  const path = issue.path.map(String).join('.');
  if (issue.code !== 'invalid_type') return `${path}: ${issue.message}`;
  const value = issue.path.reduce<unknown>((at, key) => (typeof at === 'object' && at !== null && Object.hasOwn(at, key) ? (at as Record<PropertyKey, unknown>)[key] : undefined), request);
  if (value === undefined) return `${path} is required`;
  return `${path} must be ${expectedKind(issue.expected)}, not ${kindOf(value)}`;
}

function expectedKind(expected: string | undefined): string {
  if (expected === 'record' || expected === 'object') return 'an object';
  if (expected === 'array') return 'an array';
  return expected ? `a ${expected}` : 'another type';
}

/**
 * A JSON-RPC error to throw from a request handler. The SDK's McpError would put "MCP error
 * -32602: " in front of the message the client reads; its request loop answers any error's code
 * and message.
 */
export function rpcError(code: ErrorCode, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** How a JSON value is named in a message: `a string`, `an array`, `null`. */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'object' ? 'an object' : `a ${type}`;
}
