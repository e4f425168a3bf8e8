import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema, ErrorCode, GetPromptRequestSchema, ListPromptsRequestSchema, ListResourcesRequestSchema,
  ListToolsRequestSchema, ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { VERSION } from '../version.js';
import type { RouteCaller } from './route-call.js';
import { readStatus, STATUS_RESOURCE, STATUS_URI, TRIAGE_PROMPT, triagePrompt } from './status-summary.js';
import type { BoundTool } from './tool-binding.js';
import { rpcError } from './request-params.js';

const INSTRUCTIONS =
  'Vigil monitors websites, APIs, servers, domains and cron jobs. Each tool is one call of the REST API ' +
  '(/v1/public/...) with your own credential: the same scopes, key restrictions, validation and rate limits apply, ' +
  'and an error carries the API\'s message. Start with get_account for limits, then list_checks or get_status_overview.';

/**
 * A low-level MCP server for one HTTP request (the transport is stateless): its handlers only
 * list the bound tools and forward calls to the route caller of that request.
 */
export function createMcpServer(tools: readonly BoundTool[], caller: RouteCaller): Server {
  const byName = new Map(tools.map((t) => [t.spec.name, t]));
  const server = new Server(
    { name: 'vigil', title: 'Vigil uptime monitor', version: VERSION },
    { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map((t) => t.definition) }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const tool = byName.get(request.params.name);
    if (!tool) throw rpcError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    return caller.callTool(tool, request.params.arguments ?? {});
  });
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [STATUS_RESOURCE] }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => {
    if (request.params.uri !== STATUS_URI) throw rpcError(ErrorCode.InvalidParams, `Unknown resource: ${request.params.uri}`);
    return readStatus(caller);
  });
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: [TRIAGE_PROMPT] }));
  server.setRequestHandler(GetPromptRequestSchema, (request) => {
    if (request.params.name !== TRIAGE_PROMPT.name) throw rpcError(ErrorCode.InvalidParams, `Unknown prompt: ${request.params.name}`);
    return triagePrompt(caller);
  });
  return server;
}
