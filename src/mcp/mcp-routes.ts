import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { HttpRequest, Reply, Route } from '../api/http-types.js';
import { createMcpServer } from './mcp-server.js';
import { RouteCaller, type Dispatch } from './route-call.js';
import { bindTools, type BoundTool } from './tool-binding.js';
import { TOOL_SPECS } from './tool-table.js';
import { answerMalformedRequests } from './request-params.js';
import { toReply, toWebRequest } from './web-bridge.js';

export const MCP_PATH = '/mcp/v1';

export interface McpDeps {
  /** The final route table (read on first use, once every route is in it). */
  routes: () => readonly Route[];
  dispatch: Dispatch;
  publicUrl: string;
}

/**
 * The tool server (spec §1 item 7) at {app_url}/mcp/v1: MCP over Streamable HTTP, stateless,
 * one SDK server and transport per request, as routes of the same table so credentials, 401s
 * and per-key rate limits are the API's own.
 */
export function mcpRoutes(deps: McpDeps): Route[] {
  let tools: BoundTool[] | null = null;
  const base = {
    path: MCP_PATH,
    tag: 'mcp',
    auth: 'credential',
    allowRestricted: true,
    rateLimit: 'per-key',
    idempotency: 'none',
    errorShape: 'standard',
    responses: {},
    documented: false,
    // RFC 9728: the tool server is its own protected resource, with its own metadata document.
    challenge: `Bearer realm="vigil", resource_metadata="${deps.publicUrl}/.well-known/oauth-protected-resource${MCP_PATH}"`,
  } as const;

  const post = async ({ req }: { req: HttpRequest }): Promise<Reply> => {
    tools ??= bindTools(deps.routes(), TOOL_SPECS);
    const server = createMcpServer(tools, new RouteCaller(deps.dispatch, req));
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    answerMalformedRequests(transport);
    try {
      return await toReply(await transport.handleRequest(toWebRequest(req, deps.publicUrl)));
    } finally {
      await server.close();
    }
  };

  return [
    { ...base, method: 'POST', summary: 'MCP over Streamable HTTP (JSON-RPC requests, JSON responses)', handler: post },
    // Stateless: there is no session to delete and no server-initiated stream to open with GET.
    { ...base, method: 'GET', summary: 'Not offered (stateless server): 405', handler: () => methodNotAllowed() },
    { ...base, method: 'DELETE', summary: 'Not offered (stateless server): 405', handler: () => methodNotAllowed() },
  ];
}

function methodNotAllowed(): Reply {
  return {
    status: 405,
    headers: { Allow: 'POST' },
    raw: {
      contentType: 'application/json',
      text: JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this server is stateless; POST JSON-RPC messages' }, id: null }),
    },
  };
}
