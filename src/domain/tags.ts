/**
 * Check tags (issue 27): `key` or `key:value`, stored as given and matched case-insensitively.
 * A filter `key` matches any value of that key; `key:value` only that value.
 */

export const MAX_TAGS = 20;
export const MAX_TAG_PART = 64;

/** Why a tag cannot be used, or null when it can. */
export function tagProblem(tag: string): string | null {
  const colon = tag.indexOf(':');
  const parts = colon < 0 ? [tag] : [tag.slice(0, colon), tag.slice(colon + 1)];
  for (const part of parts) {
    const length = [...part].length;
    if (length < 1 || length > MAX_TAG_PART) return `each side of a tag must be 1 to ${MAX_TAG_PART} characters: ${JSON.stringify(tag)}`;
    if (part.trim() !== part) return `a tag must not start or end with whitespace on either side: ${JSON.stringify(tag)}`;
  }
  if (tag.includes(',')) return `a tag must not contain a comma: ${JSON.stringify(tag)}`;
  if (/[\u0000-\u001f]/.test(tag)) return `a tag must not contain control characters: ${JSON.stringify(tag)}`;
  return null;
}

/** The tags as stored: duplicates (by their matching form) dropped, first spelling kept. */
export function uniqueTags(tags: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const tag of tags) {
    const key = tag.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(tag);
  }
  return out;
}

/** True when one of the check's tags satisfies the filter (`key` or `key:value`). */
export function hasTag(tags: readonly string[], filter: string): boolean {
  const wanted = filter.toLowerCase();
  const byKey = !wanted.includes(':');
  for (const tag of tags) {
    const t = tag.toLowerCase();
    if (t === wanted) return true;
    if (byKey && t.length > wanted.length && t.startsWith(wanted) && t.charCodeAt(wanted.length) === 58 /* : */) return true;
  }
  return false;
}

/** True when the check has every filter tag (a list filter: AND). */
export function hasEveryTag(tags: readonly string[], filters: readonly string[]): boolean {
  for (const f of filters) if (!hasTag(tags, f)) return false;
  return true;
}

/** True when the check has at least one of the tags (routing and status pages: any listed tag). */
export function hasAnyTag(tags: readonly string[], filters: readonly string[]): boolean {
  for (const f of filters) if (hasTag(tags, f)) return true;
  return false;
}
