import { ErrorBody } from '../core/schemas/common.js';
import { SessionResponse } from '../core/schemas/dashboard.js';
import {
  AuditLogResponse, AuditQuery, InviteBody, InvitedResponse, MemberListResponse, MemberResponse, PasswordChangeBody, PasswordSetupBody, RecoveryCodesResponse, RoleBody,
  SessionListQuery, SessionListResponse, TotpCodeBody, TotpDisableBody, TotpEnrolmentResponse, TotpStatusResponse,
} from '../core/schemas/people.js';
import { sessionToken } from '../people/sessions-service.js';
import type { Invited } from '../people/members-service.js';
import { parseIsoBound } from '../core/iso-date.js';
import { errors } from '../domain/errors.js';
import type { AuditEntry } from '../store/people-store.js';
import { defineRoute, ok, type Route } from './http-types.js';
import { publicApi } from './route-presets.js';
import { clientOf, sessionOpened } from './dashboard-routes.js';
import type { People } from '../people/people.js';

const errorsFor = (...codes: number[]) => Object.fromEntries(codes.map((c) => [c, ErrorBody]));
// Roles decide (the services check them); no scope of its own, and never for a restricted key.
const base = { ...publicApi, allowRestricted: false, idempotency: 'none' } as const;
const MEMBERS = '/v1/public/members';
const NO_STORE = { 'Cache-Control': 'no-store' };

const invitedView = (invited: Invited) => ({ ...invited.member, invitation: invited.invitation, setupUrl: invited.setupUrl, setupExpiresAt: invited.setupExpiresAt });

/** Members, their set-up links, passwords, TOTP and sessions (issue 28). Handlers call the services only. */
export function peopleRoutes(p: People): Route[] {
  return [
    defineRoute({
      ...base, tag: 'members', method: 'GET', path: MEMBERS,
      summary: 'The account’s members and their roles (owners and admins, or a key with every scope)',
      responses: { 200: MemberListResponse, ...errorsFor(401, 403, 429) },
      handler: async ({ principal }) => {
        const data = await p.members.list(principal);
        return ok({ data, meta: { total: data.length } }, 200, NO_STORE);
      },
    }),
    defineRoute({
      ...base, tag: 'members', method: 'POST', path: MEMBERS,
      summary: 'Invite a member with a role: the one-time set-up link (24 h) is emailed when SMTP is configured, else it is in the answer',
      body: InviteBody,
      responses: { 201: InvitedResponse, ...errorsFor(400, 401, 403, 409, 429) },
      handler: async ({ principal, body }) => ok({ data: invitedView(await p.members.invite(principal, body)) }, 201, NO_STORE),
    }),
    defineRoute({
      ...base, tag: 'members', method: 'POST', path: `${MEMBERS}/:id/setup-link`,
      summary: 'A new one-time set-up link (24 h) for a member who has no password or passkey yet: earlier links stop working; emailed when SMTP is configured, else in the answer',
      responses: { 200: InvitedResponse, ...errorsFor(401, 403, 404, 409, 429) },
      handler: async ({ principal, params }) => ok({ data: invitedView(await p.members.resendInvitation(principal, params.id!)) }, 200, NO_STORE),
    }),
    defineRoute({
      ...base, tag: 'members', method: 'PATCH', path: `${MEMBERS}/:id`,
      summary: 'Change a member’s role (never above the caller’s own; an account keeps at least one owner); counts from their next request',
      body: RoleBody,
      responses: { 200: MemberResponse, ...errorsFor(400, 401, 403, 404, 409, 429) },
      handler: async ({ principal, params, body }) => ok({ data: await p.members.changeRole(principal, params.id!, body.role) }),
    }),
    defineRoute({
      ...base, tag: 'members', method: 'DELETE', path: `${MEMBERS}/:id`,
      summary: 'Remove a member: their sessions end at once (an account keeps at least one owner)',
      responses: { 204: null, ...errorsFor(401, 403, 404, 409, 429) },
      handler: async ({ principal, params }) => {
        await p.members.remove(principal, params.id!);
        return { status: 204 };
      },
    }),
    defineRoute({
      ...base, tag: 'members', method: 'GET', path: '/v1/public/audit-log',
      summary: 'Who changed what, newest first: owners and admins, or an unrestricted key with alerts:read; filters by actor, action, target and time',
      query: AuditQuery,
      responses: { 200: AuditLogResponse, ...errorsFor(400, 401, 403, 429) },
      handler: async ({ principal, query }) => {
        const limit = query.limit ?? 50;
        const rows = await p.audit.list(principal, {
          actorId: query.actor, actorKind: query.actorKind, action: query.action, targetId: query.target,
          from: bound(query.from, 'from'), to: bound(query.to, 'to'),
        }, { limit: limit + 1, beforeSeq: query.cursor === undefined ? null : seqOf(query.cursor) });
        const data = rows.slice(0, limit);
        const cursor = rows.length > limit ? Buffer.from(String(data[data.length - 1]!.seq)).toString('base64url') : null;
        return ok({ data: data.map(entryView), meta: { limit, cursor } }, 200, NO_STORE);
      },
    }),
    defineRoute({
      method: 'POST', path: '/v1/public/password-setup', tag: 'members',
      summary: 'Use a set-up link: sets the member’s password and signs them in (session cookie)',
      auth: 'none', allowRestricted: true, rateLimit: 'per-address', idempotency: 'none', errorShape: 'standard', bodyKind: 'json',
      body: PasswordSetupBody,
      responses: { 201: SessionResponse, ...errorsFor(400, 429) },
      handler: async ({ body, req }) => sessionOpened(p.sessions, await p.passwordSignIn.setUpPassword(body.token, body.password, clientOf(req))),
    }),
    defineRoute({
      ...base, tag: 'members', method: 'POST', path: '/v1/public/me/password',
      summary: 'Set or change the signed-in member’s password (the current one is needed once there is one)',
      body: PasswordChangeBody,
      responses: { 204: null, ...errorsFor(400, 401, 403, 429) },
      handler: async ({ principal, body }) => {
        await p.passwordSignIn.changePassword(principal, body);
        return { status: 204 };
      },
    }),
    defineRoute({
      ...base, tag: 'members', method: 'GET', path: '/v1/public/me/totp',
      summary: 'Whether two-factor sign-in (TOTP) is on, and how many recovery codes are left',
      responses: { 200: TotpStatusResponse, ...errorsFor(401, 403, 429) },
      handler: async ({ principal }) => ok({ data: await p.totp.status(principal) }, 200, NO_STORE),
    }),
    defineRoute({
      ...base, tag: 'members', method: 'POST', path: '/v1/public/me/totp',
      summary: 'Start TOTP enrolment: a new secret with its otpauth URI and QR code (on once confirmed with a code)',
      responses: { 200: TotpEnrolmentResponse, ...errorsFor(401, 403, 409, 429) },
      handler: async ({ principal }) => ok({ data: await p.totp.begin(principal) }, 200, NO_STORE),
    }),
    defineRoute({
      ...base, tag: 'members', method: 'POST', path: '/v1/public/me/totp/confirm',
      summary: 'Confirm TOTP with a current code: it is on from now, and ten one-time recovery codes are shown this once',
      body: TotpCodeBody,
      responses: { 200: RecoveryCodesResponse, ...errorsFor(400, 401, 403, 409, 429) },
      handler: async ({ principal, body }) => ok({ data: await p.totp.confirm(principal, body.code) }, 200, NO_STORE),
    }),
    defineRoute({
      ...base, tag: 'members', method: 'POST', path: '/v1/public/me/totp/disable',
      summary: 'Turn TOTP off, proved with the password or a current code; the recovery codes go too',
      body: TotpDisableBody,
      responses: { 204: null, ...errorsFor(400, 401, 403, 409, 429) },
      handler: async ({ principal, body }) => {
        await p.totp.disable(principal, body);
        return { status: 204 };
      },
    }),
    defineRoute({
      ...base, tag: 'members', method: 'GET', path: '/v1/public/sessions',
      summary: 'The signed-in member’s sessions, or (owners and admins) a member’s with ?userId=',
      query: SessionListQuery,
      responses: { 200: SessionListResponse, ...errorsFor(400, 401, 403, 404, 429) },
      handler: async ({ principal, query, req }) => {
        const data = await p.sessionList.list(principal, query.userId, await p.sessions.idOf(sessionToken(req.headers['cookie'])));
        return ok({ data, meta: { total: data.length } }, 200, NO_STORE);
      },
    }),
    defineRoute({
      ...base, tag: 'members', method: 'DELETE', path: '/v1/public/sessions/:id',
      summary: 'End one of the member’s sessions (owners and admins: of a member they manage); it is refused from the next request',
      responses: { 204: null, ...errorsFor(401, 403, 404, 429) },
      handler: async ({ principal, params }) => {
        await p.sessionList.revoke(principal, params.id!);
        return { status: 204 };
      },
    }),
  ];
}

function bound(value: string | undefined, which: 'from' | 'to'): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseIsoBound(value, which);
  if (Number.isNaN(ms)) throw errors.badRequest(`${which} must be an ISO 8601 date or date-time`);
  return ms;
}

function seqOf(cursor: string): number {
  const seq = Number(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!Number.isSafeInteger(seq) || seq < 1) throw errors.badRequest('cursor is malformed; pass meta.cursor from the previous response unchanged');
  return seq;
}

const entryView = (e: AuditEntry) => ({
  id: String(e.seq), at: new Date(e.at).toISOString(), actor: e.actor, action: e.action, target: e.target, fields: e.fields, address: e.address,
});
