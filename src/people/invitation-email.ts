import type { Mail } from '../alerts/delivery/mailer.js';
import { escapeHtml } from '../alerts/formats/html.js';

/** The invitation a new member receives (issue 28): who invited them, to what, and the one link. */
export function invitationEmail(input: { to: string; accountEmail: string; role: string; invitedBy: string; setupUrl: string; validHours: number }): Mail {
  const text = [
    `${input.invitedBy} invited you to the Vigil account ${input.accountEmail} as ${input.role}.`,
    '',
    `Choose your password here (the link works once, for ${input.validHours} hours):`,
    input.setupUrl,
    '',
    'If you did not expect this, ignore this email.',
  ].join('\n');
  const html = `<p>${escapeHtml(input.invitedBy)} invited you to the Vigil account <b>${escapeHtml(input.accountEmail)}</b> as <b>${escapeHtml(input.role)}</b>.</p>
<p><a href="${escapeHtml(input.setupUrl)}">Choose your password</a> (the link works once, for ${input.validHours} hours).</p>
<p style="color:#666">${escapeHtml(input.setupUrl)}</p>
<p style="color:#666">If you did not expect this, ignore this email.</p>`;
  return { to: input.to, subject: `You are invited to Vigil (${input.accountEmail})`, text, html };
}
