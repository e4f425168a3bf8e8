import { errors } from './errors.js';

/**
 * A name a user gives a check or a webhook: trimmed, not empty, and one line of plain text
 * (it lands in alert subjects, chat messages and logs, where a line break could forge a line).
 */
export function displayName(raw: string, field = 'name'): string {
  const name = raw.trim();
  if (name === '') throw errors.badRequest(`${field} must not be empty`);
  if (/\p{Cc}/u.test(name)) throw errors.badRequest(`${field} must not contain control characters (line breaks, tabs, NUL)`);
  return name;
}
