import type { AlertContent } from '../alert-content.js';
import { cut } from './html.js';
import { alertMessage, type Severity } from './message.js';

/** Discord webhooks: one embed, coloured by severity; mentions are never parsed. */

const COLOR: Record<Severity, number> = { critical: 0xe5484d, warning: 0xf5a524, ok: 0x30a46c };
const SHORT_FACT = 40;

export function discordMessage(c: AlertContent) {
  const m = alertMessage(c);
  const link = !c.test && /^https?:\/\//.test(c.check.url) ? { url: c.check.url } : {};
  return {
    username: 'Vigil',
    allowed_mentions: { parse: [] as string[] },
    embeds: [
      {
        title: cut(m.title, 256),
        description: cut(m.summary, 4096),
        color: COLOR[m.severity],
        ...link,
        fields: m.facts.slice(0, 25).map(([name, value]) => ({ name: cut(name, 256), value: cut(value, 1024), inline: value.length <= SHORT_FACT })),
        timestamp: new Date(c.at).toISOString(),
        footer: { text: 'Vigil' },
      },
    ],
  };
}
