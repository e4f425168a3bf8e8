import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig, resolveConfig } from '../../src/config.js';
import type { Account } from '../../src/domain/records.js';
import { ApiError } from '../../src/domain/errors.js';
import { MonitoringFileSource } from '../../src/as-code/file-source.js';
import { planFile, type Snapshot } from '../../src/as-code/plan.js';
import { planText } from '../../src/as-code/plan-text.js';

/** Issue 35 item 4: a monitoring file's mistakes are named so they can be fixed without the docs. */

const config = resolveConfig(loadConfig({ warn: () => {} }), 8080);
const account: Account = { id: 'acc_1', email: 'ops@example.com', tier: 'pro', maxChecksOverride: null, claimed: true, createdAt: 0 };
const empty: Snapshot = { checks: [], webhooks: [], email: null, pages: [], windows: [], keys: { check: [], webhook: [], status_page: [], maintenance_window: [] } };

function refusal(text: string): ApiError {
  try {
    MonitoringFileSource.parse(text, {});
  } catch (err) {
    assert.ok(err instanceof ApiError, String(err));
    return err;
  }
  assert.fail('the file was accepted');
}

function plan(text: string) {
  return planFile(MonitoringFileSource.parse(text, {}), empty, { prune: false, config, account }).plan;
}

describe('monitoring file errors', () => {
  test('a mistyped key of a check is answered with the field it was likely meant to be', () => {
    const err = refusal('version: 1\nchecks:\n  api:\n    url: http://127.0.0.1:9/\n    checkFrequncy: 5\n');
    assert.equal(err.message, 'checks.api.checkFrequncy (line 5, column 5): is not a known field; did you mean checkFrequency?');
  });

  test('a mistyped section and a mistyped key in another section get theirs too; nothing close gets none', () => {
    assert.match(refusal('version: 1\nchecsk: {}\n').message, /^checsk \(line 2, column 1\): is not a known field; did you mean checks\?$/);
    assert.match(refusal('version: 1\nstatusPages:\n  main:\n    title: Status\n    acentColor: "#112233"\n').message, /acentColor .*did you mean accentColor\?$/);
    assert.match(refusal('version: 1\nchecks:\n  api:\n    url: http://127.0.0.1:9/\n    zzzzzzzz: 1\n').message, /is not a known field$/);
  });

  test('a key written twice is named, with the line of each', () => {
    const err = refusal('version: 1\nchecks:\n  api:\n    name: A\n    url: http://127.0.0.1:9/\n    name: B\n');
    assert.equal(err.message, '(line 6, column 5): the key "name" is written twice in the same mapping (first on line 4)');
  });

  test('two checks of one name are planned with a warning that the text prints', () => {
    const p = plan('version: 1\nchecks:\n  a:\n    name: API\n    url: http://127.0.0.1:9/a\n  b:\n    name: api\n    url: http://127.0.0.1:9/b\n  c:\n    name: Other\n    url: http://127.0.0.1:9/c\n');
    assert.deepEqual(p.warnings, ['checks.a and checks.b are both named "API": alerts and lists cannot tell them apart']);
    assert.match(planText(p, { prune: false }), /^! warning: checks\.a and checks\.b are both named "API"/m);
    assert.deepEqual(plan('version: 1\nchecks:\n  a:\n    url: http://127.0.0.1:9/a\n').warnings, []);
  });

  test('counts read in the singular for one', () => {
    const p = plan('version: 1\n');
    p.notInFile = { checks: 1, webhooks: 2, statusPages: 1, maintenanceWindows: 1 };
    assert.match(planText(p, { prune: false }), /left alone: 1 check, 2 webhooks, 1 status page, 1 maintenance window \(--prune/);
  });
});
