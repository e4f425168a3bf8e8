import type { Clock } from '../domain/clock.js';
import { errors } from '../domain/errors.js';
import { roleAtLeast } from '../domain/people.js';
import type { SessionRow } from '../store/session-store.js';
import type { Store } from '../store/store.js';
import type { AuditLog } from '../core/audit-log.js';
import { requireRole, type Principal } from '../core/principal.js';

export interface SessionView {
  id: string;
  userId: string;
  method: string | null;
  address: string | null;
  userAgent: string | null;
  createdAt: string;
  expiresAt: string;
  current: boolean;
}

/**
 * A member's sessions (issue 28 item 3): listed and ended by the member themselves, and by owners
 * and admins for the members they may manage (an admin not for an owner).
 */
export class SessionList {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
  ) {}

  async list(principal: Principal, userId: string | undefined, currentId: string | null): Promise<SessionView[]> {
    const target = await this.whose(principal, userId);
    const rows = await this.store.sessions.listForUser(target, this.clock.now());
    return rows.map((s) => view(s, currentId));
  }

  async revoke(principal: Principal, sessionId: string): Promise<void> {
    const session = await this.store.sessions.byId(sessionId);
    if (!session || session.userId === null || session.accountId !== principal.account.id) throw errors.notFound(`no session ${sessionId}`);
    await this.whose(principal, session.userId);
    await this.store.transaction(async () => {
      await this.store.sessions.delete(session.id);
      await this.audit.record(principal, session.accountId, 'session.revoke', { kind: 'session', id: session.id, name: session.userId });
    });
  }

  /** The member whose sessions these are: oneself, or one the caller may manage. */
  private async whose(principal: Principal, userId: string | undefined): Promise<string> {
    const self = principal.user?.id;
    if (userId === undefined || userId === self) {
      if (!self) throw errors.badRequest('userId is needed: this credential is not a member');
      return self;
    }
    const mine = requireRole(principal, 'admin', "manage other members' sessions");
    const target = await this.store.users.byId(userId);
    if (!target || target.accountId !== principal.account.id) throw errors.notFound(`no member ${userId} in this account`);
    if (!roleAtLeast(mine, target.role)) throw errors.forbidden(`The ${mine} role cannot manage an ${target.role}'s sessions`);
    return target.id;
  }
}

function view(s: SessionRow, currentId: string | null): SessionView {
  return {
    id: s.id, userId: s.userId!, method: s.method, address: s.address, userAgent: s.userAgent,
    createdAt: new Date(s.createdAt).toISOString(), expiresAt: new Date(s.expiresAt).toISOString(), current: s.id === currentId,
  };
}
