// Every webhook channel the API knows (WEBHOOK_TYPES), with the fields a user knows it by; the
// webhook URL, which is where the API reads each channel's credentials, is built from them.

const urlField = (label, placeholder) => ({ name: 'url', label, placeholder });
const byUrl = (v) => v.url;

function withQuery(base, params) {
  const url = new URL(base);
  for (const [k, v] of Object.entries(params)) if (v) url.searchParams.set(k, v);
  return url.href;
}

/** A base URL typed by the user, with the path after it; a bad one is the field's error. */
function under(server, field, path) {
  let url;
  try {
    url = new URL(server);
  } catch {
    throw Object.assign(new Error('Enter a full URL, such as https://host.example.com'), { field });
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}${path}`;
}

export const CHANNELS = [
  { type: '', label: 'Detect from the URL', fields: [urlField('Webhook URL', 'https://hooks.example.com/…')], build: byUrl },
  { type: 'generic', label: 'Generic JSON (any URL)', fields: [urlField('URL', 'https://hooks.example.com/vigil')], build: byUrl },
  { type: 'slack', label: 'Slack', fields: [urlField('Incoming webhook URL', 'https://hooks.slack.com/services/T000/B000/XXXX')], build: byUrl },
  { type: 'discord', label: 'Discord', fields: [urlField('Webhook URL', 'https://discord.com/api/webhooks/123/abc')], build: byUrl },
  { type: 'teams', label: 'Microsoft Teams', fields: [urlField('Workflow webhook URL', 'https://acme.webhook.office.com/webhookb2/…')], build: byUrl },
  { type: 'pumble', label: 'Pumble', fields: [urlField('Incoming webhook URL', 'https://api.pumble.com/workspaces/…/incomingWebhooks/postMessage/…')], build: byUrl },
  { type: 'mattermost', label: 'Mattermost', fields: [urlField('Incoming webhook URL', 'https://mattermost.example.com/hooks/…')], build: byUrl },
  { type: 'rocketchat', label: 'Rocket.Chat', fields: [urlField('Incoming webhook URL', 'https://chat.example.com/hooks/<id>/<token>')], build: byUrl },
  { type: 'googlechat', label: 'Google Chat', fields: [urlField('Space webhook URL', 'https://chat.googleapis.com/v1/spaces/AAA/messages?key=…&token=…')], build: byUrl },
  {
    type: 'pagerduty', label: 'PagerDuty',
    fields: [{ name: 'routingKey', label: 'Integration key', hint: 'Events API v2 integration of a service' }],
    build: (v) => withQuery('https://events.pagerduty.com/v2/enqueue', { routing_key: v.routingKey }),
  },
  {
    type: 'opsgenie', label: 'Opsgenie',
    fields: [
      { name: 'apiKey', label: 'API key', hint: 'Of an API integration' },
      { name: 'region', label: 'Region', options: [['us', 'US'], ['eu', 'EU']] },
    ],
    build: (v) => withQuery(`https://api${v.region === 'eu' ? '.eu' : ''}.opsgenie.com/v2/alerts`, { apiKey: v.apiKey }),
  },
  {
    type: 'pushover', label: 'Pushover',
    fields: [
      { name: 'token', label: 'Application token' },
      { name: 'user', label: 'User or group key' },
      { name: 'device', label: 'Device', optional: true, hint: 'Optional: only this device' },
    ],
    build: (v) => withQuery('https://api.pushover.net/1/messages.json', { token: v.token, user: v.user, device: v.device }),
  },
  {
    type: 'ntfy', label: 'ntfy',
    fields: [
      { name: 'server', label: 'Server', placeholder: 'https://ntfy.sh', optional: true, hint: 'Empty: ntfy.sh' },
      { name: 'topic', label: 'Topic' },
      { name: 'token', label: 'Access token', optional: true, hint: 'Optional: for a protected topic (tk_…)' },
      { name: 'priority', label: 'Priority', optional: true, options: [['', 'By severity'], ['1', '1 (min)'], ['2', '2'], ['3', '3'], ['4', '4'], ['5', '5 (max)']] },
    ],
    build: (v) => withQuery(under(v.server || 'https://ntfy.sh', 'server', `/${encodeURIComponent(v.topic)}`), { token: v.token, priority: v.priority }),
  },
  {
    type: 'gotify', label: 'Gotify',
    fields: [
      { name: 'server', label: 'Server', placeholder: 'https://gotify.example.com' },
      { name: 'token', label: 'Application token' },
    ],
    build: (v) => withQuery(under(v.server, 'server', '/message'), { token: v.token }),
  },
  {
    type: 'telegram', label: 'Telegram',
    fields: [
      { name: 'botToken', label: 'Bot token', placeholder: '123456:ABC…', hint: 'From @BotFather' },
      { name: 'chatId', label: 'Chat id', placeholder: '-1001234567890' },
      { name: 'threadId', label: 'Topic id', optional: true, hint: 'Optional: a topic of a forum group' },
    ],
    build: (v) => {
      if (!/^\d+:[\w-]+$/.test(v.botToken)) throw Object.assign(new Error('A bot token looks like 123456:ABC-DEF…'), { field: 'botToken' });
      return withQuery(`https://api.telegram.org/bot${v.botToken}/sendMessage`, { chat_id: v.chatId, message_thread_id: v.threadId });
    },
  },
  {
    type: 'matrix', label: 'Matrix',
    fields: [
      { name: 'server', label: 'Homeserver', placeholder: 'https://matrix.example.org' },
      { name: 'room', label: 'Room id', placeholder: '!abc:example.org' },
      { name: 'token', label: 'Access token', hint: 'Of the account that posts' },
    ],
    build: (v) => withQuery(under(v.server, 'server', `/_matrix/client/v3/rooms/${encodeURIComponent(v.room)}/send/m.room.message`), { access_token: v.token }),
  },
];

export const channelOf = (type) => CHANNELS.find((c) => c.type === type) ?? CHANNELS[0];
export const channelLabel = (type) => channelOf(type).label;

/**
 * The webhook URL from a channel's field values; null when they are all empty (on edit: keep
 * the current URL). Throws an Error with `field` set for a missing or malformed value.
 */
export function channelUrl(channel, values) {
  const filled = channel.fields.filter((f) => !f.options && (values[f.name] ?? '').trim() !== '');
  if (filled.length === 0) return null;
  for (const f of channel.fields) {
    if (!f.optional && !f.options && !(values[f.name] ?? '').trim()) throw Object.assign(new Error(`${f.label} is required`), { field: f.name });
  }
  const trimmed = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v.trim()]));
  return channel.build(trimmed);
}
