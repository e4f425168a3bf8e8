import type { WebhookType } from '../store/alert-store.js';

/**
 * Type detection when `webhookType` is omitted (spec 4.9, decisions §8): Slack, Discord, Teams
 * and Pumble URLs are recognised; so are (issue 17) the hosted ntfy, Telegram and Google Chat,
 * and the self-hosted channels' own URL shapes: Matrix's client API path, Gotify's
 * `/message?token=`, Mattermost's `/hooks/<26-character key>`, Rocket.Chat's
 * `/hooks/<id>/<token>`. Anything else is `generic`.
 */
export function detectWebhookType(url: URL): WebhookType {
  const host = url.hostname.toLowerCase();
  const path = url.pathname;
  if (host === 'ntfy.sh') return 'ntfy';
  if (host === 'api.telegram.org') return 'telegram';
  if (host === 'chat.googleapis.com') return 'googlechat';
  if (/\/_matrix\/client\/[^/]+\/rooms\//.test(path)) return 'matrix';
  if (/\/message\/?$/.test(path) && url.searchParams.has('token')) return 'gotify';
  if (/\/hooks\/[a-z0-9]{26}\/?$/.test(path)) return 'mattermost';
  if (/\/hooks\/[A-Za-z0-9]{17}\/[A-Za-z0-9]{20,}\/?$/.test(path)) return 'rocketchat';
  if (host === 'hooks.slack.com') return 'slack';
  const discordHost = ['discord.com', 'discordapp.com'].some((d) => host === d || host.endsWith(`.${d}`));
  if (discordHost && url.pathname.startsWith('/api/webhooks')) return 'discord';
  if (host.endsWith('.webhook.office.com')) return 'teams';
  if (host === 'api.pumble.com') return 'pumble';
  return 'generic';
}
