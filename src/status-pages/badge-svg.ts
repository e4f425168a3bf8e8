import { escapeHtml as esc } from '../oauth/html.js';

/**
 * Badges in the shields.io look (flat, flat-square, for-the-badge) and the shields.io endpoint
 * JSON, so a README can embed either. Text is measured with Verdana 11 px advance widths, the
 * font shields.io lays its badges out for.
 */

export const BADGE_STYLES = ['flat', 'flat-square', 'for-the-badge'] as const;
export type BadgeStyle = (typeof BADGE_STYLES)[number];
export type BadgeColor = 'brightgreen' | 'green' | 'yellowgreen' | 'yellow' | 'orange' | 'red' | 'blue' | 'lightgrey';

export interface Badge {
  label: string;
  message: string;
  color: BadgeColor;
}

const HEX: Record<BadgeColor, string> = {
  brightgreen: '#4c1', green: '#97ca00', yellowgreen: '#a4a61d', yellow: '#dfb317',
  orange: '#fe7d37', red: '#e05d44', blue: '#007ec6', lightgrey: '#9f9f9f',
};

// Verdana 11 px advances; characters not listed count as the average of their class.
const NARROW: Record<string, number> = {
  ' ': 3.9, '.': 3.9, ',': 3.9, ':': 4.6, ';': 4.6, '!': 4.6, '|': 4.6, "'": 3, '(': 4.9, ')': 4.9,
  i: 3.1, l: 3.1, j: 3.4, f: 3.9, t: 4.3, r: 4.7, I: 4.6, J: 5.0, '-': 4.6, '%': 12.0,
  m: 10.7, w: 9.0, M: 9.9, W: 11.0, '@': 11.0,
};

export function textWidth(text: string): number {
  let width = 0;
  for (const ch of text) {
    width += NARROW[ch] ?? (ch >= '0' && ch <= '9' ? 7 : ch >= 'A' && ch <= 'Z' ? 7.6 : 6.9);
  }
  return width;
}

export function badgeJson(badge: Badge, style: BadgeStyle | undefined): Record<string, unknown> {
  return { schemaVersion: 1, label: badge.label, message: badge.message, color: badge.color, ...(style ? { style } : {}) };
}

export function badgeSvg(badge: Badge, style: BadgeStyle = 'flat'): string {
  const big = style === 'for-the-badge';
  const label = big ? badge.label.toUpperCase() : badge.label;
  const message = big ? badge.message.toUpperCase() : badge.message;
  // for-the-badge: 10 px bold-ish capitals with letter spacing, wider padding, 28 px tall.
  const measure = (t: string) => (big ? textWidth(t) * 1.05 + t.length * 1.25 : textWidth(t));
  const pad = big ? 12 : 6;
  const lw = label === '' ? 0 : Math.round(measure(label) + 2 * pad);
  const mw = Math.round(measure(message) + 2 * pad);
  const w = lw + mw;
  const h = big ? 28 : 20;
  const color = HEX[badge.color];
  const title = label === '' ? message : `${label}: ${message}`;
  const textY = big ? 18 : 14;
  const text = (t: string, x: number) =>
    `<text x="${x * 10}" y="${(textY + 1) * 10}" fill="#010101" fill-opacity=".3" transform="scale(.1)">${esc(t)}</text>` +
    `<text x="${x * 10}" y="${textY * 10}" transform="scale(.1)">${esc(t)}</text>`;
  const rounded = style === 'flat';
  const gradient = rounded
    ? '<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>'
    : '';
  const clip = rounded ? `<clipPath id="r"><rect width="${w}" height="${h}" rx="3" fill="#fff"/></clipPath>` : '';
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" role="img" aria-label="${esc(title)}"><title>${esc(title)}</title>` +
    `${gradient}${clip}<g${rounded ? ' clip-path="url(#r)"' : ''}>` +
    (lw ? `<rect width="${lw}" height="${h}" fill="#555"/>` : '') +
    `<rect x="${lw}" width="${mw}" height="${h}" fill="${color}"/>${rounded ? `<rect width="${w}" height="${h}" fill="url(#s)"/>` : ''}</g>` +
    `<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" text-rendering="geometricPrecision" font-size="${big ? 100 : 110}"${big ? ' font-weight="bold" letter-spacing="12.5"' : ''}>` +
    (lw ? text(label, lw / 2) : '') +
    text(message, lw + mw / 2) +
    '</g></svg>';
}

export function uptimeColor(percent: number): BadgeColor {
  if (percent >= 99.9) return 'brightgreen';
  if (percent >= 99) return 'green';
  if (percent >= 97) return 'yellowgreen';
  if (percent >= 95) return 'yellow';
  if (percent >= 90) return 'orange';
  return 'red';
}

export function responseTimeColor(ms: number): BadgeColor {
  if (ms < 200) return 'brightgreen';
  if (ms < 500) return 'green';
  if (ms < 1000) return 'yellow';
  if (ms < 2000) return 'orange';
  return 'red';
}
