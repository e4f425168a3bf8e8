import type { ConfigKey } from '../store/config-keys.js';

const MAX_DERIVED = 60;

/** `API health (EU)` → `api-health-eu`: lower-case letters, digits and hyphens. */
export function slugOf(name: string, fallback: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_DERIVED)
    .replace(/-+$/, '');
  return slug || fallback;
}

/** The keys of an account's objects of one kind, both ways. */
export interface KeyIndex<T> {
  byKey: Map<string, T>;
  keyOf: Map<string, string>;
}

/**
 * Every object gets a key: the one stored for it (the last file applied, or an earlier export),
 * else one derived from its name (`slugOf`), made unique with `-2`, `-3`… in creation order.
 * Derivation is stable as long as names do not change, and export stores what it derived.
 */
export function indexKeys<T extends { id: string }>(objects: readonly T[], stored: readonly ConfigKey[], nameOf: (o: T) => string, fallback: string): KeyIndex<T> {
  const byId = new Map(objects.map((o) => [o.id, o]));
  const byKey = new Map<string, T>();
  const keyOf = new Map<string, string>();
  for (const { key, objectId } of [...stored].sort((a, b) => a.key.localeCompare(b.key))) {
    const object = byId.get(objectId);
    if (!object || keyOf.has(objectId) || byKey.has(key)) continue;
    byKey.set(key, object);
    keyOf.set(objectId, key);
  }
  for (const object of objects) {
    if (keyOf.has(object.id)) continue;
    const base = slugOf(nameOf(object), fallback);
    let key = base;
    for (let n = 2; byKey.has(key); n++) key = `${base}-${n}`;
    byKey.set(key, object);
    keyOf.set(object.id, key);
  }
  return { byKey, keyOf };
}

/** The index as rows to store. */
export function keyRows<T extends { id: string }>(index: KeyIndex<T>): ConfigKey[] {
  return [...index.keyOf].map(([objectId, key]) => ({ key, objectId }));
}
