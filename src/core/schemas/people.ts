import { Type } from '@sinclair/typebox';
import { ROLES } from '../../domain/people.js';
import { IsoDate, StringEnum } from './common.js';

const Role = StringEnum(ROLES, { description: 'owner: everything; admin: everything but owners and deleting the account; editor: checks, folders, tags, maintenance, status pages, reads alert settings; viewer: reads only' });

export const Member = Type.Object({
  id: Type.String(),
  accountId: Type.String(),
  email: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  role: Role,
  password: Type.Boolean({ description: 'Whether the member has set a password' }),
  totp: Type.Boolean({ description: 'Whether two-factor sign-in with TOTP is on' }),
  passkeys: Type.Integer({ minimum: 0, description: 'How many passkeys the member signs in with' }),
  createdAt: IsoDate,
});

export const MemberListResponse = Type.Object({ data: Type.Array(Member), meta: Type.Object({ total: Type.Integer() }) });
export const MemberResponse = Type.Object({ data: Member });

export const InviteBody = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 254 }),
    role: Role,
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false },
);

export const InvitedResponse = Type.Object({
  data: Type.Intersect([
    Member,
    Type.Object({
      invitation: StringEnum(['emailed', 'link'] as const, { description: 'emailed: the set-up link went to the member by email; link: it is in setupUrl, to pass on' }),
      setupUrl: Type.Union([Type.String(), Type.Null()], { description: 'The one-time set-up link (24 h) unless it was emailed' }),
      setupExpiresAt: IsoDate,
    }),
  ]),
});

export const RoleBody = Type.Object({ role: Role }, { additionalProperties: false });

export const PasswordSetupBody = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 200, description: 'The token of the set-up link (after #setup=)' }),
    password: Type.String({ minLength: 1, maxLength: 1000 }),
  },
  { additionalProperties: false },
);

export const PasswordChangeBody = Type.Object(
  {
    currentPassword: Type.Optional(Type.String({ maxLength: 1000, description: 'Needed once the member has a password' })),
    newPassword: Type.String({ minLength: 1, maxLength: 1000 }),
  },
  { additionalProperties: false },
);

export const TotpStatusResponse = Type.Object({ data: Type.Object({ enabled: Type.Boolean(), recoveryCodesLeft: Type.Integer() }) });
export const TotpEnrolmentResponse = Type.Object({
  data: Type.Object({
    secret: Type.String({ description: 'Base32, for typing into an authenticator app' }),
    uri: Type.String({ description: 'otpauth:// URI' }),
    qr: Type.String({ description: 'The URI as an SVG QR code (data URL)' }),
  }),
});
export const TotpCodeBody = Type.Object({ code: Type.String({ minLength: 1, maxLength: 20 }) }, { additionalProperties: false });
export const RecoveryCodesResponse = Type.Object({ data: Type.Object({ recoveryCodes: Type.Array(Type.String(), { description: 'Ten one-time codes, shown this once' }) }) });
export const TotpDisableBody = Type.Object(
  { password: Type.Optional(Type.String({ maxLength: 1000 })), code: Type.Optional(Type.String({ maxLength: 20 })) },
  { additionalProperties: false },
);

export const SessionRowView = Type.Object({
  id: Type.String(),
  userId: Type.String(),
  method: Type.Union([Type.String(), Type.Null()], { description: 'How it was opened: password, totp, recovery_code, setup_link, login_link, …' }),
  address: Type.Union([Type.String(), Type.Null()]),
  userAgent: Type.Union([Type.String(), Type.Null()]),
  createdAt: IsoDate,
  expiresAt: IsoDate,
  current: Type.Boolean(),
});
export const SessionListResponse = Type.Object({ data: Type.Array(SessionRowView), meta: Type.Object({ total: Type.Integer() }) });
export const SessionListQuery = Type.Object({ userId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) });

export const AuditQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'meta.cursor of the previous page' })),
  actor: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'An actor id (a member, key or token id; `cli`; `system`)' })),
  actorKind: Type.Optional(StringEnum(['user', 'key', 'agent', 'cli', 'system'] as const)),
  action: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'An action (`check.update`), or every action of a kind with its dot (`check.`)' })),
  target: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'A target id (a check, webhook, key, member, …)' })),
  from: Type.Optional(Type.String({ minLength: 1, maxLength: 40, description: 'ISO 8601, inclusive' })),
  to: Type.Optional(Type.String({ minLength: 1, maxLength: 40, description: 'ISO 8601, inclusive (a date alone: its whole day)' })),
});

export const AuditEntryView = Type.Object({
  id: Type.String({ description: 'The entry’s sequence number' }),
  at: IsoDate,
  actor: Type.Object({ kind: StringEnum(['user', 'key', 'agent', 'cli', 'system'] as const), id: Type.String(), name: Type.String() }),
  action: Type.String(),
  target: Type.Object({ kind: Type.String(), id: Type.Union([Type.String(), Type.Null()]), name: Type.Union([Type.String(), Type.Null()]) }),
  fields: Type.Array(Type.String(), { description: 'Names of the fields the change set; never their values' }),
  address: Type.Union([Type.String(), Type.Null()], { description: 'The client’s address' }),
});
export const AuditLogResponse = Type.Object({
  data: Type.Array(AuditEntryView),
  meta: Type.Object({ limit: Type.Integer(), cursor: Type.Union([Type.String(), Type.Null()]) }),
});
