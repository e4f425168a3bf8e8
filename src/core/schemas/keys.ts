import { Type } from '@sinclair/typebox';
import { IsoDate, StringEnum } from './common.js';
import { SCOPES } from '../../domain/records.js';

/** The API keys API (spec 5.3: keys are created and revoked in the dashboard): request and response shapes. */

export const CreateKeyBody = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 100, description: 'A label to tell keys apart' })),
    scopes: Type.Optional(Type.Array(StringEnum(SCOPES), { maxItems: SCOPES.length, description: 'Default ["checks:read"]' })),
    checkIds: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
      minItems: 1, maxItems: 500, description: 'Restrict the key to these checks of the account (with folders: either)',
    })),
    folders: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
      minItems: 1, maxItems: 100, description: 'Restrict the key to checks in these folders (with checkIds: either)',
    })),
    expiresAt: Type.Optional(Type.String({ minLength: 1, maxLength: 40, description: 'ISO 8601, in the future: the key stops working then' })),
  },
  { additionalProperties: false, $id: 'CreateApiKey' },
);

export const ApiKeyObject = Type.Object(
  {
    id: Type.String(),
    name: Type.Union([Type.String(), Type.Null()]),
    status: StringEnum(['active', 'disabled', 'expired', 'revoked'] as const),
    scopes: Type.Array(StringEnum(SCOPES)),
    access: Type.Union([Type.Object({ checkIds: Type.Array(Type.String()), folders: Type.Array(Type.String()) }), Type.Null()]),
    expiresAt: Type.Union([IsoDate, Type.Null()]),
    createdAt: IsoDate,
    current: Type.Boolean({ description: 'The key this request is authenticated with (revoking it ends the session)' }),
  },
  { $id: 'ApiKey' },
);

export const ApiKeyListResponse = Type.Object({ data: Type.Array(ApiKeyObject), meta: Type.Object({ total: Type.Integer() }) });
export const CreatedKeyResponse = Type.Object({
  data: Type.Object({ ...ApiKeyObject.properties, key: Type.String({ description: 'The secret: shown this once, never again' }) }),
});

export type CreateKeyInput = (typeof CreateKeyBody)['static'];
