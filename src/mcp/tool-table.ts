import type { Route } from '../api/http-types.js';

/**
 * One MCP tool = one REST route. The route table already holds the scope, restriction rule,
 * validation schema and handler; a tool adds only its name, a note for agents and the hints
 * the route table cannot express.
 */
export interface ToolSpec {
  name: string;
  method: Route['method'];
  path: string;
  title: string;
  /** Appended to the route's summary: what an agent needs that REST documents elsewhere. */
  note?: string;
  /** Descriptions of the path parameters. */
  params?: Record<string, string>;
  destructive?: boolean;
  idempotent?: boolean;
  /** Reaches outside Vigil (sends an email, calls a webhook). */
  openWorld?: boolean;
}

const CHECK_ID = { id: 'Check id (from list_checks or create_check)' };
const WEBHOOK_ID = { id: 'Webhook id (from list_webhooks or create_webhook)' };
const CHECKS = '/v1/public/checks';
const WEBHOOKS = '/v1/public/alerts/webhooks';
const PAGES = '/v1/public/status-pages';
const PAGE_ID = { id: 'Status page id (from list_status_pages or create_status_page)' };
const WINDOWS = '/v1/public/maintenance-windows';
const WINDOW_ID = { id: 'Maintenance window id (from list_maintenance_windows or create_maintenance_window)' };
const INCIDENT_ID = { ...PAGE_ID, incidentId: 'Incident id (from list_incidents or create_incident)' };
const INCIDENTS = `${PAGES}/:id/incidents`;

export const TOOL_SPECS: readonly ToolSpec[] = [
  { name: 'list_checks', method: 'GET', path: CHECKS, title: 'List checks', note: 'Paginate with meta.cursor.' },
  { name: 'get_check', method: 'GET', path: `${CHECKS}/:id`, title: 'Get a check', params: CHECK_ID },
  {
    name: 'create_check', method: 'POST', path: CHECKS, title: 'Create a check', idempotent: true,
    note: 'Pass it as idempotencyKey: a unique string per new check, the same one again when retrying, so no duplicate is created.',
  },
  { name: 'update_check', method: 'PATCH', path: `${CHECKS}/:id`, title: 'Update a check', params: CHECK_ID, idempotent: true },
  {
    name: 'delete_check', method: 'DELETE', path: `${CHECKS}/:id`, title: 'Delete a check', params: CHECK_ID,
    destructive: true, idempotent: true, note: 'It cannot be undone.',
  },
  { name: 'toggle_check', method: 'POST', path: `${CHECKS}/:id/toggle`, title: 'Pause or resume a check', params: CHECK_ID, idempotent: true },
  { name: 'set_maintenance', method: 'POST', path: `${CHECKS}/:id/maintenance`, title: 'Set maintenance mode', params: CHECK_ID, idempotent: true },
  { name: 'get_history', method: 'GET', path: `${CHECKS}/:id/history`, title: 'Check history', params: CHECK_ID, note: 'Paginate with meta.cursor.' },
  {
    name: 'get_stats', method: 'GET', path: `${CHECKS}/:id/stats`, title: 'Check statistics', params: CHECK_ID,
    note: 'Single range with from/to, or several named ranges with ranges (e.g. "1d,7d,30d").',
  },
  { name: 'get_status_overview', method: 'GET', path: `${CHECKS}/status`, title: 'Status of every check', note: 'Rate-limited like the REST endpoint (a few calls per minute).' },
  { name: 'get_account', method: 'GET', path: '/v1/public/account', title: 'Account, limits and usage' },
  { name: 'list_regions', method: 'GET', path: '/v1/public/regions', title: 'Regions a check can be pinned to', note: 'Use an id as checkRegionOverride; online says whether probes run there now.' },
  { name: 'get_email_alerts', method: 'GET', path: '/v1/public/alerts/email', title: 'Email alert settings' },
  { name: 'update_email_alerts', method: 'PATCH', path: '/v1/public/alerts/email', title: 'Change email alert settings', idempotent: true },
  { name: 'test_email_alerts', method: 'POST', path: '/v1/public/alerts/email/test', title: 'Send a test alert email', openWorld: true },
  { name: 'list_webhooks', method: 'GET', path: WEBHOOKS, title: 'List webhooks' },
  { name: 'create_webhook', method: 'POST', path: WEBHOOKS, title: 'Create a webhook' },
  {
    name: 'update_webhook', method: 'PATCH', path: `${WEBHOOKS}/:id`, title: 'Change a webhook', params: WEBHOOK_ID, idempotent: true,
    note: 'Send only the fields to change. Routing: checkIds and folders (both empty: every check); remindEveryMinutes null stops reminders; secret null removes the signature.',
  },
  { name: 'test_webhook', method: 'POST', path: `${WEBHOOKS}/:id/test`, title: 'Send a test webhook message', params: WEBHOOK_ID, openWorld: true },
  {
    name: 'delete_webhook', method: 'DELETE', path: `${WEBHOOKS}/:id`, title: 'Delete a webhook', params: WEBHOOK_ID,
    destructive: true, idempotent: true,
  },
  {
    name: 'list_alert_deliveries', method: 'GET', path: '/v1/public/alerts/deliveries', title: 'Alert delivery log',
    note: 'Filter by status (pending, delivered, failed, cancelled), checkId or webhookId; paginate with meta.cursor.',
  },
  {
    name: 'retry_alert_delivery', method: 'POST', path: '/v1/public/alerts/deliveries/:id/retry', title: 'Retry a failed alert delivery',
    params: { id: 'Delivery id (from list_alert_deliveries)' }, openWorld: true,
  },
  {
    // Destructive: the old ping URL stops working at once, so jobs still using it look down.
    name: 'regenerate_heartbeat_token', method: 'POST', path: `${CHECKS}/:id/regenerate-token`, title: 'New heartbeat ping URL',
    params: CHECK_ID, destructive: true, note: 'The old ping URL stops working at once; update the job that pings it.',
  },
  { name: 'list_status_pages', method: 'GET', path: PAGES, title: 'List status pages' },
  {
    name: 'create_status_page', method: 'POST', path: PAGES, title: 'Create a public status page',
    note: 'Anyone can read it at its url without signing in; list only checks meant to be public.',
  },
  { name: 'get_status_page', method: 'GET', path: `${PAGES}/:id`, title: 'Get a status page', params: PAGE_ID },
  { name: 'update_status_page', method: 'PATCH', path: `${PAGES}/:id`, title: 'Update a status page', params: PAGE_ID, idempotent: true },
  { name: 'list_maintenance_windows', method: 'GET', path: WINDOWS, title: 'List maintenance windows', note: 'active says whether one is in force now.' },
  {
    name: 'create_maintenance_window', method: 'POST', path: WINDOWS, title: 'Schedule a maintenance window',
    note: 'One-off: startsAt and endsAt. Recurring: schedule (5-field cron), durationMinutes and timezone (IANA). Which checks: checkIds, folders, tags or allChecks. Alerts of its checks are suppressed while it is active.',
  },
  { name: 'get_maintenance_window', method: 'GET', path: `${WINDOWS}/:id`, title: 'Get a maintenance window', params: WINDOW_ID },
  {
    name: 'update_maintenance_window', method: 'PATCH', path: `${WINDOWS}/:id`, title: 'Change or end a maintenance window', params: WINDOW_ID, idempotent: true,
    note: 'Send only the fields to change; endsAt set to now ends it (a recurring one for good).',
  },
  {
    name: 'delete_maintenance_window', method: 'DELETE', path: `${WINDOWS}/:id`, title: 'Delete a maintenance window', params: WINDOW_ID,
    destructive: true, idempotent: true,
  },
  {
    name: 'delete_status_page', method: 'DELETE', path: `${PAGES}/:id`, title: 'Delete a status page', params: PAGE_ID,
    destructive: true, idempotent: true, note: 'Its public address and badges stop working; the checks stay.',
  },
  { name: 'list_incidents', method: 'GET', path: INCIDENTS, title: 'List the incidents of a status page', params: PAGE_ID },
  {
    name: 'create_incident', method: 'POST', path: INCIDENTS, title: 'Open an incident on a status page', params: PAGE_ID,
    note: 'Shown at once on the public page and in its feeds, and sent to its subscribers. message is the first update of the timeline (plain text).',
  },
  { name: 'get_incident', method: 'GET', path: `${INCIDENTS}/:incidentId`, title: 'Get an incident with its timeline', params: INCIDENT_ID },
  {
    name: 'update_incident', method: 'PATCH', path: `${INCIDENTS}/:incidentId`, title: 'Edit an incident\'s title, impact or checks', params: INCIDENT_ID,
    idempotent: true, note: 'To change its status, post an update (post_incident_update).',
  },
  {
    name: 'post_incident_update', method: 'POST', path: `${INCIDENTS}/:incidentId/updates`, title: 'Post an update to an incident', params: INCIDENT_ID,
    note: 'Subscribers are notified. Status resolved closes the incident.',
  },
  {
    name: 'delete_incident', method: 'DELETE', path: `${INCIDENTS}/:incidentId`, title: 'Delete an incident', params: INCIDENT_ID,
    destructive: true, idempotent: true, note: 'It disappears from the page and its feeds; to close one, post an update with status resolved instead.',
  },
  {
    name: 'plan_config', method: 'POST', path: '/v1/public/config/plan', title: 'Plan a monitoring file',
    note: 'Pass the YAML or JSON text as file (schema: GET /v1/config-schema.json); nothing is written. prune also lists deletions of what the file does not name.',
  },
  {
    name: 'apply_config', method: 'POST', path: '/v1/public/config/apply', title: 'Apply a monitoring file', destructive: true, idempotent: true,
    note: 'All of it or nothing; plan_config first. With prune it deletes the checks, webhooks, status pages and maintenance windows the file does not name.',
  },
];
