import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { engineWorld } from '../helpers/engine-world.js';
import { rawRequest } from './util.js';

/**
 * Issue 23 item 3: `/metrics` counts every probe, shows the latest probe's response time, and
 * Vigil's own series pass `promtool check metrics` (Debian's `prometheus` package; `.ci/run`
 * installs it, and the promtool test is skipped only where it is missing).
 */
const PROMTOOL = ['/usr/bin/promtool', '/usr/local/bin/promtool'].find((p) => existsSync(p)) ?? null;

/** engine.test's world (a scripted dispatcher, the wheel turned by hand) and its scrape. */
async function world(t: TestContext) {
  const w = await engineWorld(t);
  return {
    ...w,
    /** The next probe, one interval on, answering `result`. */
    probe: async (result: { ok: boolean; responseTime: number | null }) => {
      w.dispatcher.answer = () => result;
      await w.next();
    },
    scrape: async () => {
      const reply = await rawRequest(w.srv, 'GET', '/metrics', { authorization: `Bearer ${w.srv.adminKey}` });
      assert.equal(reply.status, 200);
      return reply.text;
    },
  };
}

/** The value of the one series whose name and labels match `series` (a regex source), or undefined. */
function value(text: string, series: string): number | undefined {
  const m = new RegExp(`^${series} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
}

/** Every line of Vigil's own metric families (HELP, TYPE and samples), as promtool reads them. */
function vigilFamilies(text: string): string {
  const lines = text.split('\n').filter((l) => /^(# (HELP|TYPE) )?vigil_/.test(l));
  return `${lines.join('\n')}\n`;
}

function promtool(exposition: string): { status: number | null; output: string } {
  const run = spawnSync(PROMTOOL!, ['check', 'metrics'], { input: exposition, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}`.trim() };
}

describe('/metrics', () => {
  test('vigil_probes_total counts every probe, not only status changes; the response time is the latest probe’s', async (t) => {
    const w = await world(t);
    const count = async (result: 'up' | 'down') => value(await w.scrape(), `vigil_probes_total\\{check_id="${w.id}",[^}]*result="${result}"\\}`);
    const rt = async () => value(await w.scrape(), `vigil_check_response_time_seconds\\{check_id="${w.id}",[^}]*\\}`);

    await w.tick(); // the first probe: pending to up
    assert.equal(await count('up'), 1);
    assert.equal(await rt(), 0.042);
    // Three more successes change no status: the counter still moves with each, the gauge follows.
    for (const [i, ms] of [17, 250, 8].entries()) {
      await w.probe({ ok: true, responseTime: ms });
      assert.equal(await count('up'), 2 + i, `after probe ${2 + i}`);
      assert.equal(await rt(), ms / 1000, 'the latest probe’s response time, not the one at the last status change');
    }
    assert.equal((await w.srv.request('GET', `/v1/public/checks/${w.id}`)).body.data.status, 'up');
    // A failure (no response time) counts as down and leaves no response time to show.
    await w.probe({ ok: false, responseTime: null });
    assert.equal(await count('down'), 1);
    assert.equal(await count('up'), 4);
    assert.equal(await rt(), undefined);

    const text = await w.scrape();
    assert.match(text, /# TYPE vigil_probes_total counter/);
    assert.match(text, /# TYPE vigil_wheel_lag_seconds summary/);
    const dispatched = value(text, 'vigil_probes_dispatched_total')!;
    assert.ok(dispatched >= 5, `${dispatched} probes dispatched`);
    assert.equal(value(text, 'vigil_wheel_lag_seconds_count'), dispatched, 'one lag sample per probe sent');
    assert.ok(value(text, 'vigil_wheel_lag_seconds_sum')! >= 0);
    assert.ok(Number.isFinite(value(text, 'vigil_wheel_lag_seconds\\{quantile="0.99"\\}')));
  });

  test('every vigil_ sample is printed with the precision it has: no float noise, microseconds at most (issue 35)', async (t) => {
    const w = await world(t);
    await w.tick();
    // 11.69 / 1000 is 0.011689999999999999 in binary floating point.
    await w.probe({ ok: true, responseTime: 11.69 });
    await w.probe({ ok: true, responseTime: 16.31 });
    const text = await w.scrape();
    assert.equal(value(text, `vigil_check_response_time_seconds\\{check_id="${w.id}",[^}]*\\}`), 0.01631);
    assert.match(text, / 0\.01631$/m);
    const samples = text.split('\n').filter((l) => /^vigil_/.test(l));
    assert.ok(samples.some((l) => l.startsWith('vigil_wheel_lag_seconds{quantile=')), 'the wheel-lag quantiles are among them');
    for (const line of samples) {
      const printed = line.slice(line.lastIndexOf(' ') + 1);
      assert.match(printed, /^(-?\d+(\.\d{1,6})?|NaN|[+-]Inf)$/, line);
    }
  });

  test('a paused check has no probe counter (it restarts from zero when resumed, as Prometheus expects of a reset)', async (t) => {
    const w = await world(t);
    await w.tick();
    await w.probe({ ok: true, responseTime: 5 });
    const series = `vigil_probes_total\\{check_id="${w.id}",[^}]*result="up"\\}`;
    assert.equal(value(await w.scrape(), series), 2);
    const toggle = (disabled: boolean) => w.srv.request('POST', `/v1/public/checks/${w.id}/toggle`, { body: { disabled } });
    assert.equal((await toggle(true)).status, 200);
    assert.equal(value(await w.scrape(), series), undefined);
    assert.equal((await toggle(false)).status, 200);
    await w.tick();
    assert.equal(value(await w.scrape(), series), 1);
  });

  test('Vigil’s own series pass promtool check metrics', { skip: PROMTOOL ? false : 'promtool is not installed (Debian package prometheus)' }, async (t) => {
    // The check itself can fail: a gauge with a quantile label, what vigil_wheel_lag_seconds was.
    const bad = promtool('# HELP vigil_x lag\n# TYPE vigil_x gauge\nvigil_x{quantile="0.5"} 0\n');
    assert.notEqual(bad.status, 0);
    assert.match(bad.output, /quantile/);

    const w = await world(t);
    // Before any probe (empty summary, no per-check series yet) and after some.
    const empty = promtool(vigilFamilies(await w.scrape()));
    assert.deepEqual(empty, { status: 0, output: '' });
    await w.tick();
    await w.probe({ ok: false, responseTime: null });
    const text = await w.scrape();
    for (const family of ['vigil_check_up', 'vigil_probes_total', 'vigil_wheel_lag_seconds', 'vigil_writer_batch_size', 'vigil_check_uptime_ratio']) {
      assert.match(text, new RegExp(`^# TYPE ${family} `, 'm'), `${family} is exported`);
    }
    assert.deepEqual(promtool(vigilFamilies(text)), { status: 0, output: '' });
  });
});
