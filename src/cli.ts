import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { VigilApp } from './app.js';
import { assertDatabaseUrl, ConfigError, loadConfig, resolveConfig, type Config, type ConfigInput } from './config.js';
import { AccountsService, checkNewAccount, checkNewKey } from './core/accounts-service.js';
import { systemClock } from './domain/clock.js';
import { ApiError } from './domain/errors.js';
import { openSqliteStore } from './store/sqlite/index.js';
import { ChecksService } from './core/checks-service.js';
import { ClaimService } from './oauth/claim-service.js';
import { DataDirInUse, lockDataDir } from './store/sqlite/data-dir-lock.js';
import { noteDataDir } from './store/sqlite/fresh-data-dir.js';
import { backupDatabase, BackupRefused, restoreDatabase } from './store/sqlite/backup.js';
import { StartupError } from './util/startup-error.js';
import { openDatabase } from './store/db.js';
import { PgDb, unreachable } from './store/postgres/db.js';
import { openPgStore } from './store/postgres/index.js';
import type { Store } from './store/store.js';
import { copySqliteToPostgres, MigrateRefused } from './store/postgres/copy-sqlite.js';
import { AlertsModule } from './alerts/alerts-module.js';
import { Mailer } from './alerts/delivery/mailer.js';
import type { Principal } from './core/principal.js';
import { SCOPES } from './domain/records.js';
import { KumaImporter } from './import/kuma-import.js';
import { Recorder } from './monitor/recorder.js';
import { createLogger } from './log.js';
import { NotKumaDatabase } from './store/kuma-source.js';
import { BatchWriter } from './store/batch-writer.js';
import { readKumaDatabase } from './store/sqlite/kuma-reader.js';
import { MaintenanceWindowsService } from './core/maintenance-windows-service.js';
import { StatusPagesService } from './status-pages/status-pages-service.js';
import { SessionsService } from './people/sessions-service.js';
import { NodeRegistry } from './nodes/node-registry.js';
import { runProber } from './prober/run.js';
import { socketUrl } from './prober/link.js';
import { listInstances } from './cluster/instances.js';
import { announceCheckChanges } from './cluster/relay.js';
import { collectStartupGarbage } from './util/startup-garbage.js';
import { versionLine } from './version.js';
import { MonitoringAsCode, type ApplyResult } from './as-code/monitoring-as-code.js';
import { planText } from './as-code/plan-text.js';
import { MonitoringFileSource } from './as-code/file-source.js';
import type { MonitoringFileInput } from './as-code/file-schema.js';
import { applyThroughServer } from './as-code/server-hand-off.js';
import { reachableUrl } from './front/reachable-url.js';
import { MembersService, parseRole } from './people/members-service.js';
import { AuditLog } from './core/audit-log.js';
import { ROLES, type Actor } from './domain/people.js';

/** The audit log's name for what the CLI does: the operator of the server, by their login. */
const CLI_ACTOR: Actor = { kind: 'cli', id: 'cli', name: `cli (${process.env.USER ?? process.env.LOGNAME ?? 'operator'})` };
/** The CLI prints set-up links; it sends no mail. */
const NO_MAIL = { configured: false, send: () => Promise.reject(new Error('the CLI sends no mail')) };

const USAGE = `Usage: vigil <command> [options]

  serve [--config FILE]                              run the server (API, ingest, scheduler)
  account create --email EMAIL [--tier TIER]         create an account (free|indie|nano|pro)
  key create --account ID_OR_EMAIL [--scopes s1,s2] [--checks id1,id2] [--folders f1,f2]
             [--expires-at ISO8601] [--name NAME]    create an API key (printed once)
  account claim ID_OR_EMAIL                          claim an agent-created account (when no claim email could be sent)
  account list                                       list accounts with their numbers of checks and keys
  key list [--account ID_OR_EMAIL]                   list API keys (never their secrets), of one account or all
  key revoke KEY_ID | key disable KEY_ID | key enable KEY_ID
  backup FILE                                        consistent copy of the database, also while serve runs
  restore FILE                                       replace the database with a backup (serve must be stopped)
  import kuma FILE --account ID_OR_EMAIL [--dry-run] [--paused] [--with-history]
                                                     import an Uptime Kuma database (docs/kuma-import.md)
  export --account ID_OR_EMAIL [--format yaml|json]  print the account's monitoring as a file (docs/config-as-code.md)
  apply FILE --account ID_OR_EMAIL [--dry-run] [--prune] [--detailed-exitcode] [--json]
                                                     apply a monitoring file (FILE - reads stdin): plan, then all or nothing
  user create --account ID_OR_EMAIL --email EMAIL --role owner|admin|editor|viewer [--name NAME]
                                                     add a member; prints a one-time set-up link (24 h) for their password
  user list [--account ID_OR_EMAIL]                  members with their roles, of one account or all
  user remove USER_ID                                remove a member (their sessions end at once; one owner stays)
  login-link [--account ID_OR_EMAIL]                 print a one-time dashboard sign-in URL, valid 15 minutes
                                                     (default: the admin account)
  store migrate --to postgres://… [--batch N]       copy the SQLite database into an empty PostgreSQL database
                                                     (serve stopped; resumable; docs/postgresql.md#moving-from-sqlite)
  node create --region REGION [--name NAME]          register a prober node (its token is printed once)
  node list                                          nodes with connection, load, outbox and clock offset
  node revoke NODE_ID                                disconnect a node at once and for good
  prober --server URL[,URL…] --token TOKEN           run a regional prober node (or VIGIL_SERVER, VIGIL_NODE_TOKEN);
                                                     --server repeated or comma-separated: any of several centrals
  instances                                          the centrals sharing this store: name, startedAt, lastSeenAt,
                                                     live, checks, version (JSON)
  version | --version                                print the version (a release binary: its commit and target)

Every command takes --config FILE (or VIGIL_CONFIG).`;

/** Bad input: one line on stderr, exit status 2, nothing written (decisions §2). */
class UsageError extends Error {}

const list = (v: string | undefined) => (v === undefined ? undefined : v.split(',').map((s) => s.trim()).filter(Boolean));

/**
 * Every option here takes a string value; `--config` is accepted by all commands. An option of
 * `repeated` may be given several times; its values are joined with commas.
 */
function parse(
  argv: string[], names: string[], maxPositionals = 0, flags: string[] = [], repeated: string[] = [],
): { values: Record<string, string | undefined>; positionals: string[]; flags: Set<string> } {
  const options = Object.fromEntries([
    ...['config', ...names].map((n) => [n, { type: 'string' as const, multiple: repeated.includes(n) }]),
    ...flags.map((n) => [n, { type: 'boolean' as const }]),
  ]);
  try {
    const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    if (positionals.length > maxPositionals) throw new UsageError(`unexpected argument: ${positionals[maxPositionals]}`);
    const all = values as Record<string, string | string[] | boolean | undefined>;
    for (const r of repeated) if (Array.isArray(all[r])) all[r] = (all[r] as string[]).join(',');
    const set = new Set(flags.filter((f) => all[f] === true));
    for (const f of flags) delete all[f];
    return { values: all as Record<string, string | undefined>, positionals, flags: set };
  } catch (err) {
    if (err instanceof UsageError) throw err;
    // parseArgs calls a missing value "ambiguous" when the next word is an option, "missing" at the end.
    const option = /^Option '(--[\w-]+)[^']*' argument (?:is ambiguous|missing)/.exec((err as Error).message)?.[1];
    throw new UsageError(option ? `${option} needs a value` : (err as Error).message.split('\n')[0]);
  }
}

async function main(argv: string[]): Promise<number> {
  const [command, sub, ...rest] = argv;
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return command ? 0 : 2;
  }
  if (command === 'version' || command === '--version' || command === '-v') {
    if (sub !== undefined) throw new UsageError(`unexpected argument: ${sub}`);
    process.stdout.write(`${versionLine()}\n`);
    return 0;
  }
  if (command === 'serve') return serve(parse([sub, ...rest].filter((a): a is string => a !== undefined), []).values.config);
  if (command === 'account' && sub === 'create') {
    const { values } = parse(rest, ['email', 'tier']);
    const email = values.email;
    if (!email) throw new UsageError('account create needs --email EMAIL');
    checkNewAccount(email, values.tier ?? 'free');
    return withAccounts(values.config, async (accounts) => {
      const a = await accounts.createAccount(email, values.tier ?? 'free', CLI_ACTOR);
      return { id: a.id, email: a.email, tier: a.tier };
    });
  }
  if (command === 'account' && sub === 'claim') {
    const { values, positionals } = parse(rest, [], 1);
    if (positionals.length !== 1) throw new UsageError('account claim needs exactly one ID_OR_EMAIL');
    return withStore(values.config, async (store, config) => {
      const accounts = new AccountsService(store, config, systemClock);
      const account = await accounts.findAccount(positionals[0]!);
      if (account.claimed) throw new UsageError(`account ${account.email} is already claimed`);
      const checks = cliChecks(store, config);
      const claims = new ClaimService(store, store.oauth, checks, systemClock);
      // A running server sees the claim at once, and starts probing the checks resumed here within a second.
      return { id: account.id, email: account.email, claimed: true, resumedChecks: await claims.claimAccount(account.id) };
    });
  }
  if (command === 'account' && sub === 'list') {
    const { values } = parse(rest, []);
    return withAccounts(values.config, (accounts) => accounts.listAccounts());
  }
  if (command === 'key' && sub === 'list') {
    const { values } = parse(rest, ['account']);
    return withAccounts(values.config, (accounts) => accounts.listKeys(values.account));
  }
  if (command === 'key' && sub === 'create') {
    const { values } = parse(rest, ['account', 'scopes', 'checks', 'folders', 'expires-at', 'name']);
    const account = values.account;
    if (!account) throw new UsageError('key create needs --account ID_OR_EMAIL');
    const input = {
      account,
      scopes: list(values.scopes),
      checkIds: list(values.checks),
      folders: list(values.folders),
      expiresAt: values['expires-at'],
      name: values.name,
    };
    checkNewKey(input, Date.now());
    return withAccounts(values.config, (accounts) => accounts.createKey(input, { actor: CLI_ACTOR }));
  }
  if (command === 'key' && (sub === 'revoke' || sub === 'disable' || sub === 'enable')) {
    const { values, positionals } = parse(rest, [], 1);
    if (positionals.length !== 1) throw new UsageError(`key ${sub} needs exactly one KEY_ID`);
    const id = positionals[0]!;
    return withAccounts(values.config, async (accounts) => {
      if (sub === 'revoke') await accounts.revokeKey(id, { actor: CLI_ACTOR });
      else await accounts.setKeyDisabled(id, sub === 'disable', { actor: CLI_ACTOR });
      return { id, status: sub === 'revoke' ? 'revoked' : sub === 'disable' ? 'disabled' : 'enabled' };
    });
  }
  if (command === 'backup' || command === 'restore') {
    const { values, positionals } = parse([sub, ...rest].filter((a): a is string => a !== undefined), [], 1);
    if (positionals.length !== 1) throw new UsageError(`${command} needs exactly one FILE`);
    const { dataDir, store } = readConfig(values.config);
    if (store.url !== null) {
      // The command does not apply to this setup: bad input, like an unknown command.
      throw new UsageError(
        `${command} copies the SQLite database, and this Vigil keeps its store in PostgreSQL (store.url): ` +
          (command === 'backup'
            ? 'back it up with pg_dump --format=custom --file=vigil.dump "$VIGIL_DATABASE_URL" (docs/postgresql.md#backups)'
            : 'restore a pg_dump file with pg_restore into an empty database (docs/postgresql.md#backups)'),
      );
    }
    const report = command === 'backup' ? await backupDatabase(dataDir, positionals[0]!) : restoreDatabase(dataDir, positionals[0]!);
    process.stdout.write(`${JSON.stringify(report)}\n`);
    return 0;
  }
  if (command === 'store' && sub === 'migrate') {
    const { values } = parse(rest, ['to', 'batch']);
    if (!values.to) throw new UsageError('store migrate needs --to postgres://USER@HOST/DATABASE');
    try {
      assertDatabaseUrl(values.to);
    } catch (err) {
      throw new UsageError((err as Error).message.replace('store.url (VIGIL_DATABASE_URL)', '--to'));
    }
    const batch = values.batch === undefined ? undefined : Number(values.batch);
    if (batch !== undefined && !(Number.isInteger(batch) && batch > 0)) throw new UsageError('--batch must be a positive whole number');
    return migrateStore(values.config, values.to, batch);
  }
  if (command === 'import' && sub === 'kuma') {
    const { values, positionals, flags } = parse(rest, ['account'], 1, ['dry-run', 'paused', 'with-history']);
    if (positionals.length !== 1) throw new UsageError('import kuma needs exactly one FILE (the Kuma kuma.db)');
    if (!values.account) throw new UsageError('import kuma needs --account ID_OR_EMAIL');
    const options = { account: values.account, dryRun: flags.has('dry-run'), paused: flags.has('paused'), withHistory: flags.has('with-history') };
    return importKuma(readConfig(values.config), positionals[0]!, options);
  }
  if (command === 'export') {
    const { values } = parse([sub, ...rest].filter((a): a is string => a !== undefined), ['account', 'format']);
    if (!values.account) throw new UsageError('export needs --account ID_OR_EMAIL');
    const format = values.format ?? 'yaml';
    if (format !== 'yaml' && format !== 'json') throw new UsageError(`--format must be yaml or json (got ${format})`);
    const account = values.account;
    return withAsCode(readConfig(values.config), async (asCode, principalOf) => {
      const { text, variables } = await asCode.export(await principalOf(account), format);
      process.stdout.write(text);
      if (variables.length > 0) {
        process.stderr.write(`vigil: the file refers to ${variables.length} secret${variables.length === 1 ? '' : 's'} by environment variable; set them before applying it:\n`);
        for (const v of variables) process.stderr.write(`  ${v.name}  (${v.path})\n`);
      }
      return 0;
    });
  }
  if (command === 'apply') {
    const { values, positionals, flags } = parse(rest, ['account'], 0, ['dry-run', 'prune', 'detailed-exitcode', 'json']);
    if (sub === undefined || sub.startsWith('--')) throw new UsageError('apply needs a FILE (or - for stdin)');
    if (positionals.length > 0) throw new UsageError(`unexpected argument: ${positionals[0]}`);
    if (!values.account) throw new UsageError('apply needs --account ID_OR_EMAIL');
    const account = values.account;
    const text = readFileArgument(sub);
    const dryRun = flags.has('dry-run');
    const prune = flags.has('prune');
    const input = readConfig(values.config);
    return withAsCode(input, async (asCode, principalOf, handOff) => {
      const principal = await principalOf(account);
      const options = { prune, env: process.env };
      // The plan first, from the same run of the unit (rolled back); then the apply itself.
      const planned = await asCode.plan(principal, text, options);
      const changed = planned.plan.changes.length > 0;
      const json = flags.has('json');
      if (!json) process.stdout.write(planText(planned.plan, { prune }));
      const deletesChecks = planned.plan.changes.some((c) => c.section === 'checks' && c.action === 'delete');
      const result = dryRun || !changed
        ? planned
        : deletesChecks && serverRunning(input)
          ? await handOff(principal, MonitoringFileSource.parse(text, process.env).value, prune)
          : await asCode.apply(principal, text, options);
      if (json) process.stdout.write(`${JSON.stringify({ ...result, dryRun }, null, 2)}\n`);
      else if (result.applied) process.stdout.write('Applied.\n');
      return dryRun && changed && flags.has('detailed-exitcode') ? 3 : 0;
    });
  }
  if (command === 'login-link') {
    const { values } = parse([sub, ...rest].filter((a): a is string => a !== undefined), ['account']);
    return withStore(values.config, (store, config) =>
      new SessionsService(store, systemClock, config).createLoginLink(values.account, { actor: CLI_ACTOR }),
    );
  }
  if (command === 'node') return nodeCommand(sub, rest);
  if (command === 'user') return userCommand(sub, rest);
  if (command === 'instances') {
    const { values } = parse([sub, ...rest].filter((a): a is string => a !== undefined), []);
    return withStore(values.config, (store) => listInstances(store.cluster, systemClock.now()));
  }
  if (command === 'prober') {
    const { values } = parse([sub, ...rest].filter((a): a is string => a !== undefined), ['server', 'token'], 0, [], ['server']);
    const servers = list(values.server ?? process.env.VIGIL_SERVER) ?? [];
    const token = values.token ?? process.env.VIGIL_NODE_TOKEN;
    if (servers.length === 0) throw new UsageError('prober needs --server URL (or VIGIL_SERVER)');
    if (!token) throw new UsageError('prober needs --token TOKEN (or VIGIL_NODE_TOKEN)');
    for (const server of servers) {
      try {
        new URL(server);
      } catch {
        throw new UsageError(`--server must be a URL such as https://vigil.example.com (got ${server})`);
      }
      try {
        socketUrl(server);
      } catch (err) {
        throw new UsageError((err as Error).message);
      }
    }
    return runProber({ servers, token, config: readConfig(values.config) });
  }
  // A known command with an unknown subcommand names both; anything else names what was typed.
  const words = [command, sub].filter((w) => w !== undefined && (w === command || !w.startsWith('-')));
  throw new UsageError(`unknown command: ${words.join(' ')} (see vigil help)`);
}

async function nodeCommand(sub: string | undefined, rest: string[]): Promise<number> {
  if (sub === 'create') {
    const { values } = parse(rest, ['region', 'name']);
    const region = values.region;
    if (!region) throw new UsageError('node create needs --region REGION');
    return withNodes(values.config, (nodes) => nodes.create({ region, name: values.name }));
  }
  if (sub === 'list') {
    const { values } = parse(rest, []);
    return withNodes(values.config, (nodes) => nodes.list());
  }
  if (sub === 'revoke') {
    const { values, positionals } = parse(rest, [], 1);
    if (positionals.length !== 1) throw new UsageError('node revoke needs exactly one NODE_ID');
    return withNodes(values.config, (nodes) => nodes.revoke(positionals[0]!));
  }
  throw new UsageError(`unknown command: node${sub ? ` ${sub}` : ''} (see vigil help)`);
}

/** `vigil user create|list|remove` (issue 28): members of accounts, as their operator. */
async function userCommand(sub: string | undefined, rest: string[]): Promise<number> {
  if (sub === 'create') {
    const { values } = parse(rest, ['account', 'email', 'role', 'name']);
    const { account, email, role } = values;
    if (!account) throw new UsageError('user create needs --account ID_OR_EMAIL');
    if (!email) throw new UsageError('user create needs --email EMAIL');
    if (!role) throw new UsageError(`user create needs --role ${ROLES.join('|')}`);
    parseRole(role);
    return withMembers(values.config, async (members) => {
      const u = await members.createUser({ account, email, role, name: values.name }, CLI_ACTOR);
      return { id: u.id, email: u.email, role: u.role, accountId: u.accountId, setupUrl: u.setupUrl };
    });
  }
  if (sub === 'list') {
    const { values } = parse(rest, ['account']);
    return withMembers(values.config, (members) => members.listUsers(values.account));
  }
  if (sub === 'remove') {
    const { values, positionals } = parse(rest, [], 1);
    if (positionals.length !== 1) throw new UsageError('user remove needs exactly one USER_ID');
    const id = positionals[0]!;
    return withMembers(values.config, async (members) => {
      await members.removeUser(id, CLI_ACTOR);
      return { id, removed: true };
    });
  }
  throw new UsageError(`unknown command: user${sub ? ` ${sub}` : ''} (see vigil help)`);
}

async function withMembers(configFile: string | undefined, run: (members: MembersService) => unknown): Promise<number> {
  return withStore(configFile, (store, config) => run(new MembersService(store, config, systemClock, new AuditLog(store, systemClock), NO_MAIL)));
}

async function withNodes(configFile: string | undefined, run: (nodes: NodeRegistry) => unknown): Promise<number> {
  return withStore(configFile, (store, config) => run(new NodeRegistry(store.nodes, config.region, systemClock, { store, source: { actor: CLI_ACTOR } })));
}

function readConfig(file: string | undefined): ConfigInput {
  return loadConfig({ file });
}

async function withAccounts(configFile: string | undefined, run: (accounts: AccountsService) => unknown): Promise<number> {
  return withStore(configFile, (store, config) => run(new AccountsService(store, config, systemClock)));
}

/**
 * The CLI's store: a guest beside the server that may be running on the same data directory
 * (it must not rebuild or buffer rollups that server holds; see openSqliteStore), or the
 * PostgreSQL store of store.url, read once (no polling), with a bus that tells the running
 * centrals of the checks this command changes.
 */
async function openBeside(input: ConfigInput): Promise<Store> {
  if (input.store.url !== null) return openPgStore(input.store.url, { pollMs: 0, changes: 'publish', maxConnections: 4 });
  return openSqliteStore(input.dataDir, { guest: true });
}

/** The services over the CLI's store that change checks; running centrals on a shared store hear of each change at once. */
function cliChecks(store: Store, config: Config): ChecksService {
  const checks = new ChecksService(store, config, systemClock);
  if (store.changes) announceCheckChanges(store.changes, `cli:${process.pid}@${hostname()}`, checks);
  return checks;
}

/**
 * The CLI's addresses: its own config's; without a `publicUrl` there, those the server on this
 * data directory recorded when it started (issue 23), so printed URLs name the port it serves on.
 */
async function cliConfig(input: ConfigInput, store: Store): Promise<Config> {
  const served = input.publicUrl ? null : await store.served.get();
  if (!served) return resolveConfig(input);
  return resolveConfig({
    ...input,
    publicUrl: served.publicUrl,
    heartbeatUrl: input.heartbeatUrl ?? served.heartbeatUrl,
    dashboardUrl: input.dashboardUrl ?? served.dashboardUrl,
  });
}

async function withStore(configFile: string | undefined, run: (store: Store, config: Config) => unknown): Promise<number> {
  const input = readConfig(configFile);
  const store = await openBeside(input);
  try {
    const result = await run(store, await cliConfig(input, store));
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } finally {
    await store.close();
  }
}

/**
 * A server on the same data directory learns of checks the CLI creates or changes, not of checks
 * it deletes (CheckRepo.writtenElsewhere): it would keep probing them. So an apply that deletes
 * checks (--prune) is handed to that server's API while one runs (withAsCode's handOff).
 */
function serverRunning(input: ConfigInput): boolean {
  // Centrals on PostgreSQL hear of the deletions (cliChecks).
  if (input.dataDir === ':memory:' || input.store.url !== null) return false;
  try {
    lockDataDir(input.dataDir).release();
    return false;
  } catch (err) {
    if (!(err instanceof DataDirInUse)) throw err;
    return true;
  }
}

/** How long the key the CLI makes for handing an apply to the running server lives at most (it is revoked once answered). */
const HAND_OFF_KEY_MS = 5 * 60_000;

/**
 * Applies the file through the API of the server running on this data directory, with a key
 * made for this one request (beyond the plan's key allowance: it is the operator's, not the
 * account's) and revoked once the server answered; both are in the audit log as the CLI's.
 */
async function applyThroughRunningServer(store: Store, accounts: AccountsService, principal: Principal, value: MonitoringFileInput, prune: boolean): Promise<ApplyResult> {
  const served = await store.served.get();
  if (!served?.listenUrl) {
    throw new StartupError('a server is running on this data directory but has not said where it listens (it predates this version): restart it, or send the file to its API (POST /v1/public/config/apply?prune=true)');
  }
  const key = await accounts.createKey(
    {
      account: principal.account.id,
      scopes: ['checks:read', 'checks:write', 'checks:delete', 'alerts:read', 'alerts:write'],
      expiresAt: new Date(systemClock.now() + HAND_OFF_KEY_MS).toISOString(),
      name: 'vigil apply (handed to the running server)',
    },
    { actor: CLI_ACTOR },
    { beyondAllowance: true },
  );
  try {
    const { plan, applied, created } = await applyThroughServer(served.listenUrl, key.key, value, prune);
    return { plan: plan as ApplyResult['plan'], applied, created: created as ApplyResult['created'] };
  } finally {
    await accounts.revokeKey(key.id, { actor: CLI_ACTOR });
  }
}

/** A monitoring file's text: a path, or - for standard input. */
function readFileArgument(path: string): string {
  try {
    return readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/**
 * `vigil export` and `vigil apply`: the services wired over the CLI's store as the server wires
 * them (a change made here reaches a running server on its next read, as with the Kuma import).
 */
type HandOff = (principal: Principal, value: MonitoringFileInput, prune: boolean) => Promise<ApplyResult>;

async function withAsCode(
  input: ConfigInput,
  run: (asCode: MonitoringAsCode, principalOf: (account: string) => Promise<Principal>, handOff: HandOff) => Promise<number>,
): Promise<number> {
  const store = await openBeside(input);
  const config = await cliConfig(input, store);
  const log = createLogger('silent');
  const writer = new BatchWriter(store, log);
  const alerts = new AlertsModule({ store, writer, mailer: new Mailer(input), clock: systemClock, config, log });
  const accounts = new AccountsService(store, config, systemClock);
  try {
    const asCode = new MonitoringAsCode({
      store,
      checks: cliChecks(store, config),
      webhooks: alerts.webhooks,
      email: alerts.email,
      statusPages: new StatusPagesService(store, store.statusPages, config, systemClock),
      maintenanceWindows: new MaintenanceWindowsService(store, systemClock),
      config,
    });
    const principalOf = async (account: string): Promise<Principal> => ({
      kind: 'api_key', credentialId: 'cli', account: await accounts.findAccount(account), scopes: SCOPES, access: null, key: null, actor: CLI_ACTOR,
    });
    return await run(asCode, principalOf, (principal, value, prune) => applyThroughRunningServer(store, accounts, principal, value, prune));
  } finally {
    await alerts.stop();
    writer.close();
    await store.close();
  }
}

/** `vigil import kuma`: the services wired over the store as the server wires them, without starting anything. */
async function importKuma(input: ConfigInput, file: string, options: { account: string; dryRun: boolean; paused: boolean; withHistory: boolean }): Promise<number> {
  let kuma;
  try {
    kuma = readKumaDatabase(file, { heartbeats: options.withHistory });
  } catch (err) {
    if (err instanceof NotKumaDatabase) throw new UsageError(err.message);
    throw err;
  }
  const store = await openBeside(input);
  const config = await cliConfig(input, store);
  const log = createLogger('silent');
  const writer = new BatchWriter(store, log);
  const alerts = new AlertsModule({ store, writer, mailer: new Mailer(input), clock: systemClock, config, log });
  try {
    const account = await new AccountsService(store, config, systemClock).findAccount(options.account);
    const principal: Principal = { kind: 'api_key', credentialId: 'cli', account, scopes: SCOPES, access: null, key: null, actor: CLI_ACTOR };
    const importer = new KumaImporter({
      store,
      checks: cliChecks(store, config),
      webhooks: alerts.webhooks,
      email: alerts.email,
      statusPages: new StatusPagesService(store, store.statusPages, config, systemClock),
      windows: new MaintenanceWindowsService(store, systemClock),
      imports: store.kumaImports,
      recorder: new Recorder({ writer }),
      config,
      clock: systemClock,
    });
    const report = await importer.run(principal, kuma, options);
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return 0;
  } finally {
    await alerts.stop();
    writer.close();
    await store.close();
  }
}

/** `vigil store migrate`: the data directory locked (no server on it), its database copied into PostgreSQL. */
async function migrateStore(configFile: string | undefined, url: string, batch: number | undefined): Promise<number> {
  const input = readConfig(configFile);
  if (input.dataDir === ':memory:') throw new UsageError('store migrate copies the SQLite database in dataDir, and dataDir is :memory:');
  const lock = lockDataDir(input.dataDir);
  const source = openDatabase(input.dataDir);
  const target = new PgDb(url, { max: 2 });
  try {
    const report = await copySqliteToPostgres(source, input.dataDir, target, {
      batch,
      progress: (line) => process.stderr.write(`vigil: ${line}\n`),
    }).catch((err: unknown) => {
      // A target that is not empty is the wrong --to: bad input, nothing written (exit 2).
      if (err instanceof MigrateRefused) throw new UsageError(err.message);
      throw err instanceof StartupError ? err : unreachable(url, err);
    });
    process.stdout.write(`${JSON.stringify(report)}\n`);
    process.stderr.write(`vigil: set store.url (VIGIL_DATABASE_URL) to this database and start vigil serve: it continues where this data directory stopped\n`);
    return 0;
  } finally {
    await target.close().catch(() => {});
    source.close();
    lock.release();
  }
}

async function serve(configFile: string | undefined): Promise<number> {
  const input = readConfig(configFile);
  // One server per data directory (several centrals share a PostgreSQL store: no lock then).
  // Referenced until the process ends: a collected connection would let the lock go.
  const onDisk = input.dataDir !== ':memory:' && input.store.url === null;
  const found = onDisk ? noteDataDir(input.dataDir) : null;
  const lock = onDisk ? lockDataDir(input.dataDir) : null;
  let app: VigilApp<Store>;
  try {
    app = await VigilApp.open(input);
  } catch (err) {
    lock?.release();
    found?.undoIfFresh();
    throw err;
  }
  // Handlers first: a signal that arrives while starting still shuts down cleanly.
  let starting: Promise<unknown> = Promise.resolve();
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down');
    starting
      .catch(() => {})
      .then(() => app.stop())
      .then(() => lock?.release())
      .then(
        () => process.exit(0),
        (err: unknown) => {
          app.log.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('unhandledRejection', (err) => app.log.error({ err }, 'unhandled rejection'));

  // Bind first: a start that cannot listen must not create (and so lose) the one-time admin key.
  starting = app.start();
  let url: string;
  try {
    ({ url } = (await starting) as { url: string });
  } catch (err) {
    // A start that fails (a busy port) leaves the directory as a clean stop does: the database
    // closed (no -wal, -shm), the lock released and vigil.pid gone.
    await app.stop().catch(() => {});
    lock?.release();
    // A fresh data directory: nothing behind at all.
    found?.undoIfFresh();
    throw err;
  }
  // The CLI beside this server prints URLs with the port it really serves on, and hands it an apply that deletes checks.
  await app.store.served.record({ ...app.config, listenUrl: reachableUrl(input.server.host, new URL(url).port) });
  collectStartupGarbage();
  const admin = await app.bootstrapAdmin();
  if (admin) {
    process.stdout.write(
      `\nCreated account admin@localhost (tier pro) with an API key holding every scope.\n` +
        `Admin API key (shown once, store it now): ${admin.key}\n` +
        `Try: curl -H "X-Api-Key: ${admin.key}" ${app.config.publicUrl}/v1/public/account\n` +
        `Dashboard sign-in link (one use, valid 15 minutes; later: vigil login-link): ${(await app.services.people.sessions.createLoginLink(undefined)).url}\n\n`,
    );
  }
  // Logged last: whoever waits for this line finds the admin key already printed. It is part of
  // the CLI's contract (decisions §2), so a quieter log level does not hide it.
  if (app.log.isLevelEnabled('info')) app.log.info({ url, publicUrl: app.config.publicUrl }, `Vigil listening on ${url}`);
  else process.stdout.write(`Vigil listening on ${url}\n`);
  return new Promise<number>(() => {});
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    // An ApiError of 5xx is a failure (exit 1), not invalid input.
    const badInput = err instanceof UsageError || err instanceof ConfigError || (err instanceof ApiError && err.status < 500) || err instanceof BackupRefused;
    const expected = badInput || err instanceof StartupError;
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`vigil: ${expected ? message : `unexpected error: ${message}`}\n`);
    process.exit(badInput ? 2 : 1);
  },
);
