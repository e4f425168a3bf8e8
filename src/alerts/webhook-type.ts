import type { WebhookType } from '../store/alert-store.js';

/**
 * Type detection when `webhookType` is omitted (spec 4.9, decisions §8): Slack, Discord, Teams
 * and Pumble URLs are recognised; anything else is `generic`.
 */
export function detectWebhookType(url: URL): WebhookType {
  const host = url.hostname.toLowerCase();
  if (host === 'hooks.slack.com') return 'slack';
  const discordHost = ['discord.com', 'discordapp.com'].some((d) => host === d || host.endsWith(`.${d}`));
  if (discordHost && url.pathname.startsWith('/api/webhooks')) return 'discord';
  if (host.endsWith('.webhook.office.com')) return 'teams';
  if (host === 'api.pumble.com') return 'pumble';
  return 'generic';
}
