/**
 * The signup's address rules: a mailbox on a domain that DNS could route mail to. Stricter
 * than the CLI's (which also takes `admin@localhost`): a local part without spaces, quotes or
 * brackets, and a domain of at least two LDH labels whose last one is alphabetic (or `xn--`).
 */
const LOCAL = /^[^\s@"(),:;<>[\]\\]{1,64}$/;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const TLD = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

export interface SignupEmail {
  /** Lower-cased, as accounts store it. */
  address: string;
  domain: string;
}

export function parseSignupEmail(raw: string): SignupEmail | null {
  const address = raw.trim().toLowerCase();
  if (address.length > 254) return null;
  const at = address.lastIndexOf('@');
  if (at <= 0) return null;
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  if (!LOCAL.test(local) || local.startsWith('.') || local.endsWith('.') || local.includes('..')) return null;
  const labels = domain.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l)) || !TLD.test(labels[labels.length - 1]!)) return null;
  return { address, domain };
}
