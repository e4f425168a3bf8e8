import { ErrorCode, type GetPromptResult, type Prompt, type ReadResourceResult, type Resource } from '@modelcontextprotocol/sdk/types.js';
import { rpcError } from './request-params.js';
import { errorMessage, type RouteCaller } from './route-call.js';

/** Both read GET /v1/public/checks/status through the pipeline, like the get_status_overview tool. */
export const STATUS_PATH = '/v1/public/checks/status';
export const STATUS_URI = 'vigil://status';

export const STATUS_RESOURCE: Resource = {
  uri: STATUS_URI,
  name: 'status',
  title: 'Status of every check',
  description: 'The status overview (GET /v1/public/checks/status) as JSON: each check online, offline, degraded or unknown, with its last error',
  mimeType: 'application/json',
};

export const TRIAGE_PROMPT: Prompt = {
  name: 'triage_outages',
  title: 'Triage outages',
  description: 'Lists the checks that are offline or degraded, with their last errors, and asks for a diagnosis using the tools',
};

interface StatusObject {
  id: string;
  name: string;
  status: string;
  lastStatusChange: number | null;
  lastError: string | null;
  disabled: boolean;
  maintenanceMode: boolean;
  regions: { confirmedDown: boolean };
}

async function statusOverview(caller: RouteCaller): Promise<{ text: string; checks: StatusObject[] }> {
  const answer = await caller.call('GET', STATUS_PATH);
  if (answer.status !== 200) {
    throw rpcError(answer.status >= 500 ? ErrorCode.InternalError : ErrorCode.InvalidRequest, errorMessage(answer));
  }
  return { text: answer.text, checks: (answer.body as { data: StatusObject[] }).data };
}

export async function readStatus(caller: RouteCaller): Promise<ReadResourceResult> {
  const { text } = await statusOverview(caller);
  return { contents: [{ uri: STATUS_URI, mimeType: 'application/json', text }] };
}

export async function triagePrompt(caller: RouteCaller): Promise<GetPromptResult> {
  const { checks } = await statusOverview(caller);
  const failing = checks.filter((c) => !c.disabled && (c.status === 'offline' || c.status === 'degraded'));
  const text = failing.length === 0
    ? `All ${checks.length} checks are online, paused or not yet probed: nothing to triage. Confirm with get_status_overview if needed.`
    : [
        `These ${failing.length} of ${checks.length} checks are failing:`,
        ...failing.map(describe),
        '',
        'For each one: read its recent failures with get_history (status "down"), compare get_stats over ranges "1h,1d,7d",',
        'and say whether the fault looks like the target, the network or the check settings (get_check).',
        'Suggest a fix; for planned work, suggest set_maintenance rather than deleting or pausing the check.',
      ].join('\n');
  return { description: TRIAGE_PROMPT.description, messages: [{ role: 'user', content: { type: 'text', text } }] };
}

function describe(c: StatusObject): string {
  const since = c.lastStatusChange === null ? '' : ` since ${new Date(c.lastStatusChange).toISOString()}`;
  const confirmed = c.regions.confirmedDown ? ', confirmed by a second region' : '';
  const maintenance = c.maintenanceMode ? ' (in maintenance)' : '';
  return `- ${c.name} (id ${c.id}): ${c.status}${since}${confirmed}${maintenance}; last error: ${c.lastError ?? 'none recorded'}`;
}
