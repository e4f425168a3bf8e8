import { Type } from '@sinclair/typebox';
import { IsoDate } from './common.js';

/** Passkeys, single sign-on and email links: the sign-in ways beside the API key (issue 28). */

export const SignInMethodsResponse = Type.Object({
  data: Type.Object({
    passkey: Type.Boolean({ description: 'Passkeys can sign in here (the public URL is https or localhost)' }),
    oidc: Type.Union([
      Type.Object({ name: Type.String({ description: 'What the button says: "Sign in with <name>"' }), startUrl: Type.String() }),
      Type.Null(),
    ], { description: 'Single sign-on, when auth.oidc.issuer is set' }),
    emailLink: Type.Boolean({ description: 'A sign-in link can be emailed (SMTP is configured)' }),
  }),
});

/** What navigator.credentials returned, as JSON (@simplewebauthn/browser's shape). */
const Credential = (description: string) =>
  Type.Object(
    {
      id: Type.String({ minLength: 1, maxLength: 1400 }),
      rawId: Type.String({ minLength: 1, maxLength: 1400 }),
      type: Type.Literal('public-key'),
      response: Type.Object({ clientDataJSON: Type.String({ maxLength: 10_000 }) }, { additionalProperties: true }),
      clientExtensionResults: Type.Object({}, { additionalProperties: true }),
      authenticatorAttachment: Type.Optional(Type.String()),
    },
    { additionalProperties: true, description },
  );

export const PasskeySignInBody = Type.Object(
  { response: Credential('The assertion navigator.credentials.get() returned for the options of POST /sessions/passkey/options') },
  { additionalProperties: false },
);

const Options = (description: string) => Type.Object({ data: Type.Object({}, { additionalProperties: true, description }) });
export const PasskeySignInOptionsResponse = Options('PublicKeyCredentialRequestOptionsJSON for navigator.credentials.get(); good for 5 minutes, once');
export const PasskeyRegistrationOptionsResponse = Options('PublicKeyCredentialCreationOptionsJSON for navigator.credentials.create(); good for 5 minutes, once');

const PasskeyName = Type.String({ minLength: 1, maxLength: 100, description: 'A name to tell it apart ("laptop", "YubiKey")' });

export const PasskeyCreateBody = Type.Object(
  { name: PasskeyName, response: Credential('The attestation navigator.credentials.create() returned for the options of POST /passkeys/options') },
  { additionalProperties: false },
);
export const PasskeyPatchBody = Type.Object({ name: PasskeyName }, { additionalProperties: false });

export const Passkey = Type.Object({
  id: Type.String(),
  name: Type.String(),
  backedUp: Type.Boolean({ description: 'A synced (multi-device) passkey' }),
  transports: Type.Array(Type.String()),
  createdAt: IsoDate,
  lastUsedAt: Type.Union([IsoDate, Type.Null()]),
});
export const PasskeyResponse = Type.Object({ data: Passkey });
export const PasskeyListResponse = Type.Object({ data: Type.Array(Passkey) });

export const Identity = Type.Object({
  id: Type.String(),
  issuer: Type.String({ description: "The OpenID provider's issuer: with the provider's subject (kept, not shown), what single sign-on finds the member by" }),
  email: Type.Union([Type.String(), Type.Null()], { description: 'The address the provider gave at the last sign-in (not matched on)' }),
  createdAt: IsoDate,
  lastUsedAt: Type.Union([IsoDate, Type.Null()]),
});
export const IdentityListResponse = Type.Object({ data: Type.Array(Identity) });
export const IdentityLinkResponse = Type.Object({
  data: Type.Object({ location: Type.String({ description: "The provider's authorization URL: open it in this browser (the answer set the flow's cookie)" }) }),
});

export const EmailLinkBody = Type.Object(
  { email: Type.String({ minLength: 3, maxLength: 254, description: "A member's email address" }) },
  { additionalProperties: false },
);
export const EmailLinkRedeemBody = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 200, description: 'The token of the emailed link (after #email-login=)' }) },
  { additionalProperties: false },
);
export const EmailLinkResponse = Type.Object({ data: Type.Object({ sent: Type.Literal(true), expiresInMinutes: Type.Integer() }) });

export const OidcStartQuery = Type.Object(
  { return: Type.Optional(Type.String({ maxLength: 210, description: 'A dashboard hash route (#/…) to land on afterwards' })) },
  { additionalProperties: false },
);
export const OidcCallbackQuery = Type.Object({}, { additionalProperties: true });
