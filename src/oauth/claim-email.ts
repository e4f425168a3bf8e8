import type { Mail } from '../alerts/delivery/mailer.js';
import { agentLabel, escapeHtml } from './html.js';

export interface ClaimEmailInput {
  email: string;
  agentName: string | null;
  claimUrl: string;
  createdAt: number;
  pauseAt: number;
  deleteAt: number;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The claim email (decisions §9): who signed up, the one link, and what happens without it. */
export function claimEmail(input: ClaimEmailInput): Mail {
  const who = agentLabel(input.agentName);
  const lines = [
    'Hello,',
    '',
    `${who} created a Vigil uptime-monitoring account for ${input.email} on ${day(input.createdAt)}.`,
    '',
    'Claim the account to take control of it and turn its alerts on:',
    input.claimUrl,
    '',
    'Until it is claimed its checks run and record history, but no alert is delivered.',
    `If it is not claimed, its checks pause on ${day(input.pauseAt)} and the account is deleted with all its data on ${day(input.deleteAt)}.`,
    'The link works once, until then.',
    '',
    'If you did not ask an agent to do this, ignore this email: the account will be deleted.',
  ];
  const text = lines.join('\n');
  const html = `<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">
<p>Hello,</p>
<p>${escapeHtml(who)} created a Vigil uptime-monitoring account for <b>${escapeHtml(input.email)}</b> on ${day(input.createdAt)}.</p>
<p><a href="${escapeHtml(input.claimUrl)}">Claim the account</a> to take control of it and turn its alerts on.</p>
<p>Until it is claimed its checks run and record history, but no alert is delivered. If it is not claimed, its checks pause on
${day(input.pauseAt)} and the account is deleted with all its data on ${day(input.deleteAt)}. The link works once, until then.</p>
<p>If you did not ask an agent to do this, ignore this email: the account will be deleted.</p>
<p style="color:#666">${escapeHtml(input.claimUrl)}</p>
</body></html>`;
  return { to: input.email, subject: `${who} created a Vigil account for you`, text, html };
}
