/** What a Kuma object became: the kinds of `kuma_imports` rows. */
export type KumaKind = 'monitor' | 'notification' | 'status_page' | 'maintenance';

export interface KumaImportKey {
  accountId: string;
  sourceId: string;
  kind: KumaKind;
  kumaId: number;
}

/** The import memory (migrations-kuma.ts). */
export interface KumaImportRepo {
  vigilId(key: KumaImportKey): Promise<string | null>;
  remember(key: KumaImportKey, vigilId: string, at: number): Promise<void>;
  /** Keeps a Kuma push token (by hash) for a heartbeat check, paired with the check's current ping token. */
  rememberPushToken(tokenHash: Buffer, checkId: string): Promise<void>;
  /**
   * The ping token a Kuma push token stands for; null when unknown, or when the check's ping URL
   * was regenerated since (a leaked URL is retired with its Kuma twin).
   */
  pingTokenFor(tokenHash: Buffer): Promise<string | null>;
}

