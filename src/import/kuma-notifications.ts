import type { WebhookType } from '../store/alert-store.js';
import type { KumaNotification } from '../store/kuma-source.js';

/** A Kuma notification as a Vigil alert target, with what did not carry over. */
export type NotificationMapping =
  | { kind: 'webhook'; url: string; webhookType: WebhookType; notes: string[] }
  | { kind: 'email'; recipients: string[]; notes: string[] }
  | { kind: 'skipped'; reason: string };

const s = (v: unknown): string => (typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : '');
const trimSlash = (u: string) => u.replace(/\/+$/, '');

/** Kuma notification form fields that only change the message's look: named in the report. */
const COSMETIC = new Map<string, string[]>([
  ['slack', ['slackchannel', 'slackusername', 'slackiconemo']],
  ['discord', ['discordUsername', 'discordPrefixMessage']],
  ['mattermost', ['mattermostusername', 'mattermostchannel', 'mattermosticonemo']],
  ['pushover', ['pushoverdevice', 'pushoversounds', 'pushoverpriority', 'pushovertitle', 'pushoverttl']],
  ['gotify', ['gotifyPriority']],
  ['PagerDuty', ['pagerdutyPriority']],
  ['telegram', ['telegramSendSilently', 'telegramProtectContent']],
]);

function webhook(url: string, webhookType: WebhookType, n: KumaNotification, extra: string[] = []): NotificationMapping {
  const type = s(n.config.type);
  const notes = [...extra];
  const cosmetic = (COSMETIC.get(type) ?? []).filter((f) => Object.hasOwn(n.config, f) && n.config[f] !== undefined && n.config[f] !== '' && n.config[f] !== false);
  if (cosmetic.length > 0) notes.push(`${cosmetic.join(', ')}: Vigil formats ${webhookType} messages itself`);
  return url ? { kind: 'webhook', url, webhookType, notes } : { kind: 'skipped', reason: `${type} without a URL or token` };
}

/** Addresses from Kuma's comma-separated To, CC and BCC fields. */
export function recipientsOf(config: Record<string, unknown>): string[] {
  const all = ['smtpTo', 'smtpCC', 'smtpBCC'].flatMap((f) => s(config[f]).split(/[,;]/)).map((a) => a.trim()).filter(Boolean);
  return [...new Set(all)];
}

/** Maps one Kuma notification to a Vigil webhook of the matching type, the email recipients, or a reason. */
export function mapNotification(n: KumaNotification): NotificationMapping {
  const c = n.config;
  const type = s(c.type);
  switch (type) {
    case 'webhook': {
      const notes: string[] = [];
      if (s(c.webhookContentType) && s(c.webhookContentType) !== 'json') notes.push(`content type ${s(c.webhookContentType)}: Vigil posts its JSON body`);
      if (s(c.webhookAdditionalHeaders)) notes.push('additional headers: not carried over (sign deliveries with a webhook secret instead)');
      if (s(c.webhookCustomBody)) notes.push('custom body template: Vigil posts its JSON body');
      if (s(c.httpMethod) && s(c.httpMethod).toLowerCase() !== 'post') notes.push(`method ${s(c.httpMethod)}: Vigil posts`);
      return webhook(s(c.webhookURL), 'generic', n, notes);
    }
    case 'slack':
      return webhook(s(c.slackwebhookURL), 'slack', n);
    case 'discord':
      return webhook(s(c.discordWebhookUrl), 'discord', n);
    case 'teams':
      return webhook(s(c.webhookUrl), 'teams', n);
    case 'mattermost':
      return webhook(s(c.mattermostWebhookUrl), 'mattermost', n);
    case 'rocket.chat':
      return webhook(s(c.rocketwebhookURL), 'rocketchat', n);
    case 'GoogleChat':
      return webhook(s(c.googleChatWebhookURL), 'googlechat', n);
    case 'telegram': {
      if (!s(c.telegramBotToken) || !s(c.telegramChatID)) return { kind: 'skipped', reason: 'telegram without bot token or chat id' };
      const server = trimSlash(s(c.telegramServerUrl) || 'https://api.telegram.org');
      const url = new URL(`${server}/bot${s(c.telegramBotToken)}/sendMessage`);
      url.searchParams.set('chat_id', s(c.telegramChatID));
      if (s(c.telegramMessageThreadID)) url.searchParams.set('message_thread_id', s(c.telegramMessageThreadID));
      return webhook(url.href, 'telegram', n);
    }
    case 'ntfy': {
      if (!s(c.ntfytopic)) return { kind: 'skipped', reason: 'ntfy without a topic' };
      const url = new URL(`${trimSlash(s(c.ntfyserverurl) || 'https://ntfy.sh')}/${encodeURIComponent(s(c.ntfytopic))}`);
      const notes: string[] = [];
      if (s(c.ntfyAuthenticationMethod) === 'accessToken' && s(c.ntfyaccesstoken)) url.searchParams.set('token', s(c.ntfyaccesstoken));
      else if (s(c.ntfyusername)) notes.push('ntfy user name and password: Vigil uses an access token (?token=); add one');
      if (s(c.ntfyPriority)) url.searchParams.set('priority', s(c.ntfyPriority));
      if (s(c.ntfyIcon)) notes.push('icon: not carried over');
      return webhook(url.href, 'ntfy', n, notes);
    }
    case 'gotify':
      if (!s(c.gotifyserverurl) || !s(c.gotifyapplicationToken)) return { kind: 'skipped', reason: 'gotify without server or token' };
      return webhook(`${trimSlash(s(c.gotifyserverurl))}/message?token=${encodeURIComponent(s(c.gotifyapplicationToken))}`, 'gotify', n);
    case 'pushover': {
      const url = new URL('https://api.pushover.net/1/messages.json');
      url.searchParams.set('token', s(c.pushoverapptoken));
      url.searchParams.set('user', s(c.pushoveruserkey));
      return s(c.pushoverapptoken) && s(c.pushoveruserkey) ? webhook(url.href, 'pushover', n) : { kind: 'skipped', reason: 'pushover without app token or user key' };
    }
    case 'PagerDuty': {
      if (!s(c.pagerdutyIntegrationKey)) return { kind: 'skipped', reason: 'PagerDuty without an integration key' };
      const url = new URL(s(c.pagerdutyIntegrationUrl) || 'https://events.pagerduty.com/v2/enqueue');
      url.searchParams.set('routing_key', s(c.pagerdutyIntegrationKey));
      const notes = s(c.pagerdutyAutoResolve) && s(c.pagerdutyAutoResolve) !== 'resolve' ? [`auto resolve "${s(c.pagerdutyAutoResolve)}": Vigil resolves on recovery`] : [];
      return webhook(url.href, 'pagerduty', n, notes);
    }
    case 'Opsgenie': {
      if (!s(c.opsgenieApiKey)) return { kind: 'skipped', reason: 'Opsgenie without an API key' };
      const host = s(c.opsgenieRegion) === 'eu' ? 'api.eu.opsgenie.com' : 'api.opsgenie.com';
      return webhook(`https://${host}/v2/alerts?apiKey=${encodeURIComponent(s(c.opsgenieApiKey))}`, 'opsgenie', n);
    }
    case 'matrix': {
      if (!s(c.homeserverUrl) || !s(c.internalRoomId) || !s(c.accessToken)) return { kind: 'skipped', reason: 'matrix without homeserver, room or access token' };
      const url = `${trimSlash(s(c.homeserverUrl))}/_matrix/client/v3/rooms/${s(c.internalRoomId)}/send/m.room.message?access_token=${encodeURIComponent(s(c.accessToken))}`;
      return webhook(url, 'matrix', n);
    }
    case 'smtp': {
      const recipients = recipientsOf(c);
      if (recipients.length === 0) return { kind: 'skipped', reason: 'SMTP notification without recipients' };
      const notes = [`SMTP server ${s(c.smtpHost) || '(none)'}:${s(c.smtpPort) || '?'} and sender: the operator sets Vigil's own SMTP server in its config (smtp.*)`];
      if (s(c.customSubject) || s(c.customBody)) notes.push('custom subject/body: Vigil writes its own email');
      if (s(c.smtpCC) || s(c.smtpBCC)) notes.push('CC and BCC addresses became plain recipients');
      return { kind: 'email', recipients, notes };
    }
    default:
      return { kind: 'skipped', reason: `notification type ${type || '(none)'}: Vigil has no such channel` };
  }
}
