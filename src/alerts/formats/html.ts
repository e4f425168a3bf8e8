/** Text placed inside HTML (email, Telegram, Matrix, Google Chat): the five characters that could open markup. */
export const escapeHtml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** Cut to `max` characters with an ellipsis, so a long error never breaks a vendor's size limit. */
export const cut = (s: string, max: number): string => (s.length > max ? `${s.slice(0, max - 1)}…` : s);
