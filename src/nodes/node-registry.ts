import { randomBytes } from 'node:crypto';
import type { Clock } from '../domain/clock.js';
import { errors } from '../domain/errors.js';
import { hashSecret, newId } from '../domain/secrets.js';
import type { NodeRow, NodeRepo } from '../store/node-repo.js';
import type { Store } from '../store/store.js';
import { AuditLog, type AuditSource } from '../core/audit-log.js';
import { ADMIN_EMAIL } from '../core/accounts-service.js';

export const NODE_TOKEN_PREFIX = 'vigil_node_';
export const NODE_TOKEN_PATTERN = /^vigil_node_[0-9a-f]{64}$/;
/** Region labels as the spec shows them (`vps-eu-1`): lower-case letters, digits and dashes. */
export const REGION_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
/** A node offset further than this from the central's clock is a warning (log and node list). */
export const CLOCK_WARNING_MS = 2_000;
/** A node the server has not heard from this long is not shown connected (the server may have died). */
const SILENT_MS = 60_000;

export interface CreatedNode {
  id: string;
  name: string;
  region: string;
  /** Shown once; only its hash is kept. */
  token: string;
}

/** `vigil node list`: the registry and what the running server last reported. */
export interface NodeListing {
  id: string;
  name: string;
  region: string;
  revoked: boolean;
  connected: boolean;
  lastSeenAt: string | null;
  version: string | null;
  assignedChecks: number;
  probesPerSecond: number;
  outboxDepth: number;
  clockOffsetMs: number | null;
  clockWarning: boolean;
  rejectedResults: number;
  droppedResults: number;
}

/**
 * Who changes nodes, and where it is recorded. Nodes belong to the server, not to an account:
 * their `node.create` and `node.revoke` entries go to the audit log of the first start's admin
 * account (the operator's), in the unit of work of the change.
 */
export interface NodeChanges {
  store: Pick<Store, 'transaction' | 'accounts' | 'audit'>;
  source: AuditSource;
}

/** Creating, listing and revoking prober nodes (the CLI is its adapter). */
export class NodeRegistry {
  constructor(
    private readonly nodes: NodeRepo,
    /** The central's own region: its checks run on the central, so no node may join it. */
    private readonly centralRegion: string,
    private readonly clock: Clock,
    /** Omitted where nothing changes nodes (the server authenticates them only). */
    private readonly changes?: NodeChanges,
  ) {}

  async create(input: { region: string; name?: string }): Promise<CreatedNode> {
    const region = input.region.trim();
    if (!REGION_PATTERN.test(region)) {
      throw errors.badRequest(`region must be lower-case letters, digits and dashes, e.g. vps-us-1 (got "${input.region}")`);
    }
    if (region === this.centralRegion) {
      throw errors.badRequest(`region ${region} is the central's own region; a node serves another region`);
    }
    const name = (input.name ?? '').trim() || region;
    if (name.length > 200) throw errors.badRequest('name must be at most 200 characters');
    const id = newId('nod');
    const token = NODE_TOKEN_PREFIX + randomBytes(32).toString('hex');
    await this.recorded('node.create', { id, name }, ['name', 'region'], async () => {
      await this.nodes.insert({ id, name, region, createdAt: this.clock.now(), revokedAt: null }, hashSecret(token));
    });
    return { id, name, region, token };
  }

  async list(): Promise<NodeListing[]> {
    const now = this.clock.now();
    return (await this.nodes.list()).map((n) => listing(n, now));
  }

  async revoke(id: string): Promise<{ id: string; status: 'revoked' }> {
    const node = await this.nodes.byId(id);
    if (!node) throw errors.notFound(`no node ${id}`);
    await this.recorded('node.revoke', node, ['revokedAt'], async () => {
      await this.nodes.revoke(id, this.clock.now());
    });
    return { id, status: 'revoked' };
  }

  private async recorded(action: string, node: { id: string; name: string }, fields: string[], write: () => Promise<void>): Promise<void> {
    const changes = this.changes;
    if (!changes) return write();
    await changes.store.transaction(async () => {
      await write();
      const operator = await changes.store.accounts.byEmail(ADMIN_EMAIL);
      if (operator) await new AuditLog(changes.store, this.clock).record(changes.source, operator.id, action, { kind: 'node', id: node.id, name: node.name }, fields);
    });
  }

  /** The node a token belongs to, or null (unknown, malformed or revoked). */
  async authenticate(token: string): Promise<{ id: string; region: string; name: string } | null> {
    if (!NODE_TOKEN_PATTERN.test(token)) return null;
    const node = await this.nodes.byTokenHash(hashSecret(token));
    if (!node || node.revokedAt !== null) return null;
    return { id: node.id, region: node.region, name: node.name };
  }
}

function listing(n: NodeRow, now: number): NodeListing {
  return {
    id: n.id,
    name: n.name,
    region: n.region,
    revoked: n.revokedAt !== null,
    connected: n.connected && n.revokedAt === null && n.lastSeenAt !== null && now - n.lastSeenAt < SILENT_MS,
    lastSeenAt: n.lastSeenAt === null ? null : new Date(n.lastSeenAt).toISOString(),
    version: n.version,
    assignedChecks: n.assigned,
    probesPerSecond: Math.round(n.probesPerSecond * 100) / 100,
    outboxDepth: n.outboxDepth,
    clockOffsetMs: n.clockOffsetMs === null ? null : Math.round(n.clockOffsetMs),
    clockWarning: n.clockOffsetMs !== null && Math.abs(n.clockOffsetMs) > CLOCK_WARNING_MS,
    rejectedResults: n.rejectedResults,
    droppedResults: n.droppedResults,
  };
}
