import { Type } from '@sinclair/typebox';
import { Plan, TIERS } from '../../domain/plans.js';
import { SCOPES } from '../../domain/records.js';
import { StringEnum } from './common.js';

const Access = Type.Object({ checkIds: Type.Array(Type.String()), folders: Type.Array(Type.String()) });

export const AccountResponse = Type.Object({
  data: Type.Object(
    {
      tier: StringEnum(TIERS),
      scopes: Type.Array(StringEnum(SCOPES)),
      key: Type.Union([
        Type.Object({ expiresAt: Type.Union([Type.Number(), Type.Null()]), access: Type.Union([Access, Type.Null()]) }),
        Type.Null(),
      ]),
      limits: Plan,
      usage: Type.Object({ checks: Type.Number(), webhooks: Type.Number() }),
      alerts: Type.Object({ emailConfigured: Type.Boolean(), emailEnabled: Type.Boolean(), webhookCount: Type.Number() }),
      dashboardUrl: Type.String(),
      upgradeUrl: Type.Union([Type.String(), Type.Null()]),
      claimed: Type.Optional(Type.Literal(false)),
      claimHint: Type.Optional(Type.String()),
    },
    { $id: 'Account' },
  ),
});
