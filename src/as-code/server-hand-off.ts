import { ApiError } from '../domain/errors.js';
import type { MonitoringFileInput } from './file-schema.js';

/** What the running server answered an apply with: its `data` (plan, text, applied, created). */
export interface HandedOffApply {
  plan: unknown;
  text: string;
  applied: boolean;
  created: unknown[];
}

/**
 * The file as the CLI read it (variables substituted from the CLI's environment), as a file the
 * API reads alike: the server substitutes nothing from its own environment, so a literal `${`
 * that a value holds is written `$${` again.
 */
export function fileForServer(value: MonitoringFileInput): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? v.replaceAll('${', '$${') : v));
}

/**
 * `vigil apply` beside a running server (issue 35): the apply goes through the server's own API,
 * so the server drops the checks the file deletes at once (it learns of other processes' new and
 * changed checks, never of deleted ones). A refusal keeps its status (a 4xx is bad input).
 */
export async function applyThroughServer(baseUrl: string, key: string, value: MonitoringFileInput, prune: boolean): Promise<HandedOffApply> {
  let res: Response;
  try {
    res = await fetch(new URL(`/v1/public/config/apply?prune=${prune}`, baseUrl), {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: fileForServer(value),
      signal: AbortSignal.timeout(120_000),
    });
  } catch (err) {
    throw new Error(`the server running on this data directory did not answer at ${baseUrl}: ${(err as Error).message}`);
  }
  const body = (await res.json().catch(() => null)) as { data?: HandedOffApply; error?: { code?: number; message?: string } } | null;
  if (res.ok && body?.data) return body.data;
  const message = body?.error?.message ?? `HTTP ${res.status}`;
  if (res.status >= 500 || res.status === 401) throw new Error(`the running server refused the apply: ${message}`);
  throw new ApiError(res.status, 'apply_refused', message);
}
