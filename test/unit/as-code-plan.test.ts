import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadConfig, resolveConfig } from '../../src/config.js';
import { DEFAULT_SETTINGS } from '../../src/core/check-settings.js';
import type { WindowView } from '../../src/core/maintenance-windows-service.js';
import type { Account, Check } from '../../src/domain/records.js';
import { ApiError } from '../../src/domain/errors.js';
import { dependencyCycle } from '../../src/as-code/dependency-cycle.js';
import { MonitoringFileSource } from '../../src/as-code/file-source.js';
import { planFile, type Snapshot } from '../../src/as-code/plan.js';
import { planText } from '../../src/as-code/plan-text.js';

/** Issue 30: the plan of maintenance windows and of dependencies between checks named by key. */

const config = resolveConfig(loadConfig({ warn: () => {} }), 8080);
const T = Date.UTC(2026, 10, 27, 9);
const account: Account = { id: 'acc_1', email: 'ops@example.com', tier: 'pro', maxChecksOverride: null, claimed: true, createdAt: T };

function check(id: string, name: string, dependsOn: string[] = []): Check {
  return {
    ...DEFAULT_SETTINGS, name, url: `http://127.0.0.1:9/${id}`, type: 'website', dependsOn,
    id, seq: Number(id.replace(/\D/g, '')) || 1, accountId: account.id, disabled: false, disabledReason: null, maintenance: false, maintenanceUntil: null,
    windowMaintenance: false, heartbeatToken: null, status: 'up', consecutiveFailures: 0, degraded: false, lastChecked: null, lastResponseTime: null,
    lastStatusCode: null, lastError: null, lastStatusChange: null, probesTotal: 0, probesUp: 0, ssl: null, domain: null, regions: null,
    errorAlerted: false, sslAlerts: null, createdAt: T, updatedAt: T,
  };
}

function window(id: string, fields: Partial<WindowView>): WindowView {
  return {
    id, title: 'Window', description: null, checkIds: [], folders: [], tags: [], allChecks: false, startsAt: null, endsAt: null,
    schedule: null, durationMinutes: null, timezone: null, active: false, nextStartsAt: null, nextEndsAt: null,
    createdAt: new Date(T).toISOString(), updatedAt: new Date(T).toISOString(), ...fields,
  };
}

/** Two checks (web, db; web depends on db), stored under their keys, and one nightly window over db. */
function account0(): Snapshot {
  return {
    checks: [check('chk_1', 'Web', ['chk_2']), check('chk_2', 'DB')],
    webhooks: [],
    email: null,
    pages: [],
    windows: [window('mtw_1', { title: 'Nightly', checkIds: ['chk_2'], schedule: '0 2 * * *', durationMinutes: 30, timezone: 'UTC' })],
    keys: {
      check: [{ key: 'web', objectId: 'chk_1' }, { key: 'db', objectId: 'chk_2' }],
      webhook: [],
      status_page: [],
      maintenance_window: [{ key: 'nightly', objectId: 'mtw_1' }],
    },
  };
}

const CHECKS = `version: 1
checks:
  web:
    name: Web
    url: http://127.0.0.1:9/chk_1
    dependsOn: [db]
  db:
    name: DB
    url: http://127.0.0.1:9/chk_2
`;
const NIGHTLY = `maintenanceWindows:
  nightly:
    title: Nightly
    checks: [db]
    schedule: 0 2 * * *
    durationMinutes: 30
`;

function plan(text: string, options: { prune?: boolean; snapshot?: Snapshot } = {}) {
  const source = MonitoringFileSource.parse(text, {});
  return planFile(source, options.snapshot ?? account0(), { prune: options.prune ?? false, config, account });
}

function refused(text: string, pattern: RegExp, options: { prune?: boolean; snapshot?: Snapshot } = {}) {
  assert.throws(() => plan(text, options), (err: unknown) => {
    assert.ok(err instanceof ApiError, String(err));
    assert.match(err.message, pattern);
    return true;
  });
}

describe('maintenance windows in the plan', () => {
  test('a file saying what the account holds plans no change (the time zone of a recurring window defaults to UTC)', () => {
    const { plan: p } = plan(CHECKS + NIGHTLY);
    assert.deepEqual(p.changes, []);
    assert.equal(p.unchanged.maintenanceWindows, 1);
    assert.equal(p.summary.unchanged, 3);
  });

  test('+ create with its fields, checks by key', () => {
    const text = `${CHECKS + NIGHTLY}  release:\n    title: Release\n    checks: [web, db]\n    tags: [env:prod]\n    startsAt: 2026-12-01T02:00:00+01:00\n    endsAt: 2026-12-01T03:00:00Z\n`;
    const { plan: p, steps } = plan(text);
    assert.deepEqual(p.changes, [{
      action: 'create', section: 'maintenanceWindows', key: 'release',
      fields: [
        { field: 'title', to: 'Release' }, { field: 'checks', to: ['web', 'db'] }, { field: 'tags', to: ['env:prod'] },
        { field: 'allChecks', to: false }, { field: 'startsAt', to: '2026-12-01T01:00:00.000Z' }, { field: 'endsAt', to: '2026-12-01T03:00:00.000Z' },
      ],
    }]);
    assert.equal(steps[0]!.section, 'maintenanceWindows');
    assert.match(planText(p, { prune: false }), /^\+ create maintenanceWindows\.release \(title: Release, checks: \["web","db"\], /);
  });

  test('~ update names the fields that change; renamedFrom keeps the window', () => {
    const text = CHECKS + NIGHTLY.replace('nightly:', 'nightly-db:\n    renamedFrom: nightly').replace('durationMinutes: 30', 'durationMinutes: 45\n    timezone: Europe/Paris');
    const { plan: p, steps } = plan(text);
    assert.deepEqual(p.changes, [{
      action: 'update', section: 'maintenanceWindows', key: 'nightly-db', renamedFrom: 'nightly',
      fields: [{ field: 'durationMinutes', from: 30, to: 45 }, { field: 'timezone', from: 'UTC', to: 'Europe/Paris' }],
    }]);
    assert.deepEqual(steps[0], { section: 'maintenanceWindows', action: 'update', key: 'nightly-db', id: 'mtw_1', patch: { durationMinutes: 45, timezone: 'Europe/Paris' } });
  });

  test('- delete only with prune; without it the window is left alone and counted', () => {
    const kept = plan(CHECKS);
    assert.deepEqual(kept.plan.changes, []);
    assert.equal(kept.plan.notInFile.maintenanceWindows, 1);
    assert.match(planText(kept.plan, { prune: false }), /not in the file, left alone: 1 maintenance window \(--prune/);
    assert.deepEqual(kept.keptKeys.maintenance_window, [{ key: 'nightly', objectId: 'mtw_1' }], 'its key is kept');
    const pruned = plan(CHECKS, { prune: true });
    assert.deepEqual(pruned.plan.changes, [{ action: 'delete', section: 'maintenanceWindows', key: 'nightly', fields: [] }]);
  });

  test('a window naming a check the account will not have is an error at its place', () => {
    refused(`${CHECKS + NIGHTLY}    folders: [web]\n  other:\n    title: Other\n    checks: [db, nope]\n    allChecks: true\n`, /^maintenanceWindows\.other\.checks\.1 \(line 19, column 18\): names no check of this file or the account: nope$/);
    refused(`${CHECKS + NIGHTLY}    startsAt: tomorrow\n`, /^maintenanceWindows\.nightly\.startsAt \(line 16, column 5\): .*date-time/);
  });
});

describe('dependencies by key', () => {
  test('stored ids are compared as keys: the same dependencies plan no change, in any order', () => {
    const snapshot = account0();
    snapshot.checks[0]!.dependsOn = ['chk_2', 'chk_gone'];
    assert.deepEqual(plan(CHECKS, { snapshot }).plan.changes, [], 'a dependency on a deleted check is not the file\'s');
  });

  test('~ update dependsOn with keys; the step carries the keys and the ids it depends on now', () => {
    const text = CHECKS.replace('dependsOn: [db]', 'dependsOn: []').replace('    url: http://127.0.0.1:9/chk_2\n', '    url: http://127.0.0.1:9/chk_2\n    dependsOn: [web]\n');
    const { plan: p, steps } = plan(text);
    assert.deepEqual(p.changes.map((c) => [c.key, c.fields]), [
      ['web', [{ field: 'dependsOn', from: ['db'], to: [] }]],
      ['db', [{ field: 'dependsOn', from: [], to: ['web'] }]],
    ]);
    assert.deepEqual(steps.map((s) => s.action === 'update' && s.section === 'checks' ? [s.patch, s.dependsOn, s.dependedOn] : null), [
      [{}, [], ['chk_2']],
      [{}, ['web'], []],
    ]);
  });

  test('+ create: a dependency on a check further down the file, which is created too', () => {
    const text = `${CHECKS}  api:\n    url: http://127.0.0.1:9/api\n    dependsOn: [cache, db]\n  cache:\n    url: http://127.0.0.1:9/cache\n`;
    const { plan: p, steps } = plan(text);
    assert.deepEqual(p.changes.map((c) => `${c.action} ${c.key}`), ['create api', 'create cache']);
    assert.deepEqual(p.changes[0]!.fields.find((f) => f.field === 'dependsOn'), { field: 'dependsOn', to: ['cache', 'db'] });
    assert.deepEqual(steps.map((s) => s.action === 'create' && s.section === 'checks' ? s.dependsOn : null), [['cache', 'db'], []]);
  });

  test('an unknown key, the check itself, a pruned check or a cycle is an error with line and column', () => {
    refused(CHECKS.replace('dependsOn: [db]', 'dependsOn: [db, nope]'), /^checks\.web\.dependsOn\.1 \(line 6, column 21\): names no check of this file or the account: nope$/);
    refused(CHECKS.replace('dependsOn: [db]', 'dependsOn: [web]'), /^checks\.web\.dependsOn\.0 \(line 6, column 17\): a check cannot depend on itself \(web\)$/);
    refused(CHECKS.replace('    url: http://127.0.0.1:9/chk_2\n', '    url: http://127.0.0.1:9/chk_2\n    dependsOn:\n      - web\n'), /^checks\.db\.dependsOn\.0 \(line 11, column 9\): dependsOn: db -> web -> db would be a cycle$/);
    const text = `version: 1\nchecks:\n  a:\n    url: http://127.0.0.1:9/a\n    dependsOn: [b]\n  b:\n    url: http://127.0.0.1:9/b\n    dependsOn: [c]\n  c:\n    url: http://127.0.0.1:9/c\n    dependsOn: [a]\n`;
    refused(text, /^checks\.a\.dependsOn\.0 \(line 5, column 17\): dependsOn: a -> b -> c -> a would be a cycle$/);
  });

  test('a cycle through a check the file leaves alone is found too', () => {
    // db (not in the file, kept) depends on web; the file makes web depend on db.
    const snapshot = account0();
    snapshot.checks[0]!.dependsOn = [];
    snapshot.checks[1]!.dependsOn = ['chk_1'];
    const text = 'version: 1\nchecks:\n  web:\n    name: Web\n    url: http://127.0.0.1:9/chk_1\n    dependsOn: [db]\n';
    refused(text, /^checks\.web\.dependsOn\.0 \(line 6, column 17\): dependsOn: web -> db -> web would be a cycle$/, { snapshot });
    refused(text, /^checks\.web\.dependsOn\.0 \(line 6, column 17\): names no check of this file or the account: db$/, { snapshot, prune: true });
  });

  test('dependencyCycle: none in a chain or a diamond, the ring of a cycle otherwise', () => {
    assert.equal(dependencyCycle(new Map([['a', ['b']], ['b', ['c']], ['c', []]])), null);
    assert.equal(dependencyCycle(new Map([['a', ['b', 'c']], ['b', ['d']], ['c', ['d']], ['d', []]])), null);
    assert.deepEqual(dependencyCycle(new Map([['a', ['b']], ['b', ['c']], ['c', ['b']]])), ['b', 'c', 'b']);
    const long = new Map(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, i + 1 < 50_000 ? [`k${i + 1}`] : []] as [string, string[]]));
    assert.equal(dependencyCycle(long), null, 'a long chain does not exhaust the stack');
  });
});

describe('plan limits, before any write', () => {
  // The planner has no store: what it refuses, it refuses before the unit of work begins.
  const free: Account = { ...account, tier: 'free' };
  const planFree = (text: string) => planFile(MonitoringFileSource.parse(text, {}), { ...account0(), windows: [], keys: { ...account0().keys, maintenance_window: [] } }, { prune: false, config, account: free });

  test('one check beyond the plan (interval, type, region) is an error at its field', () => {
    const fast = `${CHECKS}  api:\n    url: http://127.0.0.1:9/api\n    checkFrequency: 1\n`;
    assert.throws(() => planFree(fast), /: checks\.api\.checkFrequency \(line 12, column 5\): checkFrequency must be at least 5 minutes for checks on the free plan$/);
    const faster = CHECKS.replace('    name: DB\n', '    name: DB\n    checkFrequency: 2\n');
    assert.throws(() => planFree(faster), /: checks\.db\.checkFrequency \(line 9, column 5\): checkFrequency must be at least 5 minutes/, 'an update too');
    const domain = `${CHECKS}  whois:\n    type: domain\n    url: example.org\n`;
    assert.throws(() => planFree(domain), /: checks\.whois \(line 10, column 3\): domain checks need the nano plan or higher$/);
  });

  test('the file as a whole beyond the plan\'s number of checks or webhooks', () => {
    const many = Array.from({ length: 9 }, (_, i) => `  c${i}:\n    url: http://127.0.0.1:9/c${i}\n`).join('');
    assert.throws(() => planFree(CHECKS + many), /: checks \(line 2, column 1\): the account would have 11 checks but its plan allows 10: nothing was written$/);
    const hooks = Array.from({ length: 4 }, (_, i) => `  w${i}:\n    name: W${i}\n    url: https://hooks.example.com/${i}\n`).join('');
    assert.throws(() => planFree(`${CHECKS}webhooks:\n${hooks}`), /: webhooks \(line \d+, column 1\): the account would have 4 webhooks but its plan allows \d+/);
  });
});

test('the worked example of docs/config-as-code.md is a valid file that plans on an empty account', () => {
  const doc = readFileSync(fileURLToPath(new URL('../../../docs/config-as-code.md', import.meta.url)), 'utf8');
  const example = /```yaml\n([\s\S]*?)```/.exec(doc)![1]!;
  const env = Object.fromEntries([...example.matchAll(/\$\{(VIGIL_[A-Z0-9_]+)\}/g)].map(([, name]) => [name!, name === 'VIGIL_WEBHOOK_OPS_SLACK_URL' ? 'https://hooks.slack.com/services/T0/B0/X' : 'value']));
  const empty: Snapshot = { checks: [], webhooks: [], email: null, pages: [], windows: [], keys: { check: [], webhook: [], status_page: [], maintenance_window: [] } };
  const { plan: p } = planFile(MonitoringFileSource.parse(example, env), empty, { prune: false, config, account });
  assert.deepEqual(p.changes.filter((c) => c.action === 'create').map((c) => `${c.section}.${c.key}`), [
    'checks.api-health', 'checks.database', 'checks.nightly-backup', 'checks.old-site', 'webhooks.ops-slack', 'email.email', 'statusPages.public',
    'maintenanceWindows.db-upgrade', 'maintenanceWindows.weekly-deploy',
  ]);
});
