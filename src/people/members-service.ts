import { randomBytes } from 'node:crypto';
import type { Mail } from '../alerts/delivery/mailer.js';
import type { Config } from '../config.js';
import type { Clock } from '../domain/clock.js';
import { errors } from '../domain/errors.js';
import { newUser, ROLES, roleAtLeast, type Actor, type Role, type User } from '../domain/people.js';
import type { Account } from '../domain/records.js';
import { hashSecret, newId } from '../domain/secrets.js';
import type { Store } from '../store/store.js';
import { AccountsService } from '../core/accounts-service.js';
import { actorOf, type AuditLog, type AuditSource } from '../core/audit-log.js';
import { invitationEmail } from './invitation-email.js';
import { requireRole, type Principal } from '../core/principal.js';

export const SETUP_LINK_HOURS = 24;
const SETUP_TOKEN = /^vu_[A-Za-z0-9_-]{43}$/;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** A member as the API and the CLI show them (never their secrets). */
export interface MemberView {
  id: string;
  accountId: string;
  email: string;
  name: string | null;
  role: Role;
  /** Whether they have set a password, turned TOTP on, and how many passkeys they have. */
  password: boolean;
  totp: boolean;
  passkeys: number;
  createdAt: string;
}

export interface Invited {
  member: MemberView;
  /** The one-time set-up link: in the answer unless it was emailed. */
  setupUrl: string | null;
  invitation: 'emailed' | 'link';
  setupExpiresAt: string;
}

export interface MailSender {
  configured: boolean;
  send(mail: Mail): Promise<void>;
}

export function memberView(u: User, passkeys: number): MemberView {
  return {
    id: u.id, accountId: u.accountId, email: u.email, name: u.name, role: u.role,
    password: u.passwordHash !== null, totp: u.totpEnabledAt !== null, passkeys, createdAt: new Date(u.createdAt).toISOString(),
  };
}

export function parseRole(raw: string): Role {
  if (!(ROLES as readonly string[]).includes(raw)) throw errors.badRequest(`role must be one of ${ROLES.join(', ')}`);
  return raw as Role;
}

/**
 * Members of an account (issue 28 item 1): only owners and admins manage them, nobody gives a
 * role above their own or touches a member above them, and an account keeps at least one owner.
 * The CLI (the server's operator) may do all of it, the last-owner rule included.
 */
export class MembersService {
  constructor(
    private readonly store: Store,
    private readonly config: Config,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
    private readonly mailer: MailSender,
  ) {}

  async list(principal: Principal): Promise<MemberView[]> {
    requireRole(principal, 'admin', 'list members');
    return this.views(await this.store.users.list(principal.account.id));
  }

  async invite(principal: Principal, input: { email: string; role: string; name?: string }): Promise<Invited> {
    const mine = requireRole(principal, 'admin', 'invite members');
    const role = parseRole(input.role);
    if (!roleAtLeast(mine, role)) throw errors.forbidden(`The ${mine} role cannot make anyone ${role}`);
    const created = await this.create(principal, principal.account, input.email, role, input.name ?? null);
    return this.sendInvitation(principal, created);
  }

  /**
   * A new set-up link for a member who has not set up a way to sign in yet (their invitation was
   * lost or expired): the links sent before stop working, and it is emailed like an invitation.
   */
  async resendInvitation(principal: Principal, id: string): Promise<Invited> {
    const mine = requireRole(principal, 'admin', 'send set-up links');
    const target = await this.memberOf(principal, id);
    if (!roleAtLeast(mine, target.role)) throw errors.forbidden(`The ${mine} role cannot send a set-up link to an ${target.role}`);
    const created = await this.store.transaction(async () => {
      const user = await this.store.users.byId(target.id);
      if (!user) throw errors.notFound(`no member ${id} in this account`);
      const member = await this.view(user);
      if (member.password || member.passkeys > 0) throw errors.conflict(`${user.email} has already set up their sign-in; they can reset it from the sign-in page`);
      await this.store.users.retireSetupLinks(user.id, this.clock.now());
      const link = await this.setupLink(user);
      await this.audit.record(principal, user.accountId, 'member.setup_link', { kind: 'member', id: user.id, name: user.email });
      return { member, setupUrl: link.url as string | null, setupExpiresAt: new Date(link.expiresAt).toISOString() };
    });
    return this.sendInvitation(principal, created);
  }

  private async sendInvitation(principal: Principal, created: Omit<Invited, 'invitation'>): Promise<Invited> {
    if (!this.mailer.configured) return { ...created, invitation: 'link' };
    try {
      await this.mailer.send(invitationEmail({
        to: created.member.email, accountEmail: principal.account.email, role: created.member.role, invitedBy: actorOf(principal).name,
        setupUrl: created.setupUrl!, validHours: SETUP_LINK_HOURS,
      }));
      return { ...created, setupUrl: null, invitation: 'emailed' };
    } catch {
      // The member exists either way: whoever invited them can pass the link on.
      return { ...created, invitation: 'link' };
    }
  }

  private async view(user: User): Promise<MemberView> {
    return memberView(user, (await this.store.passkeys.listForUser(user.id)).length);
  }

  private async views(users: readonly User[]): Promise<MemberView[]> {
    const out: MemberView[] = [];
    for (const u of users) out.push(await this.view(u));
    return out;
  }

  async changeRole(principal: Principal, id: string, rawRole: string): Promise<MemberView> {
    const mine = requireRole(principal, 'admin', 'change roles');
    const role = parseRole(rawRole);
    const target = await this.memberOf(principal, id);
    if (!roleAtLeast(mine, target.role)) throw errors.forbidden(`The ${mine} role cannot change the role of an ${target.role}`);
    if (!roleAtLeast(mine, role)) throw errors.forbidden(`The ${mine} role cannot make anyone ${role}`);
    return this.view(await this.setRole(principal, target, role));
  }

  async remove(principal: Principal, id: string): Promise<void> {
    const mine = requireRole(principal, 'admin', 'remove members');
    const target = await this.memberOf(principal, id);
    if (!roleAtLeast(mine, target.role)) throw errors.forbidden(`The ${mine} role cannot remove an ${target.role}`);
    await this.delete(principal, target);
  }

  /** `vigil user create`: a member of any account, with the set-up link printed. */
  async createUser(input: { account: string; email: string; role: string; name?: string }, actor: Actor): Promise<MemberView & { setupUrl: string }> {
    const role = parseRole(input.role);
    const account = await new AccountsService(this.store, this.config, this.clock).findAccount(input.account);
    const created = await this.create({ actor }, account, input.email, role, input.name ?? null);
    return { ...created.member, setupUrl: created.setupUrl! };
  }

  /** `vigil user list`. */
  async listUsers(account?: string): Promise<MemberView[]> {
    const id = account === undefined ? null : (await new AccountsService(this.store, this.config, this.clock).findAccount(account)).id;
    return this.views(await this.store.users.list(id));
  }

  /** `vigil user remove`: the last owner stays (the account would have nobody to manage it). */
  async removeUser(id: string, actor: Actor): Promise<void> {
    const user = await this.store.users.byId(id);
    if (!user) throw errors.notFound(`no user ${id}`);
    await this.delete({ actor }, user);
  }

  /** A new one-time set-up link for a member (invitations; a forgotten password through an admin). */
  async setupLink(user: User): Promise<{ url: string; expiresAt: number }> {
    const token = `vu_${randomBytes(32).toString('base64url')}`;
    const now = this.clock.now();
    const expiresAt = now + SETUP_LINK_HOURS * 60 * 60 * 1000;
    await this.store.users.insertSetupLink(hashSecret(token), user.id, now, expiresAt);
    // In the fragment, like login links: browsers never send it to servers, proxies or logs.
    return { url: `${this.config.dashboardUrl}#setup=${token}`, expiresAt };
  }

  /** The member a set-up token names, using the token up; null when unknown, used or expired. */
  async redeemSetupToken(token: string): Promise<User | null> {
    if (!SETUP_TOKEN.test(token)) return null;
    const userId = await this.store.users.redeemSetupLink(hashSecret(token), this.clock.now());
    return userId === null ? null : this.store.users.byId(userId);
  }

  private async create(source: AuditSource, account: Account, rawEmail: string, role: Role, name: string | null) {
    const email = rawEmail.trim().toLowerCase();
    if (!EMAIL.test(email) || email.length > 254) throw errors.badRequest(`invalid email address: ${rawEmail}`);
    if (name !== null && name.length > 100) throw errors.badRequest('name must be at most 100 characters');
    return await this.store.transaction(async () => {
      if (await this.store.users.byEmail(email)) throw errors.conflict(`${email} is already a member of an account`);
      const user = this.newUser(account.id, email, role, name);
      await this.store.users.insert(user);
      const link = await this.setupLink(user);
      await this.audit.record(source, account.id, 'member.create', { kind: 'member', id: user.id, name: email }, name ? ['email', 'role', 'name'] : ['email', 'role']);
      return { member: memberView(user, 0), setupUrl: link.url as string | null, setupExpiresAt: new Date(link.expiresAt).toISOString() };
    });
  }

  private async setRole(source: AuditSource, read: User, role: Role): Promise<User> {
    return await this.store.transaction(async () => {
      const now = this.clock.now();
      const target = await this.store.users.byId(read.id);
      if (!target) throw errors.notFound(`no member ${read.id}`);
      if (target.role === 'owner' && role !== 'owner' && (await this.store.users.countOwners(target.accountId)) <= 1) {
        throw errors.conflict('An account keeps at least one owner: make someone else owner first');
      }
      if (target.role === role) return target;
      await this.store.users.setRole(target.id, role, now);
      await this.audit.record(source, target.accountId, 'member.role_change', { kind: 'member', id: target.id, name: target.email }, ['role']);
      return { ...target, role, updatedAt: now };
    });
  }

  private async delete(source: AuditSource, read: User): Promise<void> {
    await this.store.transaction(async () => {
      const target = await this.store.users.byId(read.id);
      if (!target) throw errors.notFound(`no member ${read.id}`);
      if (target.role === 'owner' && (await this.store.users.countOwners(target.accountId)) <= 1) {
        throw errors.conflict('An account keeps at least one owner: make someone else owner before removing this one');
      }
      await this.store.users.delete(target.id);
      await this.audit.record(source, target.accountId, 'member.remove', { kind: 'member', id: target.id, name: target.email });
    });
  }

  private async memberOf(principal: Principal, id: string): Promise<User> {
    const user = await this.store.users.byId(id);
    if (!user || user.accountId !== principal.account.id) throw errors.notFound(`no member ${id} in this account`);
    return user;
  }

  private newUser(accountId: string, email: string, role: Role, name: string | null): User {
    return newUser(newId('usr'), accountId, email, role, name, this.clock.now());
  }
}
