import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, isJSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';

/**
 * Answers a `tools/call` whose params are not the shape MCP defines with JSON-RPC's -32602
 * Invalid params and one line naming the problem. The SDK checks the shape itself, but a failure
 * there comes back as -32603 Internal error with the schema library's dump as its message.
 * Installed on a connected transport, in front of the server that reads it.
 */
export function answerMalformedToolCalls(transport: Transport): void {
  const deliver = transport.onmessage;
  if (!deliver) throw new Error('answerMalformedToolCalls: connect the server to the transport first');
  transport.onmessage = (message, extra) => {
    const problem = isJSONRPCRequest(message) && message.method === 'tools/call' ? toolCallProblem(message.params) : null;
    if (problem === null || !isJSONRPCRequest(message)) {
      deliver(message, extra);
      return;
    }
    void transport.send({ jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InvalidParams, message: problem } });
  };
}

/**
 * A JSON-RPC error to throw from a request handler. The SDK's McpError would put "MCP error
 * -32602: " in front of the message the client reads; its request loop answers any error's code
 * and message.
 */
export function rpcError(code: ErrorCode, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** What is wrong with the params of a tools/call, or null when they have its shape. */
export function toolCallProblem(params: unknown): string | null {
  if (!isObject(params)) return 'params must be an object with the tool name and its arguments';
  if (params.name === undefined) return 'params.name is required: the name of the tool to call';
  if (typeof params.name !== 'string') return `params.name must be a string, not ${kindOf(params.name)}`;
  if (params.arguments !== undefined && !isObject(params.arguments)) {
    return `params.arguments must be an object of named arguments, not ${kindOf(params.arguments)}`;
  }
  return null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** How a JSON value is named in a message: `a string`, `an array`, `null`. */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'object' ? 'an object' : `a ${type}`;
}
