import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_SETTINGS } from '../../src/core/check-settings.js';
import type { Check } from '../../src/domain/records.js';
import type { Store } from '../../src/store/store.js';
import type { ObservationWrite, WriteRecord } from '../../src/store/writes.js';
import type { StoreFactory } from './store-contract.js';

/**
 * The write steps both stores apply from one description (src/store/write-steps.ts), through
 * Store.applyWrites: the rare parts of an observation, the ones that read before they write,
 * mixed in one batch with the common ones (which PostgreSQL gathers into one statement).
 */
const T = Date.UTC(2026, 6, 1, 9);
let n = 0;
const id = (prefix: string) => `${prefix}_w${(++n).toString(36).padStart(7, '0')}`;
const none = () => assert.fail('no record should fail');

async function seededChecks(store: Store, count: number): Promise<Check[]> {
  const accountId = id('acc');
  await store.accounts.insert({ id: accountId, email: `${id('user')}@example.com`, tier: 'pro', maxChecksOverride: null, claimed: true, createdAt: T });
  const checks: Check[] = [];
  for (let i = 0; i < count; i++) {
    const url = `https://${id('site')}.example.com/`;
    const draft: Omit<Check, 'seq'> = {
      ...DEFAULT_SETTINGS, name: url, url, type: 'website',
      id: id('chk'), accountId, disabled: false, disabledReason: null, maintenance: false, maintenanceUntil: null, windowMaintenance: false, heartbeatToken: null,
      status: 'pending', consecutiveFailures: 0, degraded: false, lastChecked: null, lastResponseTime: null, lastStatusCode: null,
      lastError: null, lastStatusChange: null, probesTotal: 0, probesUp: 0, ssl: null, domain: null, regions: null,
      errorAlerted: false, sslAlerts: null, createdAt: T, updatedAt: T,
    };
    checks.push({ ...draft, seq: await store.checks.insert(draft, url, null) });
  }
  return checks;
}

/** An observation of nothing but its check: each test sets the parts it writes. */
function observation(c: Check, at: number, parts: Partial<ObservationWrite>): WriteRecord {
  return {
    kind: 'observation', checkId: c.id, checkSeq: c.seq, at, result: null, event: null, sample: null, sampleAt: at,
    runtime: null, statusChange: null, verifyStatus: null, endMaintenance: null, domain: null, domainMemory: null, ...parts,
  };
}

function probe(c: Check, at: number, region = 'local') {
  return { checkSeq: c.seq, at, kind: 'probe' as const, status: 'up' as const, statusCode: 200, responseTime: 80, timing: null, error: null, region, snippet: null, meta: null };
}

export function writeStepsContract(factory: StoreFactory): void {
  const withStore = (name: string, body: (store: Store) => Promise<void>) =>
    test(name, async () => {
      const store = await factory.open({});
      try {
        await body(store);
      } finally {
        await factory.close(store);
      }
    });

  describe(`the write steps: ${factory.name}`, () => {
    withStore('a maintenance window that ran out ends at its until with a maintenance_end event; one changed since is left alone', async (store) => {
      const [lapsed, moved, busy] = await seededChecks(store, 3);
      const until = T + 60_000;
      await store.checks.setMaintenance(lapsed!.id, true, until, T);
      await store.checks.setMaintenance(moved!.id, true, until + 1, T);
      await store.applyWrites([
        observation(busy!, T + 61_000, { result: probe(busy!, T + 61_000) }),
        observation(lapsed!, T + 61_000, { endMaintenance: until }),
        observation(moved!, T + 61_000, { endMaintenance: until }),
      ], none);

      const ended = (await store.checks.byId(lapsed!.id))!;
      assert.equal(ended.maintenance, false);
      assert.equal(ended.maintenanceUntil, null);
      const events = (await store.history.forCheck(lapsed!.seq, 10)).map((h) => [h.kind, h.status, h.at, h.meta]);
      assert.deepEqual(events, [['event', 'maintenance_end', until, { event: 'maintenance_off', until: new Date(until).toISOString() }]]);

      const kept = (await store.checks.byId(moved!.id))!;
      assert.equal(kept.maintenance, true, 'a window whose until changed since is not ended');
      assert.equal(kept.maintenanceUntil, until + 1);
      assert.deepEqual(await store.history.forCheck(moved!.seq, 10), []);
      assert.equal((await store.history.forCheck(busy!.seq, 10)).length, 1, 'the rest of the batch is written beside them');
    });

    withStore('a status to verify is appended only where the log does not already end with it; status changes keep record order', async (store) => {
      const [same, other, changing] = await seededChecks(store, 3);
      await store.stateChanges.append(same!.seq, T, 'up');
      await store.stateChanges.append(other!.seq, T, 'down');
      await store.applyWrites([
        observation(changing!, T + 10, { statusChange: 'down' }),
        observation(same!, T + 10, { verifyStatus: 'up' }),
        observation(other!, T + 10, { verifyStatus: 'up' }),
        observation(changing!, T + 20, { statusChange: 'up' }),
      ], none);
      assert.deepEqual(await store.stateChanges.between(same!.seq, T, T + 30), [{ at: T, status: 'up' }]);
      assert.deepEqual(await store.stateChanges.between(other!.seq, T, T + 30), [{ at: T, status: 'down' }, { at: T + 10, status: 'up' }]);
      assert.deepEqual(await store.stateChanges.between(changing!.seq, T, T + 30), [{ at: T + 10, status: 'down' }, { at: T + 20, status: 'up' }]);
    });

    withStore('a peer region\'s result, a domain lookup and its memory, and domain info set outside a lookup', async (store) => {
      const [looked, moved] = await seededChecks(store, 2);
      const domain = { name: 'example.com', registrar: 'Registrar', expiresAt: '2027-07-01T00:00:00.000Z', updatedAt: null };
      const memory = { checkId: looked!.id, expiresAt: Date.parse(domain.expiresAt), alerted: 'ok' as const, checkedAt: T + 5, lastError: null };
      await store.checks.saveDomain(moved!.id, domain);
      await store.applyWrites([
        observation(looked!, T + 5, { result: probe(looked!, T + 5), peerResult: probe(looked!, T + 5, 'peer'), domain, domainMemory: memory }),
        { kind: 'domain-info', checkId: moved!.id, domain: null },
      ], none);
      assert.deepEqual((await store.history.forCheck(looked!.seq, 10)).map((h) => h.region).sort(), ['local', 'peer']);
      assert.deepEqual((await store.checks.byId(looked!.id))!.domain, domain);
      assert.deepEqual(await store.alerts.domainWatch.get(looked!.id), memory);
      assert.equal((await store.checks.byId(moved!.id))!.domain, null, 'domain info cleared outside a lookup');
    });
  });
}
