import { html } from 'htm/preact';

/** The lone-hour dot's radius; the line is drawn that far inside the box, so the dot stays in it. */
const DOT = 2;

/** 24 hourly response times as a small SVG line; gaps where an hour had no successful probe. */
export function Sparkline({ points, width = 96, height = 24 }) {
  const values = points.filter((v) => v !== null);
  if (values.length === 0) return html`<svg class="spark" width=${width} height=${height} aria-hidden="true"></svg>`;
  const max = Math.max(...values);
  const min = Math.min(...values);
  const span = max - min || 1;
  const step = points.length > 1 ? (width - 2 * DOT) / (points.length - 1) : 0;
  const x = (i) => (DOT + i * step).toFixed(1);
  const y = (v) => (height - DOT - ((v - min) / span) * (height - 2 * DOT)).toFixed(1);
  let d = '';
  let pen = false;
  points.forEach((v, i) => {
    if (v === null) {
      pen = false;
      return;
    }
    d += `${pen ? 'L' : 'M'}${x(i)},${y(v)}`;
    pen = true;
  });
  // A lone hour has no line to draw: a dot marks it.
  const lone = points.map((v, i) => (v !== null && points[i - 1] == null && points[i + 1] == null ? i : -1)).filter((i) => i >= 0);
  return html`<svg class="spark" width=${width} height=${height} aria-hidden="true"><path d=${d} />${lone.map(
    (i) => html`<circle cx=${x(i)} cy=${y(points[i])} r=${DOT} />`,
  )}</svg>`;
}
