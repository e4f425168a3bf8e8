import { loadConfig, resolveConfig, type Config } from '../../src/config.js';
import { AccountsService } from '../../src/core/accounts-service.js';
import { ChecksService } from '../../src/core/checks-service.js';
import { systemClock } from '../../src/domain/clock.js';
import type { Principal } from '../../src/core/principal.js';
import type { CreateCheckInput } from '../../src/core/schemas/checks.js';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Check, Scope } from '../../src/domain/records.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';

/** A bench config: no plan limit in the way, probes every 30 s allowed, quiet logs. */
export function benchConfig(dataDir: string, extra: Record<string, unknown> = {}): Config {
  return resolveConfig(
    loadConfig({
      overrides: { dataDir, logLevel: 'warn', plans: { pro: { maxChecks: 1e7, minCheckIntervalMinutes: 0.05 } }, rateLimits: { perKeyPerMinute: 1e9 }, ...extra },
      warn: () => {},
    }),
  );
}

/** Creates an account and `count` checks through the real service, in one transaction; a key with `scopes`. */
export async function seedChecks(
  dataDir: string, count: number, input: (i: number) => CreateCheckInput, scopes: Scope[] = ['checks:read', 'checks:write'],
): Promise<{ key: string; ids: string[] }> {
  const config = benchConfig(dataDir);
  const store = openSqliteStore(dataDir);
  try {
    const accounts = new AccountsService(store, config, systemClock);
    const account = await accounts.createAccount(`bench-${Date.now()}@example.com`, 'pro');
    const { key } = await accounts.createKey({ account: account.id, scopes });
    const principal: Principal = { kind: 'api_key', credentialId: 'bench', account, scopes: ['checks:write'], access: null, key: null };
    const checks = new ChecksService(store, config, systemClock);
    const ids: string[] = [];
    await store.transaction(async () => {
      for (let i = 0; i < count; i++) ids.push((await checks.create(principal, input(i))).id);
    });
    return { key, ids };
  } finally {
    await store.close();
  }
}

/**
 * What seeding needs of a build: this one's modules, or those of another build's dist/
 * (bench/before-after.bench.ts seeds with the build before, whose schema is the older one: the
 * build after migrates its copy when it starts, as an upgrade does; the other way round the
 * build before refuses a newer database). Everything is awaited, so a synchronous store fits.
 */
export interface SeedingBuild {
  seedChecks(dataDir: string, count: number, input: (i: number) => CreateCheckInput): { key: string; ids: string[] } | Promise<{ key: string; ids: string[] }>;
  openSqliteStore(dataDir: string): {
    checks: { setDisabled(id: string, disabled: boolean, reason: string, at: number): unknown; byId(id: string): Check | null | Promise<Check | null> };
    close(): unknown;
  };
}

export const THIS_BUILD: SeedingBuild = { seedChecks, openSqliteStore };

/** The seeding modules of a built checkout at `root`. */
export async function seedingBuild(root: string): Promise<SeedingBuild> {
  const seed = (await import(pathToFileURL(join(root, 'dist', 'bench', 'lib', 'seed.js')).href)) as Pick<SeedingBuild, 'seedChecks'>;
  const sqlite = (await import(pathToFileURL(join(root, 'dist', 'src', 'store', 'sqlite', 'index.js')).href)) as Pick<SeedingBuild, 'openSqliteStore'>;
  return { seedChecks: seed.seedChecks, openSqliteStore: sqlite.openSqliteStore };
}
