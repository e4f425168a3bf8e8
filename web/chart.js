import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from './api.js';

const RANGES = ['1h', '6h', '1d', '7d', '30d', '90d'];
const SERIES = [
  ['responseTime', 'Total', '--c-total'],
  ['dns', 'DNS', '--c-dns'],
  ['connect', 'Connect', '--c-connect'],
  ['tls', 'TLS', '--c-tls'],
  ['ttfb', 'TTFB', '--c-ttfb'],
];

const cssVar = (name) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();

/**
 * Response time with its phases over a range, from GET /checks/{id}/series (rollups). uPlot is
 * loaded on first use, so the list never waits for it.
 */
export function ResponseChart({ checkId, refreshKey }) {
  const [range, setRange] = useState('1d');
  const [error, setError] = useState(null);
  const [points, setPoints] = useState(null);
  const box = useRef(null);
  const plot = useRef(null);

  useEffect(() => {
    let cancelled = false;
    Promise.all([api('GET', `/checks/${checkId}/series?range=${range}`), import('uplot')])
      .then(([{ data }, { default: uPlot }]) => {
        if (cancelled || !box.current) return;
        const rows = [data.at.map((t) => t / 1000), ...SERIES.map(([key]) => data[key])];
        setPoints(data.responseTime.filter((v) => v !== null).length);
        plot.current?.destroy();
        const width = box.current.clientWidth || 600;
        plot.current = new uPlot(
          {
            width,
            height: 240,
            cursor: { drag: { x: false, y: false } },
            scales: { x: { time: true } },
            axes: [
              { stroke: cssVar('--muted'), grid: { stroke: cssVar('--line') } },
              { stroke: cssVar('--muted'), grid: { stroke: cssVar('--line') }, values: (_, ticks) => ticks.map((t) => `${t} ms`), size: 64 },
            ],
            series: [{}, ...SERIES.map(([, label, color], i) => ({ label, stroke: cssVar(color), width: i === 0 ? 2 : 1, spanGaps: false, value: (_, v) => (v === null ? '—' : `${v} ms`) }))],
          },
          rows,
          box.current,
        );
        setError(null);
      })
      .catch((err) => !cancelled && setError(err.message));
    return () => {
      cancelled = true;
    };
  }, [checkId, range, refreshKey]);
  useEffect(() => () => plot.current?.destroy(), []);

  return html`<section class="card">
    <header class="card-head">
      <h2>Response time</h2>
      <div class="seg" role="group" aria-label="Range">
        ${RANGES.map((r) => html`<button type="button" aria-pressed=${r === range} onClick=${() => setRange(r)}>${r}</button>`)}
      </div>
    </header>
    ${error ? html`<p class="error">${error}</p>` : ''}
    <div class="chart" ref=${box} data-points=${points ?? ''}></div>
    ${points === 0 ? html`<p class="muted">No successful probes in this range yet.</p>` : ''}
  </section>`;
}

/** 90 daily bars coloured by uptime, from the same series endpoint at day resolution. */
export function UptimeBars({ series }) {
  if (!series) return html`<div class="bars loading"></div>`;
  return html`<div class="bars" role="img" aria-label="Uptime per day, last 90 days">
    ${series.at.map((t, i) => {
      const u = series.uptime[i];
      const cls = u === null ? 'none' : u >= 99.9 ? 'good' : u >= 99 ? 'warn' : 'bad';
      return html`<span class=${`bar ${cls}`} title=${`${new Date(t).toLocaleDateString()}: ${u === null ? 'no data' : `${u}%`}`}></span>`;
    })}
  </div>`;
}
