import { test } from 'node:test';
import assert from 'node:assert/strict';
import { localInstant, mapMaintenance } from '../../src/import/kuma-maintenance.js';
import { jsonPathOf, mapMonitor, kumaTags, statusCodesOf, type MonitorContext } from '../../src/import/kuma-monitors.js';
import { mapNotification, recipientsOf } from '../../src/import/kuma-notifications.js';
import { folderNames } from '../../src/import/kuma-import.js';
import { observationOf } from '../../src/import/kuma-history.js';
import type { KumaMonitorRow, KumaNotification, KumaStatusPage } from '../../src/store/kuma-source.js';
import type { EmailSettings } from '../../src/store/alert-store.js';
import { kumaEmailRoute } from '../../src/import/kuma-email.js';
import { pageNotImported } from '../../src/import/kuma-pages.js';
import type { PlanLimits } from '../../src/domain/plans.js';

/** The pure Kuma → Vigil mapping (docs/kuma-import.md), one rule per assertion. */

const LIMITS: PlanLimits = {
  maxChecks: 1000, minCheckIntervalMinutes: 0.5, maxWebhooks: 50, maxApiKeys: 100, regionChoice: true, domainIntel: true, minHeartbeatIntervalSeconds: 15,
};
const ctx = (over: Partial<MonitorContext> = {}): MonitorContext => ({ folder: null, tags: [], limits: LIMITS, ...over });
const monitor = (over: Record<string, unknown>): KumaMonitorRow => ({
  id: 1, name: 'M', type: 'http', active: 1, parent: null, interval: 60, retry_interval: 60, maxretries: 0,
  accepted_statuscodes_json: '["200-299"]', maxredirects: 10, ignore_tls: 0, upside_down: 0, method: 'GET', ...over,
});
const mapped = (m: KumaMonitorRow, c = ctx()) => {
  const r = mapMonitor(m, c);
  assert.ok(r.ok, r.ok ? '' : r.reason);
  return r.check;
};

test('accepted status codes: single codes kept, ranges become the registered codes inside them, at most 20', () => {
  assert.deepEqual(statusCodesOf(['200-299']).codes, [200, 201, 202, 203, 204, 205, 206, 207, 208, 226]);
  assert.deepEqual(statusCodesOf(['200-299', '401']).codes, [200, 201, 202, 203, 204, 205, 206, 207, 208, 226, 401]);
  assert.deepEqual(statusCodesOf(['300-399']).codes, [300, 301, 302, 303, 304, 305, 307, 308]);
  const wide = statusCodesOf(['100-599']);
  assert.equal(wide.codes.length, 20);
  assert.match(wide.note!, /takes 20 codes/);
  assert.deepEqual(statusCodesOf(['nonsense']).codes, [200]);
});

test('json-query paths become JSONPath; Kuma tags become Vigil tags', () => {
  assert.equal(jsonPathOf('status'), '$.status');
  assert.equal(jsonPathOf('data.items[0].ok'), '$.data.items[0].ok');
  assert.equal(jsonPathOf('$.already'), '$.already');
  const notes: string[] = [];
  assert.deepEqual(kumaTags([{ name: 'env', value: 'prod' }, { name: 'critical', value: '' }, { name: 'ENV', value: 'Prod' }], notes), ['env:prod', 'critical']);
  assert.deepEqual(kumaTags([{ name: 'a,b ', value: ' x' }], notes), ['a b:x'], 'commas become spaces, ends trimmed');
  assert.deepEqual(notes, []);
  const many = Array.from({ length: 22 }, (_, i) => ({ name: `t${i}`, value: '' }));
  assert.equal(kumaTags(many, notes).length, 20);
  assert.match(notes[0]!, /t20, t21: a Vigil check has at most 20 tags/);
  assert.deepEqual(kumaTags([{ name: ' ', value: 'x' }], notes), []);
  assert.match(notes[1]!, /not a usable Vigil tag/);
});

test('http: website, or redirect/rest_endpoint when redirects are off; method, headers, body, basic auth; retries + 1', () => {
  const c = mapped(monitor({
    url: 'https://a.example.com/x', method: 'POST', body: '{"a":1}', headers: '{"X-Key":"k"}', basic_auth_user: 'u', basic_auth_pass: 'p', maxretries: 3, interval: 120,
  }));
  assert.equal(c.input.type, 'website');
  assert.equal(c.input.httpMethod, 'POST');
  assert.equal(c.input.requestBody, '{"a":1}');
  assert.deepEqual(c.input.requestHeaders, { 'X-Key': 'k', Authorization: `Basic ${Buffer.from('u:p').toString('base64')}` });
  assert.equal(c.input.downConfirmationAttempts, 4);
  assert.equal(c.input.checkFrequency, 2);
  assert.equal(mapped(monitor({ url: 'https://a.example.com/', maxredirects: 0, accepted_statuscodes_json: '["300-399"]' })).input.type, 'redirect');
  assert.equal(mapped(monitor({ url: 'https://a.example.com/', maxredirects: 0 })).input.type, 'rest_endpoint');
});

test('an interval below the plan minimum is raised and reported; settings without an equivalent are named', () => {
  const c = mapped(monitor({ url: 'https://a.example.com/', interval: 20, retry_interval: 10, timeout: 16, ignore_tls: 1, maxredirects: 3, description: 'd' }));
  assert.equal(c.input.checkFrequency, 0.5);
  for (const pattern of [/interval 20 s/, /retry interval 10 s/, /timeout 16 s/, /ignore TLS/, /max redirects 3/, /description "d"/]) {
    assert.ok(c.notes.some((n) => pattern.test(n)), `${pattern} in ${JSON.stringify(c.notes)}`);
  }
});

test('keyword, inverted keyword and json-query validations', () => {
  assert.deepEqual(mapped(monitor({ type: 'keyword', url: 'https://a.example.com/', keyword: 'Welcome' })).input.responseValidation, { containsText: ['Welcome'] });
  const inverted = mapped(monitor({ type: 'keyword', url: 'https://a.example.com/', keyword: 'Down', invert_keyword: 1 }));
  assert.equal(inverted.input.responseValidation, undefined);
  assert.ok(inverted.notes.some((n) => /inverted keyword "Down"/.test(n)));
  const json = mapped(monitor({ type: 'json-query', url: 'https://a.example.com/s', json_path: 'status', expected_value: 'ok', json_path_operator: '==' }));
  assert.deepEqual([json.input.type, json.input.responseValidation], ['rest_endpoint', { jsonPath: '$.status', expectedValue: 'ok' }]);
  const other = mapped(monitor({ type: 'json-query', url: 'https://a.example.com/s', json_path: 'n', expected_value: '3', json_path_operator: '>' }));
  assert.equal(other.input.responseValidation, undefined);
});

test('port, ping, dns, push, websocket-upgrade and smtp become their Vigil types and url forms', () => {
  assert.equal(mapped(monitor({ type: 'port', hostname: '127.0.0.1', port: 5432 })).input.url, 'tcp://127.0.0.1:5432');
  const ping = mapped(monitor({ type: 'ping', hostname: 'h.example.com', ping_count: 9 })).input;
  assert.deepEqual([ping.type, ping.url, ping.pingPackets], ['ping', 'h.example.com', 5]);
  assert.equal(mapped(monitor({ type: 'dns', hostname: 'example.com', dns_resolve_server: '1.1.1.1', dns_resolve_type: 'MX', port: 53 })).input.url, 'dns://1.1.1.1/example.com?type=MX');
  assert.equal(mapMonitor(monitor({ type: 'dns', hostname: 'example.com', dns_resolve_type: 'SRV' }), ctx()).ok, false);
  const push = mapped(monitor({ type: 'push', push_token: 'tok', interval: 60 }));
  assert.deepEqual([push.input.type, push.pushToken, push.input.checkFrequency], ['heartbeat', 'tok', 1]);
  assert.equal(mapped(monitor({ type: 'websocket-upgrade', url: 'ws://127.0.0.1:1/ws' })).input.type, 'websocket');
  assert.equal(mapped(monitor({ type: 'smtp', hostname: 'mx.example.com', port: 465, smtp_security: 'secure' })).input.url, 'smtps://mx.example.com:465');
});

test('upside-down and unknown types are skipped with a reason; paused stays paused; folder and tags carried', () => {
  const upside = mapMonitor(monitor({ type: 'port', hostname: 'h', port: 1, upside_down: 1 }), ctx());
  assert.ok(!upside.ok && /upside-down/.test(upside.reason));
  const docker = mapMonitor(monitor({ type: 'docker' }), ctx());
  assert.ok(!docker.ok && /docker/.test(docker.reason));
  const c = mapped(monitor({ url: 'https://a.example.com/', active: 0 }), ctx({ folder: 'Prod', tags: [{ name: 'env', value: 'x' }] }));
  assert.deepEqual([c.paused, c.input.folder, c.input.name, c.input.tags], [true, 'Prod', 'M', ['env:x']]);
});

test('groups become folders, nested groups joined outermost first', () => {
  const rows = [
    monitor({ id: 1, type: 'group', name: 'Outer' }),
    monitor({ id: 2, type: 'group', name: 'Inner', parent: 1 }),
    monitor({ id: 3, name: 'Leaf', parent: 2 }),
    monitor({ id: 4, name: 'Alone' }),
  ];
  const f = folderNames(rows);
  assert.deepEqual([f.get(1), f.get(2), f.get(3), f.get(4)], ['Outer', 'Outer / Inner', 'Outer / Inner', undefined]);
});

const note = (config: Record<string, unknown>): KumaNotification => ({ id: 1, name: 'n', isDefault: false, active: true, config });

test('notifications become webhooks of the matching type with their credentials in the URL', () => {
  const cases: [Record<string, unknown>, string, string][] = [
    [{ type: 'webhook', webhookURL: 'https://h.example.com/x' }, 'generic', 'https://h.example.com/x'],
    [{ type: 'slack', slackwebhookURL: 'https://hooks.slack.com/services/A' }, 'slack', 'https://hooks.slack.com/services/A'],
    [{ type: 'telegram', telegramBotToken: '1:AB', telegramChatID: '-100', telegramMessageThreadID: '42' }, 'telegram', 'https://api.telegram.org/bot1:AB/sendMessage?chat_id=-100&message_thread_id=42'],
    [{ type: 'ntfy', ntfyserverurl: 'https://ntfy.example.com/', ntfytopic: 'alerts', ntfyAuthenticationMethod: 'accessToken', ntfyaccesstoken: 'tk_1', ntfyPriority: 4 }, 'ntfy', 'https://ntfy.example.com/alerts?token=tk_1&priority=4'],
    [{ type: 'gotify', gotifyserverurl: 'https://g.example.com', gotifyapplicationToken: 'T' }, 'gotify', 'https://g.example.com/message?token=T'],
    [{ type: 'pushover', pushoverapptoken: 'a', pushoveruserkey: 'u' }, 'pushover', 'https://api.pushover.net/1/messages.json?token=a&user=u'],
    [{ type: 'PagerDuty', pagerdutyIntegrationUrl: 'https://events.pagerduty.com/v2/enqueue', pagerdutyIntegrationKey: 'K' }, 'pagerduty', 'https://events.pagerduty.com/v2/enqueue?routing_key=K'],
    [{ type: 'Opsgenie', opsgenieApiKey: 'K', opsgenieRegion: 'eu' }, 'opsgenie', 'https://api.eu.opsgenie.com/v2/alerts?apiKey=K'],
    [{ type: 'matrix', homeserverUrl: 'https://m.example.org', internalRoomId: '!r:m.example.org', accessToken: 'syt' }, 'matrix', 'https://m.example.org/_matrix/client/v3/rooms/!r:m.example.org/send/m.room.message?access_token=syt'],
    [{ type: 'mattermost', mattermostWebhookUrl: 'https://mm.example.com/hooks/x' }, 'mattermost', 'https://mm.example.com/hooks/x'],
  ];
  for (const [config, type, url] of cases) {
    const m = mapNotification(note(config));
    assert.ok(m.kind === 'webhook', `${config.type}: ${JSON.stringify(m)}`);
    assert.deepEqual([m.webhookType, m.url], [type, url]);
  }
  const unknown = mapNotification(note({ type: 'signal' }));
  assert.ok(unknown.kind === 'skipped' && /signal/.test(unknown.reason));
});

test('SMTP notifications become email recipients (To, CC, BCC) and name the SMTP server as the operator\'s', () => {
  assert.deepEqual(recipientsOf({ smtpTo: 'a@x.com', smtpCC: 'b@x.com, c@x.com', smtpBCC: 'a@x.com' }), ['a@x.com', 'b@x.com', 'c@x.com']);
  const m = mapNotification(note({ type: 'smtp', smtpHost: 'smtp.x.com', smtpPort: 587, smtpTo: 'a@x.com' }));
  assert.ok(m.kind === 'email');
  assert.ok(m.notes.some((n) => /smtp\.x\.com:587.*operator/.test(n)));
});

test('a Kuma heartbeat is the observation a live probe or ping would have made', () => {
  const up = observationOf({ type: 'website' }, { status: 1, at: 1000, msg: '200 - OK', ping: 12 });
  assert.ok(up.kind === 'probe' && up.result.ok && up.result.startedAt === 1000 && up.result.responseTime === 12);
  const down = observationOf({ type: 'tcp' }, { status: 0, at: 2000, msg: 'ECONNREFUSED', ping: null });
  assert.ok(down.kind === 'probe' && !down.result.ok && down.result.error === 'ECONNREFUSED');
  assert.equal(observationOf({ type: 'heartbeat' }, { status: 1, at: 1, msg: null, ping: null }).kind, 'ping');
  assert.equal(observationOf({ type: 'heartbeat' }, { status: 0, at: 1, msg: null, ping: null }).kind, 'missed');
});

test('email: applied exactly when the account has no setting or these very addresses; refused beside other recipients', () => {
  const settings = (recipients: string[], checkIds: string[] = [], folders: string[] = []): EmailSettings => ({
    accountId: 'acc', enabled: true, recipients, events: ['website_down'], emailFormat: 'html', updatedAt: 0, checkIds, folders,
    remindEveryMinutes: null,
  } as EmailSettings);
  const kuma = ['oncall@example.com', 'sre@example.com'];
  assert.deepEqual(kumaEmailRoute(null, kuma, ['c1', 'c2']), { kind: 'update', patch: { recipients: kuma, checkIds: ['c1', 'c2'] } });
  assert.deepEqual(kumaEmailRoute(settings(['SRE@example.com', 'oncall@example.com'], ['c0']), kuma, ['c1']), {
    kind: 'update', patch: { recipients: ['SRE@example.com', 'oncall@example.com'], checkIds: ['c0', 'c1'] },
  });
  assert.deepEqual(kumaEmailRoute(settings(kuma), kuma, ['c1']), { kind: 'covered' });
  const refused = kumaEmailRoute(settings(['boss@example.com']), kuma, ['c1']);
  assert.equal(refused.kind, 'refused');
  assert.match(refused.kind === 'refused' ? refused.reason : '', /already sends email alerts to boss@example\.com \(every check\).*one recipient list per account/);
});

test('status pages: every setting away from Kuma\'s defaults without a Vigil equivalent is named', () => {
  const page = (settings: Record<string, unknown>, extra: Partial<KumaStatusPage> = {}): KumaStatusPage => ({
    id: 1, slug: 's', title: 'S', description: null, monitorIds: [], groups: [], domains: [], pinnedIncidents: [], settings, ...extra,
  });
  const defaults = { icon: '/icon.svg', theme: 'auto', published: 1, search_engine_index: 1, show_tags: 0, password: null, footer_text: null, custom_css: '', show_powered_by: 1 };
  assert.deepEqual(pageNotImported(page(defaults)), []);
  const notes = pageNotImported(page(
    { ...defaults, footer_text: 'Operated by SRE', show_tags: 1, published: 0, show_powered_by: 0, analytics_id: 'G-1', auto_refresh_interval: 300 },
    { domains: ['status.example.com'], pinnedIncidents: ['DB upgrade'] },
  ));
  for (const expected of [/footer text "Operated by SRE"/, /show tags/, /unpublished/, /Powered by/, /analytics/, /auto refresh every 300 s/, /custom domain status\.example\.com/, /pinned incident "DB upgrade"/]) {
    assert.ok(notes.some((n) => expected.test(n)), `${expected} in ${JSON.stringify(notes)}`);
  }
});

test('Kuma maintenance: one-off in its zone, weekdays, days of month, cron and daily intervals become windows; the rest say why not', () => {
  const base = {
    id: 1, title: 'W', description: null, active: true, strategy: 'single', startDate: null, endDate: null, startTime: null, endTime: null,
    weekdays: [], daysOfMonth: [], intervalDay: 1, cron: null, duration: null, timezone: 'Europe/Berlin', monitorIds: [1],
  } as Parameters<typeof mapMaintenance>[0];
  const once = mapMaintenance({ ...base, startDate: '2026-07-01T22:00', endDate: '2026-07-02 01:30:00' });
  assert.ok(once.ok);
  assert.deepEqual([once.input.startsAt, once.input.endsAt], ['2026-07-01T20:00:00.000Z', '2026-07-01T23:30:00.000Z'], 'local to Berlin (UTC+2 in July)');
  const weekly = mapMaintenance({ ...base, strategy: 'recurring-weekday', weekdays: [1, 3], startTime: '23:30', endTime: '01:00' });
  assert.ok(weekly.ok);
  assert.deepEqual([weekly.input.schedule, weekly.input.durationMinutes, weekly.input.timezone], ['30 23 * * 1,3', 90, 'Europe/Berlin'], 'an end before the start is the next day');
  const monthly = mapMaintenance({ ...base, strategy: 'recurring-day-of-month', daysOfMonth: [1, 15, 'lastDay1'], startTime: '03:00', endTime: '04:00' });
  assert.ok(monthly.ok);
  assert.equal(monthly.input.schedule, '0 3 1,15 * *');
  assert.match(monthly.notes[0]!, /lastDay1/);
  const cron = mapMaintenance({ ...base, strategy: 'cron', cron: '0 4 * * 6', duration: 1800, startDate: '2026-01-01 00:00:00' });
  assert.ok(cron.ok);
  assert.deepEqual([cron.input.schedule, cron.input.durationMinutes, cron.input.startsAt], ['0 4 * * 6', 30, '2025-12-31T23:00:00.000Z']);
  const daily = mapMaintenance({ ...base, strategy: 'recurring-interval', intervalDay: 1, startTime: '01:00', endTime: '02:00' });
  assert.ok(daily.ok && daily.input.schedule === '0 1 * * *');
  for (const [over, reason] of [
    [{ strategy: 'recurring-interval', intervalDay: 3, startTime: '01:00', endTime: '02:00' }, /every 3 days/],
    [{ strategy: 'manual' }, /manual/],
    [{ active: false }, /paused in Kuma/],
    [{ strategy: 'cron', cron: '0 0 4 * * 6', duration: 60 }, /5-field/],
    [{ strategy: 'single', startDate: '2026-07-01T22:00' }, /start and end/],
  ] as const) {
    const m = mapMaintenance({ ...base, ...over } as Parameters<typeof mapMaintenance>[0]);
    assert.ok(!m.ok && reason.test(m.reason), JSON.stringify(over));
  }
  const server = mapMaintenance({ ...base, timezone: 'SAME_AS_SERVER', startDate: '2026-07-01T22:00', endDate: '2026-07-01T23:00' });
  assert.ok(server.ok && server.input.startsAt === '2026-07-01T22:00:00.000Z' && /UTC is used/.test(server.notes[0]!));
  assert.equal(localInstant('2026-10-25T02:30', 'Europe/Berlin'), Date.parse('2026-10-25T00:30:00Z'), 'a repeated hour: the first');
});
