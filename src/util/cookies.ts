/** The Cookie and Set-Cookie headers, written once for every cookie Vigil reads or sets (sessions, single sign-on). */

/**
 * The value of the first cookie called `name` in a Cookie header, as sent (Vigil's cookie values
 * are URL-safe tokens, so nothing is decoded), or null.
 */
export function cookieValue(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

export interface CookieAttributes {
  path: string;
  /** 0 clears the cookie. */
  maxAgeSeconds: number;
  sameSite: 'Strict' | 'Lax';
  secure: boolean;
}

/** A Set-Cookie value; always HttpOnly (no script of Vigil's reads a cookie). */
export function setCookie(name: string, value: string, a: CookieAttributes): string {
  return `${name}=${value}; Path=${a.path}; Max-Age=${Math.max(0, Math.floor(a.maxAgeSeconds))}; HttpOnly; SameSite=${a.sameSite}${a.secure ? '; Secure' : ''}`;
}
