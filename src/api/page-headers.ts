import { createHash } from 'node:crypto';

/**
 * The security headers of every HTML page Vigil serves (issue 34 item 6): a Content-Security-
 * Policy whose scripts are Vigil's own files or inline scripts named by their hash (never
 * 'unsafe-inline'), who may frame the page, no MIME sniffing and no Referer carrying a token.
 */
export interface PagePolicy {
  /** `'self'`: the page loads Vigil's own script files (the dashboard's bundle). */
  selfScripts?: boolean;
  /** Inline scripts the page carries, allowed by their SHA-256 and nothing else. */
  inlineScripts?: readonly string[];
  /** Images from any https origin (a status page's logo and favicon), besides Vigil's own and data: URLs. */
  httpsImages?: boolean;
  /** Origins whose pages may show this one in a frame; none (the default) refuses every frame. */
  frameAncestors?: readonly string[];
  /** `no-referrer` for pages whose URL holds a secret (links with tokens, the dashboard); others send only their origin across sites. */
  referrer: 'no-referrer' | 'strict-origin-when-cross-origin';
}

/** The CSP source of an inline script: its SHA-256, base64. */
export function scriptHash(script: string): string {
  return `'sha256-${createHash('sha256').update(script, 'utf8').digest('base64')}'`;
}

export function pageHeaders(policy: PagePolicy): Record<string, string> {
  const scripts = [...(policy.selfScripts ? ["'self'"] : []), ...(policy.inlineScripts ?? []).map(scriptHash)];
  const ancestors = policy.frameAncestors?.length ? policy.frameAncestors.join(' ') : "'none'";
  const csp = [
    "default-src 'none'",
    `script-src ${scripts.length ? scripts.join(' ') : "'none'"}`,
    // Inline styles stay allowed: the pages set them in <style> and style attributes, and a style cannot run code.
    "style-src 'self' 'unsafe-inline'",
    `img-src 'self' data:${policy.httpsImages ? ' https:' : ''}`,
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    `frame-ancestors ${ancestors}`,
  ].join('; ');
  return {
    'Content-Security-Policy': csp,
    // For browsers that know no frame-ancestors; it cannot name several origins, so it is sent only when none may frame.
    ...(policy.frameAncestors?.length ? {} : { 'X-Frame-Options': 'DENY' }),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': policy.referrer,
  };
}
