import { html } from 'htm/preact';

/** 24 hourly response times as a small SVG line; gaps where an hour had no successful probe. */
export function Sparkline({ points, width = 96, height = 24 }) {
  const values = points.filter((v) => v !== null);
  if (values.length === 0) return html`<svg class="spark" width=${width} height=${height} aria-hidden="true"></svg>`;
  const max = Math.max(...values);
  const min = Math.min(...values);
  const span = max - min || 1;
  const step = width / (points.length - 1);
  let d = '';
  let pen = false;
  points.forEach((v, i) => {
    if (v === null) {
      pen = false;
      return;
    }
    const y = height - 2 - ((v - min) / span) * (height - 4);
    d += `${pen ? 'L' : 'M'}${(i * step).toFixed(1)},${y.toFixed(1)}`;
    pen = true;
  });
  // A lone hour has no line to draw: a dot marks it.
  const lone = points.map((v, i) => (v !== null && points[i - 1] == null && points[i + 1] == null ? i : -1)).filter((i) => i >= 0);
  return html`<svg class="spark" width=${width} height=${height} aria-hidden="true"><path d=${d} />${lone.map(
    (i) => html`<circle cx=${(i * step).toFixed(1)} cy=${(height - 2 - ((points[i] - min) / span) * (height - 4)).toFixed(1)} r="2" />`,
  )}</svg>`;
}
