import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ProbeResult, ProbeTask, SslInfo } from '../../src/domain/probe-types.js';
import {
  DEFAULT_POLICY, initialState, missedPingError, statusEndpointStatus, transition,
  type MonitorInput, type MonitorPolicy, type MonitorState, type Transition,
} from '../../src/monitor/state-machine.js';
import { NoPeer, type PeerVerdict } from '../../src/monitor/peer.js';
import { transitionKey } from '../../src/domain/events.js';

const T0 = Date.UTC(2026, 0, 1);
const MIN = 60_000;
const DAY = 86_400_000;
const REGION = 'vps-eu-1';

function result(overrides: Partial<ProbeResult> = {}): ProbeResult {
  const ok = overrides.ok ?? true;
  return {
    ok,
    statusCode: ok ? 200 : 503,
    responseTime: 120,
    timing: null,
    error: ok ? null : 'HTTP 503',
    snippet: null,
    ssl: null,
    location: null,
    startedAt: T0,
    ...overrides,
  };
}

const probe = (r: ProbeResult, peer: PeerVerdict | null = null): MonitorInput => ({ kind: 'probe', result: r, region: REGION, peer });
const heartbeat = (signal: 'ping' | 'fail' | 'missed'): MonitorInput => ({
  kind: 'heartbeat', signal, region: REGION,
  error: signal === 'missed' ? missedPingError(5 * MIN) : signal === 'fail' ? 'backup failed' : null,
});

const INPUTS: Record<string, MonitorInput> = {
  ok: probe(result()),
  slow: probe(result({ responseTime: 5000 })),
  fail: probe(result({ ok: false })),
  ping: heartbeat('ping'),
  hbfail: heartbeat('fail'),
  missed: heartbeat('missed'),
};

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

function policyOf(overrides: Partial<MonitorPolicy>): MonitorPolicy {
  return { ...DEFAULT_POLICY, ...overrides };
}

/** Feeds inputs one minute apart; frozen state proves the machine never mutates its input. */
function run(policy: MonitorPolicy, inputs: MonitorInput[], start: MonitorState = initialState(), from = T0) {
  let state = start;
  const steps: Transition[] = [];
  inputs.forEach((input, i) => {
    const t = transition(deepFreeze(state), deepFreeze(policy), deepFreeze(input), from + i * MIN);
    steps.push(t);
    state = t.state;
  });
  return { state, steps };
}

/** `status/failures [events] [recheck]`, one string per step. */
function summary(steps: Transition[]): string[] {
  return steps.map((t) => [
    `${t.state.status}/${t.state.consecutiveFailures}`,
    ...t.events.map((e) => e.type),
    ...(t.recheck === 'immediate' ? ['recheck'] : []),
  ].join(' '));
}

describe('transitions (table)', () => {
  const table: { name: string; policy?: Partial<MonitorPolicy>; inputs: string; expect: string[] }[] = [
    {
      name: 'threshold 1: first failure is down, first success is up',
      policy: { downConfirmationAttempts: 1 },
      inputs: 'ok fail fail ok ok',
      expect: ['up/0', 'down/1 website_down', 'down/2', 'up/0 website_up', 'up/0'],
    },
    {
      name: 'threshold 2 (default)',
      inputs: 'ok fail fail fail ok',
      expect: ['up/0', 'up/1 website_error recheck', 'down/2 website_down', 'down/3', 'up/0 website_up'],
    },
    {
      name: 'threshold 3: website_error once per cycle, recheck on every failure below it',
      policy: { downConfirmationAttempts: 3 },
      inputs: 'ok fail fail fail fail ok',
      expect: ['up/0', 'up/1 website_error recheck', 'up/2 recheck', 'down/3 website_down', 'down/4', 'up/0 website_up'],
    },
    {
      name: 'flapping below the threshold: a success re-arms website_error',
      policy: { downConfirmationAttempts: 3 },
      inputs: 'ok fail ok fail fail ok fail',
      expect: ['up/0', 'up/1 website_error recheck', 'up/0', 'up/1 website_error recheck', 'up/2 recheck', 'up/0', 'up/1 website_error recheck'],
    },
    {
      name: 'flapping across down: each transition alerts once',
      inputs: 'ok fail fail ok fail fail ok',
      expect: ['up/0', 'up/1 website_error recheck', 'down/2 website_down', 'up/0 website_up', 'up/1 website_error recheck', 'down/2 website_down', 'up/0 website_up'],
    },
    {
      name: 'pending probe check: failures below threshold are silent, reaching it is website_down',
      inputs: 'fail fail ok',
      expect: ['pending/1 recheck', 'down/2 website_down', 'up/0 website_up'],
    },
    {
      name: 'pending probe check, threshold 1',
      policy: { downConfirmationAttempts: 1 },
      inputs: 'fail',
      expect: ['down/1 website_down'],
    },
    {
      name: 'pending to up is not an alert',
      inputs: 'fail ok',
      expect: ['pending/1 recheck', 'up/0'],
    },
    {
      name: 'immediate recheck disabled',
      policy: { downConfirmationAttempts: 3, immediateRecheckEnabled: false },
      inputs: 'ok fail fail fail',
      expect: ['up/0', 'up/1 website_error', 'up/2', 'down/3 website_down'],
    },
    {
      name: 'heartbeat never pinged never alerts',
      inputs: 'missed missed missed',
      expect: ['pending/0', 'pending/0', 'pending/0'],
    },
    {
      name: 'heartbeat: one missed deadline is down, the next ping is up, no recheck',
      policy: { downConfirmationAttempts: 3 },
      inputs: 'missed ping missed missed ping ping',
      expect: ['pending/0', 'up/0', 'down/1 website_down', 'down/2', 'up/0 website_up', 'up/0'],
    },
    {
      name: 'heartbeat: an explicit fail ping counts even while pending',
      inputs: 'hbfail ping hbfail',
      expect: ['down/1 website_down', 'up/0 website_up', 'down/1 website_down'],
    },
  ];

  for (const row of table) {
    test(row.name, () => {
      const { steps } = run(policyOf(row.policy ?? {}), row.inputs.split(' ').map((k) => INPUTS[k]!));
      assert.deepEqual(summary(steps), row.expect);
    });
  }

  test('threshold 99 is honoured; out-of-range thresholds are clamped', () => {
    const fails = Array.from({ length: 99 }, () => INPUTS.fail!);
    const { steps } = run(policyOf({ downConfirmationAttempts: 99 }), [INPUTS.ok!, ...fails]);
    assert.equal(steps[98]!.state.status, 'up');
    assert.deepEqual(steps[99]!.events.map((e) => e.type), ['website_down']);
    assert.equal(steps.filter((s) => s.events.some((e) => e.type === 'website_error')).length, 1);
    assert.deepEqual(summary(run(policyOf({ downConfirmationAttempts: 0 }), [INPUTS.fail!]).steps), ['down/1 website_down']);
    assert.equal(run(policyOf({ downConfirmationAttempts: 500 }), fails.slice(1)).state.status, 'pending');
    assert.equal(run(policyOf({ downConfirmationAttempts: 500 }), fails).state.status, 'down');
  });
});

describe('state fields and event payloads', () => {
  test('events carry what a delivery needs', () => {
    const failing = probe(result({ ok: false, statusCode: 500, responseTime: 80, error: 'HTTP 500' }));
    const { steps } = run(DEFAULT_POLICY, [INPUTS.ok!, failing, failing, INPUTS.ok!]);
    assert.deepEqual(steps[1]!.events[0], {
      type: 'website_error', at: T0 + MIN, previousStatus: 'up', status: 'up', error: 'HTTP 500',
      statusCode: 500, responseTime: 80, ssl: null, since: T0,
      regions: { primary: REGION, peer: null, regionsTotal: 1, regionsDown: 1, confirmedDown: false },
    });
    const down = steps[2]!.events[0]!;
    assert.deepEqual([down.type, down.at, down.previousStatus, down.status, down.error], ['website_down', T0 + 2 * MIN, 'up', 'down', 'HTTP 500']);
    const up = steps[3]!.events[0]!;
    assert.deepEqual([up.type, up.previousStatus, up.status, up.error, up.statusCode, up.responseTime], ['website_up', 'down', 'up', null, 200, 120]);
    const missed = run(DEFAULT_POLICY, [INPUTS.ping!, INPUTS.missed!]).steps[1]!.events[0]!;
    assert.equal(missed.error, 'No ping within 5 min');
  });

  test('lastError is set only while down and lastStatusChange only on transitions', () => {
    const second = probe(result({ ok: false, error: 'timeout' }));
    const { steps } = run(DEFAULT_POLICY, [INPUTS.ok!, INPUTS.fail!, INPUTS.fail!, second, INPUTS.ok!, INPUTS.ok!]);
    assert.deepEqual(steps.map((s) => s.state.lastError), [null, null, 'HTTP 503', 'timeout', null, null]);
    assert.deepEqual(steps.map((s) => s.state.lastStatusChange), [T0, T0, T0 + 2 * MIN, T0 + 2 * MIN, T0 + 4 * MIN, T0 + 4 * MIN]);
    assert.equal(initialState().lastStatusChange, null);
  });

  test('a result that changes nothing returns the state object itself; one that changes anything, a new one', () => {
    const up = run(DEFAULT_POLICY, [INPUTS.ok!]).state;
    const again = transition(up, DEFAULT_POLICY, INPUTS.ok!, T0 + MIN);
    assert.equal(again.state, up);
    assert.deepEqual(again.events, []);
    const slow = transition(up, policyOf({ responseTimeLimit: 1000 }), INPUTS.slow!, T0 + MIN);
    assert.notEqual(slow.state, up);
    assert.equal(slow.state.degraded, true);
    assert.equal(up.degraded, false);
    const failed = transition(up, DEFAULT_POLICY, INPUTS.fail!, T0 + MIN);
    assert.notEqual(failed.state, up);
    assert.deepEqual([failed.state.consecutiveFailures, up.consecutiveFailures], [1, 0]);
    const down = run(DEFAULT_POLICY, [INPUTS.fail!, INPUTS.fail!, INPUTS.fail!]).state;
    const otherError = transition(down, DEFAULT_POLICY, probe(result({ ok: false, error: 'timeout' })), T0 + 5 * MIN);
    assert.notEqual(otherError.state, down);
    assert.equal(otherError.state.lastError, 'timeout');
  });

  test('same input, same output (no hidden clock or randomness)', () => {
    const state = run(DEFAULT_POLICY, [INPUTS.ok!]).state;
    const a = transition(state, DEFAULT_POLICY, INPUTS.fail!, T0 + MIN);
    const b = transition(state, DEFAULT_POLICY, INPUTS.fail!, T0 + MIN);
    assert.deepEqual(a, b);
  });
});

describe('maintenance', () => {
  test('freezes the state and emits nothing, whatever arrives', () => {
    const up = run(DEFAULT_POLICY, [INPUTS.ok!]).state;
    const maintenance = policyOf({ maintenance: true });
    const expiring = probe(result({ ok: false, ssl: cert('aa', T0 + 3 * DAY) }));
    for (const start of [up, initialState(), run(DEFAULT_POLICY, [INPUTS.fail!, INPUTS.fail!]).state]) {
      const { steps } = run(maintenance, [INPUTS.fail!, INPUTS.fail!, INPUTS.fail!, expiring, INPUTS.ok!, INPUTS.missed!, INPUTS.hbfail!], start);
      for (const step of steps) {
        assert.equal(step.state, start);
        assert.deepEqual(step.events, []);
        assert.equal(step.recheck, 'none');
      }
    }
  });

  test('after maintenance a target still failing is confirmed afresh and alerted', () => {
    const up = run(DEFAULT_POLICY, [INPUTS.ok!]).state;
    const during = run(policyOf({ maintenance: true }), [INPUTS.fail!, INPUTS.fail!], up).state;
    const { steps } = run(DEFAULT_POLICY, [INPUTS.fail!, INPUTS.fail!], during);
    assert.deepEqual(summary(steps), ['up/1 website_error recheck', 'down/2 website_down']);
  });
});

describe('degraded and the status endpoint mapping', () => {
  test('slow results and started failures are degraded; the rest map per decisions §4', () => {
    const policy = policyOf({ responseTimeLimit: 1000, downConfirmationAttempts: 3 });
    const { steps } = run(policy, [INPUTS.ok!, INPUTS.slow!, INPUTS.ok!, INPUTS.fail!, INPUTS.fail!, INPUTS.fail!, INPUTS.slow!]);
    assert.deepEqual(steps.map((s) => statusEndpointStatus(s.state, false)), [
      'online', 'degraded', 'online', 'degraded', 'degraded', 'offline', 'degraded',
    ]);
    assert.equal(statusEndpointStatus(initialState(), false), 'unknown');
    assert.equal(statusEndpointStatus(steps[0]!.state, true), 'unknown');
    assert.equal(statusEndpointStatus(steps[5]!.state, true), 'unknown');
  });

  test('without a responseTimeLimit nothing is slow', () => {
    const { state } = run(DEFAULT_POLICY, [INPUTS.slow!]);
    assert.equal(statusEndpointStatus(state, false), 'online');
  });

  test('a pending check with failures stays unknown', () => {
    const { state } = run(policyOf({ downConfirmationAttempts: 3 }), [INPUTS.fail!]);
    assert.equal(statusEndpointStatus(state, false), 'unknown');
  });
});

function cert(fingerprint: string, validTo: number, valid = true, error: string | null = null): SslInfo {
  return {
    valid, error, issuer: 'CN=Test CA', subject: 'CN=example.com',
    validFrom: new Date(validTo - 90 * DAY).toISOString(), validTo: new Date(validTo).toISOString(),
    serialNumber: '01', fingerprint,
  };
}

describe('ssl', () => {
  const withCert = (ssl: SslInfo, ok = true): MonitorInput => probe(result({ ok, ssl }));
  const sslEvents = (steps: Transition[]): string[][] =>
    steps.map((s) => s.events.filter((e) => e.type.startsWith('ssl_')).map((e) => e.type));

  test('a certificate close to expiry warns once, however many probes see it', () => {
    const near = withCert(cert('aa', T0 + 10 * DAY));
    const { steps } = run(DEFAULT_POLICY, [near, near, near, near]);
    assert.deepEqual(sslEvents(steps), [['ssl_warning'], [], [], []]);
    const warning = steps[0]!.events[0]!;
    assert.equal(warning.error, `Certificate expires in 10 days (${new Date(T0 + 10 * DAY).toISOString()})`);
    assert.equal(warning.ssl?.fingerprint, 'aa');
  });

  test('a certificate far from expiry is quiet', () => {
    const { steps } = run(DEFAULT_POLICY, [withCert(cert('aa', T0 + 60 * DAY))]);
    assert.deepEqual(sslEvents(steps), [[]]);
  });

  test('the same certificate warns, then errors once when it expires', () => {
    const aa = cert('aa', T0 + 15 * DAY + 30 * MIN);
    const day = (n: number) => T0 + n * DAY;
    let state = initialState();
    const seen: string[][] = [];
    for (const n of [0, 1, 2, 10, 15, 16, 17, 30]) {
      const t = transition(state, DEFAULT_POLICY, withCert(aa, n < 16), day(n));
      seen.push(t.events.filter((e) => e.type.startsWith('ssl_')).map((e) => e.type));
      state = t.state;
    }
    assert.deepEqual(seen, [[], [], ['ssl_warning'], [], [], ['ssl_error'], [], []]);
  });

  test('an invalid certificate errors once per fingerprint, and a renewal re-arms', () => {
    const bad = withCert(cert('aa', T0 + 200 * DAY, false, 'self-signed certificate'));
    const renewedBad = withCert(cert('bb', T0 + 200 * DAY, false, 'self-signed certificate'));
    const renewedNear = withCert(cert('cc', T0 + 5 * DAY));
    const { steps } = run(DEFAULT_POLICY, [bad, bad, renewedBad, renewedBad, renewedNear, renewedNear, bad]);
    assert.deepEqual(sslEvents(steps), [['ssl_error'], [], ['ssl_error'], [], ['ssl_warning'], [], ['ssl_error']]);
    assert.equal(steps[0]!.events[0]!.error, 'self-signed certificate');
  });

  test('a renewed certificate that is again near expiry warns again', () => {
    const { steps } = run(DEFAULT_POLICY, [
      withCert(cert('aa', T0 + 10 * DAY)), withCert(cert('bb', T0 + 90 * DAY)), withCert(cert('cc', T0 + 12 * DAY)),
    ]);
    assert.deepEqual(sslEvents(steps), [['ssl_warning'], [], ['ssl_warning']]);
  });

  test('status events come first; ssl alerts are not held back by a failure or by pending', () => {
    const expired = withCert(cert('aa', T0 - DAY, false, 'certificate has expired'), false);
    const { steps } = run(policyOf({ downConfirmationAttempts: 1 }), [expired, expired]);
    assert.deepEqual(steps.map((s) => s.events.map((e) => e.type)), [['website_down', 'ssl_error'], []]);
    assert.deepEqual([steps[0]!.events[1]!.previousStatus, steps[0]!.events[1]!.status], ['down', 'down']);
  });

  test('maintenance does not consume an ssl alert', () => {
    const near = withCert(cert('aa', T0 + 10 * DAY));
    const during = run(policyOf({ maintenance: true }), [near]).state;
    const { steps } = run(DEFAULT_POLICY, [near], during);
    assert.deepEqual(sslEvents(steps), [['ssl_warning']]);
  });
});

describe('regions and the peer seam', () => {
  const peer = (ok: boolean): PeerVerdict => ({ region: 'vps-us-1', result: result({ ok }) });

  test('without a peer one region reports', () => {
    const { steps } = run(DEFAULT_POLICY, [INPUTS.ok!, INPUTS.fail!, INPUTS.fail!]);
    assert.deepEqual(steps.map((s) => s.state.regions), [
      { primary: REGION, peer: null, regionsTotal: 1, regionsDown: 0, confirmedDown: false },
      { primary: REGION, peer: null, regionsTotal: 1, regionsDown: 1, confirmedDown: false },
      { primary: REGION, peer: null, regionsTotal: 1, regionsDown: 1, confirmedDown: false },
    ]);
  });

  test('a peer that agrees confirms the down', () => {
    const failAgreed = probe(result({ ok: false }), peer(false));
    const { steps } = run(DEFAULT_POLICY, [INPUTS.ok!, failAgreed, failAgreed]);
    assert.deepEqual(summary(steps), ['up/0', 'up/1 website_error recheck', 'down/2 website_down']);
    assert.deepEqual(steps[1]!.state.regions, { primary: REGION, peer: 'vps-us-1', regionsTotal: 2, regionsDown: 2, confirmedDown: false });
    assert.deepEqual(steps[2]!.events[0]!.regions, { primary: REGION, peer: 'vps-us-1', regionsTotal: 2, regionsDown: 2, confirmedDown: true });
  });

  test('a peer that disagrees makes the failure neutral', () => {
    const failContradicted = probe(result({ ok: false }), peer(true));
    const { steps } = run(DEFAULT_POLICY, [INPUTS.ok!, failContradicted, failContradicted, INPUTS.fail!]);
    assert.deepEqual(summary(steps), ['up/0', 'up/0', 'up/0', 'up/1 website_error recheck']);
    assert.deepEqual(steps[1]!.state.regions, { primary: REGION, peer: 'vps-us-1', regionsTotal: 2, regionsDown: 1, confirmedDown: false });
  });

  test('results without a peer share one frozen regions object per region and outcome', () => {
    const { steps } = run(DEFAULT_POLICY, [INPUTS.ok!, INPUTS.fail!, INPUTS.fail!, INPUTS.ok!]);
    const [up, down, downAgain, upAgain] = steps.map((s) => s.state.regions);
    assert.equal(up, upAgain);
    assert.equal(down, downAgain);
    assert.notEqual(up, down);
    assert.ok(Object.isFrozen(up) && Object.isFrozen(down));
    const other = transition(initialState(), DEFAULT_POLICY, { ...INPUTS.ok!, region: 'vps-us-1' } as MonitorInput, T0).state.regions;
    assert.deepEqual(other, { primary: 'vps-us-1', peer: null, regionsTotal: 1, regionsDown: 0, confirmedDown: false });
    assert.notEqual(other, up);
  });

  test('NoPeer answers null', async () => {
    assert.equal(await new NoPeer().recheck({} as ProbeTask, REGION), null);
  });
});

test('missedPingError speaks in the interval\'s unit', () => {
  assert.equal(missedPingError(5 * MIN), 'No ping within 5 min');
  assert.equal(missedPingError(2 * 3_600_000), 'No ping within 2 h');
  assert.equal(missedPingError(90 * MIN), 'No ping within 90 min');
  assert.equal(missedPingError(30_000), 'No ping within 30 s');
  assert.equal(missedPingError(1500), 'No ping within 1500 ms');
});

test('a status event names its transition by when the state it leaves began: alike on every central, once per state', () => {
  const { steps } = run(policyOf({ downConfirmationAttempts: 1 }), [INPUTS.ok!, INPUTS.fail!, INPUTS.fail!, INPUTS.ok!, INPUTS.fail!]);
  const events = steps.flatMap((s) => s.events.map((e) => `${e.type} ${transitionKey(e)}`));
  // Pending -> up at T0 (no alert); down at T0+1min leaves the up state of T0; up at T0+3min leaves that down.
  assert.deepEqual(events, [`website_down website_down@${T0}`, `website_up website_up@${T0 + MIN}`, `website_down website_down@${T0 + 3 * MIN}`]);
  // A central that took the check over starts from the stored state and names the same transition.
  const stored: MonitorState = { ...steps[0]!.state };
  const elsewhere = transition(stored, policyOf({ downConfirmationAttempts: 1 }), INPUTS.fail!, T0 + MIN + 7);
  assert.equal(transitionKey(elsewhere.events[0]!), transitionKey(steps[1]!.events[0]!));
  assert.equal(transitionKey({ type: 'ssl_warning', since: T0 }), null, 'certificate and domain events name no transition');
  assert.equal(transitionKey({ type: 'website_down', since: null }), null, 'nor a check that never changed');
});
