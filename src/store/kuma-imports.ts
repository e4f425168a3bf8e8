/** What a Kuma object became: the kinds of `kuma_imports` rows. */
export type KumaKind = 'monitor' | 'notification' | 'status_page';

export interface KumaImportKey {
  accountId: string;
  sourceId: string;
  kind: KumaKind;
  kumaId: number;
}

/** The import memory (migrations-kuma.ts). */
export interface KumaImportRepo {
  vigilId(key: KumaImportKey): string | null;
  remember(key: KumaImportKey, vigilId: string, at: number): void;
}

