
/** What a monitoring file's key can name (issue 30); `kind` is free text in both stores, so a new kind needs no migration. */
export type ConfigKind = 'check' | 'webhook' | 'status_page' | 'maintenance_window';

/** One key of a monitoring file and the object it stands for. */
export interface ConfigKey {
  key: string;
  objectId: string;
}

/**
 * The keys under which `vigil apply` and `vigil export` know an account's objects
 * (migrations-config-keys.ts): a key stays with its object when the object is renamed. Rows of
 * objects deleted since are harmless: readers keep only keys whose object still exists.
 */
export interface ConfigKeyRepo {
  /** The account's keys of this kind, in no particular order. */
  list(accountId: string, kind: ConfigKind): Promise<ConfigKey[]>;
  /** Replaces every key of this kind of the account with these. */
  replace(accountId: string, kind: ConfigKind, keys: readonly ConfigKey[]): Promise<void>;
}
