import { randomBytes } from 'node:crypto';
import {
  generateAuthenticationOptions, generateRegistrationOptions, verifyAuthenticationResponse, verifyRegistrationResponse,
  type AuthenticationResponseJSON, type PublicKeyCredentialCreationOptionsJSON, type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Clock } from '../domain/clock.js';
import { errors } from '../domain/errors.js';
import { hashSecret } from '../domain/secrets.js';
import type { PasskeyRepo, PasskeyRow } from '../store/passkey-store.js';
import type { OpenedSession } from './sessions-service.js';
import type { RelyingParty } from './relying-party.js';
import type { Person, SignInClient, SignInPeople } from './sign-in-people.js';

/** How long a ceremony's challenge is good for (the browser's own timeout is the same). */
export const PASSKEY_CHALLENGE_MS = 5 * 60 * 1000;
export const MAX_PASSKEYS = 20;
const REGISTER = 'passkey.register';
const SIGN_IN = 'passkey.sign_in';
const SIGN_IN_FAILED = 'This passkey is not registered here, or the sign-in took too long; try again';

export interface PasskeyView {
  id: string;
  name: string;
  backedUp: boolean;
  transports: string[];
  createdAt: string;
  lastUsedAt: string | null;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

const passkeyTarget = (p: PasskeyRow) => ({ kind: 'passkey', id: p.id, name: p.name });

export function passkeyView(p: PasskeyRow): PasskeyView {
  return { id: p.id, name: p.name, backedUp: p.backedUp, transports: p.transports, createdAt: iso(p.createdAt)!, lastUsedAt: iso(p.lastUsedAt) };
}

/**
 * Passkeys (WebAuthn, issue 28) with @simplewebauthn/server: a member registers several and signs
 * in with any of them, without a password. Each ceremony's challenge is kept by its hash, good for
 * one use within PASSKEY_CHALLENGE_MS, and found again from the challenge the browser signed.
 * Passkeys are discoverable and user-verified (the authenticator's PIN or biometric), so signing in
 * asks for nothing else and no account name is revealed before it.
 */
export class PasskeysService {
  constructor(
    private readonly deps: { repo: PasskeyRepo; people: SignInPeople; clock: Clock; rp: RelyingParty },
  ) {}

  async list(person: Person): Promise<PasskeyView[]> {
    return (await this.deps.repo.listForUser(person.id)).map(passkeyView);
  }

  async registrationOptions(person: Person): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const { repo, rp } = this.deps;
    const existing = await repo.listForUser(person.id);
    if (existing.length >= MAX_PASSKEYS) throw errors.conflict(`A member may register at most ${MAX_PASSKEYS} passkeys; remove one first`);
    const options = await generateRegistrationOptions({
      rpName: rp.name,
      rpID: rp.id,
      userName: person.email,
      userDisplayName: person.name ?? person.email,
      userID: new TextEncoder().encode(person.id),
      attestationType: 'none',
      excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      timeout: PASSKEY_CHALLENGE_MS,
    });
    await this.remember(options.challenge, REGISTER, person.id);
    return options;
  }

  async register(person: Person, name: string, response: RegistrationResponseJSON): Promise<PasskeyView> {
    const { repo, rp, clock } = this.deps;
    const challenge = await this.take(response, REGISTER);
    if (!challenge || challenge.userId !== person.id) throw errors.badRequest('The passkey registration is unknown, used or expired; start again');
    const verified = await verifyRegistrationResponse({
      response, expectedChallenge: challenge.value, expectedOrigin: rp.origins, expectedRPID: rp.id, requireUserVerification: true,
    }).catch((err: Error) => {
      throw errors.badRequest(`The passkey could not be verified: ${err.message}`);
    });
    if (!verified.verified) throw errors.badRequest('The passkey could not be verified');
    const { credential, credentialBackedUp } = verified.registrationInfo;
    if (await repo.byCredentialId(credential.id)) throw errors.conflict('This passkey is already registered');
    const row: PasskeyRow = {
      id: `pk_${randomBytes(10).toString('hex')}`, userId: person.id, credentialId: credential.id,
      publicKey: Buffer.from(credential.publicKey), counter: credential.counter, transports: credential.transports ?? response.response.transports ?? [],
      name, backedUp: credentialBackedUp, createdAt: clock.now(), lastUsedAt: null,
    };
    await this.deps.people.changed(person, 'member.passkey_add', passkeyTarget(row), ['passkey', 'name'], async () => {
      await repo.insert(row);
    });
    return passkeyView(row);
  }

  async rename(person: Person, id: string, name: string): Promise<PasskeyView> {
    await this.deps.people.changed(person, 'member.passkey_rename', { kind: 'passkey', id, name }, ['name'], async () => {
      if (!(await this.deps.repo.rename(id, person.id, name))) throw errors.notFound(`No passkey ${id}`);
    });
    const row = (await this.deps.repo.listForUser(person.id)).find((p) => p.id === id)!;
    return passkeyView(row);
  }

  async remove(person: Person, id: string): Promise<void> {
    const row = (await this.deps.repo.listForUser(person.id)).find((p) => p.id === id);
    if (!row) throw errors.notFound(`No passkey ${id}`);
    await this.deps.people.changed(person, 'member.passkey_remove', passkeyTarget(row), ['passkey'], async () => {
      if (!(await this.deps.repo.delete(id, person.id))) throw errors.notFound(`No passkey ${id}`);
    });
  }

  async signInOptions(): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const options = await generateAuthenticationOptions({ rpID: this.deps.rp.id, userVerification: 'required', timeout: PASSKEY_CHALLENGE_MS });
    await this.remember(options.challenge, SIGN_IN, null);
    return options;
  }

  async signIn(response: AuthenticationResponseJSON, client: SignInClient): Promise<{ session: OpenedSession; person: Person }> {
    const { repo, rp, clock, people } = this.deps;
    const challenge = await this.take(response, SIGN_IN);
    const passkey = challenge ? await repo.byCredentialId(response.id) : null;
    const person = passkey ? await people.byId(passkey.userId) : null;
    const fail = () => errors.unauthorized(SIGN_IN_FAILED, 'Passkey');
    if (!challenge || !passkey || !person) throw fail();
    // A discoverable credential names its member: it must be the passkey's.
    const handle = response.response.userHandle;
    if (handle !== undefined && Buffer.from(handle, 'base64url').toString('utf8') !== person.id) throw fail();
    const verified = await verifyAuthenticationResponse({
      response, expectedChallenge: challenge.value, expectedOrigin: rp.origins, expectedRPID: rp.id, requireUserVerification: true,
      credential: { id: passkey.credentialId, publicKey: new Uint8Array(passkey.publicKey), counter: passkey.counter, transports: passkey.transports },
    }).catch(() => ({ verified: false, authenticationInfo: null }));
    if (!verified.verified || !verified.authenticationInfo) {
      await people.signInFailed(person, 'passkey', client);
      throw fail();
    }
    await repo.recordUse(passkey.id, verified.authenticationInfo.newCounter, clock.now());
    return { session: await people.openSession(person, 'passkey', client), person };
  }

  async pruneChallenges(): Promise<number> {
    return this.deps.repo.pruneChallenges(this.deps.clock.now());
  }

  private async remember(challenge: string, purpose: string, userId: string | null): Promise<void> {
    const now = this.deps.clock.now();
    await this.deps.repo.insertChallenge({ hash: hashSecret(challenge), purpose, userId, data: '{}', createdAt: now, expiresAt: now + PASSKEY_CHALLENGE_MS });
  }

  /** The challenge the browser signed, taken from the store (once), or null. */
  private async take(response: { response: { clientDataJSON: string } }, purpose: string): Promise<{ value: string; userId: string | null } | null> {
    let value: unknown;
    try {
      value = (JSON.parse(Buffer.from(response.response.clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown }).challenge;
    } catch {
      return null;
    }
    if (typeof value !== 'string' || value.length === 0 || value.length > 200) return null;
    const row = await this.deps.repo.takeChallenge(hashSecret(value), purpose, this.deps.clock.now());
    return row ? { value, userId: row.userId } : null;
  }
}
