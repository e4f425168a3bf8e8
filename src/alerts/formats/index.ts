import type { AlertContent } from '../alert-content.js';
import type { WebhookType } from '../../store/alert-store.js';
import { discordMessage } from './discord.js';
import { genericPayload } from './generic.js';
import { opsgenieRequest } from './opsgenie.js';
import { pagerDutyRequest } from './pagerduty.js';
import { pushoverRequest } from './pushover.js';
import { pumbleMessage, slackMessage } from './slack.js';
import { teamsMessage } from './teams.js';
import type { VendorRequest } from './vendor-request.js';
import { mattermostMessage, rocketChatMessage } from './chat-webhooks.js';
import { googleChatMessage } from './googlechat.js';
import { gotifyRequest } from './gotify.js';
import { matrixRequest } from './matrix.js';
import { ntfyRequest } from './ntfy.js';
import { telegramRequest } from './telegram.js';

/** Each webhook type's own request for an alert (spec 4.9, decisions §8, issue 17). */
export function vendorRequest(type: WebhookType, webhookUrl: string, c: AlertContent, deliveryId: string): VendorRequest {
  switch (type) {
    case 'slack':
      return { url: webhookUrl, body: slackMessage(c) };
    case 'pumble':
      return { url: webhookUrl, body: pumbleMessage(c) };
    case 'discord':
      return { url: webhookUrl, body: discordMessage(c) };
    case 'teams':
      return { url: webhookUrl, body: teamsMessage(c) };
    case 'pagerduty':
      return pagerDutyRequest(webhookUrl, c);
    case 'opsgenie':
      return opsgenieRequest(webhookUrl, c);
    case 'pushover':
      return pushoverRequest(webhookUrl, c);
    case 'generic':
      return { url: webhookUrl, body: genericPayload(c) };
    case 'ntfy':
      return ntfyRequest(webhookUrl, c);
    case 'gotify':
      return gotifyRequest(webhookUrl, c);
    case 'telegram':
      return telegramRequest(webhookUrl, c);
    case 'matrix':
      return matrixRequest(webhookUrl, c, deliveryId);
    case 'mattermost':
      return { url: webhookUrl, body: mattermostMessage(c) };
    case 'rocketchat':
      return { url: webhookUrl, body: rocketChatMessage(c) };
    case 'googlechat':
      return { url: webhookUrl, body: googleChatMessage(c) };
  }
}

/** Types whose test only the dashboard can run (spec 4.9): the API answers 502. */
export const DASHBOARD_TEST_ONLY: ReadonlySet<WebhookType> = new Set(['pagerduty', 'opsgenie', 'pushover']);
