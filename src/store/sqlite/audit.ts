import type { Actor } from '../../domain/people.js';
import type { Db } from '../db.js';
import type { AuditEntry, AuditRepo } from '../people-store.js';
import type { Synchronous } from '../synchronous.js';
import { StatementCache } from './statements.js';

interface AuditRowDb {
  seq: number;
  account_id: string;
  at: number;
  actor_kind: string;
  actor_id: string;
  actor_name: string;
  action: string;
  target_kind: string;
  target_id: string | null;
  target_name: string | null;
  fields: string;
  address: string | null;
}

const toEntry = (r: AuditRowDb): AuditEntry => ({
  seq: r.seq,
  accountId: r.account_id,
  at: r.at,
  actor: { kind: r.actor_kind as Actor['kind'], id: r.actor_id, name: r.actor_name },
  action: r.action,
  target: { kind: r.target_kind, id: r.target_id, name: r.target_name },
  fields: JSON.parse(r.fields) as string[],
  address: r.address,
});

export function sqliteAudit(db: Db): Synchronous<AuditRepo> {
  const insert = db.prepare(
    `INSERT INTO audit_log (account_id, at, actor_kind, actor_id, actor_name, action, target_kind, target_id, target_name, fields, address)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const prune = db.prepare('DELETE FROM audit_log WHERE at < ?');
  const statements = new StatementCache(db);
  return {
    append: (e) =>
      void insert.run(e.accountId, e.at, e.actor.kind, e.actor.id, e.actor.name, e.action, e.target.kind, e.target.id, e.target.name, JSON.stringify(e.fields), e.address),
    list(query, page) {
      const where = ['account_id = ?'];
      const args: unknown[] = [query.accountId];
      if (query.actorId !== undefined) (where.push('actor_id = ?'), args.push(query.actorId));
      if (query.actorKind !== undefined) (where.push('actor_kind = ?'), args.push(query.actorKind));
      if (query.action !== undefined) {
        if (query.action.endsWith('.')) (where.push('substr(action, 1, ?) = ?'), args.push(query.action.length, query.action));
        else (where.push('action = ?'), args.push(query.action));
      }
      if (query.targetId !== undefined) (where.push('target_id = ?'), args.push(query.targetId));
      if (query.from !== undefined) (where.push('at >= ?'), args.push(query.from));
      if (query.to !== undefined) (where.push('at <= ?'), args.push(query.to));
      if (page.beforeSeq !== null) (where.push('seq < ?'), args.push(page.beforeSeq));
      const sql = `SELECT * FROM audit_log WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT ?`;
      return (statements.get(sql).all(...args, page.limit) as AuditRowDb[]).map(toEntry);
    },
    deleteOlderThan: (cutoff) => prune.run(cutoff).changes,
  };
}
