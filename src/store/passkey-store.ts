
/** A passkey (WebAuthn credential) a member registered (issue 28). */
export interface PasskeyRow {
  /** Vigil's id (`pk_…`), what the API and dashboard name it by. */
  id: string;
  userId: string;
  /** The authenticator's credential id, base64url (what the browser sends back at sign-in). */
  credentialId: string;
  /** The COSE public key, as the authenticator gave it. */
  publicKey: Buffer;
  /** The signature counter last seen (0 for authenticators that keep none). */
  counter: number;
  /** usb, nfc, ble, internal, hybrid…: hints for the browser at sign-in. */
  transports: string[];
  /** A name the member chose ("YubiKey 5", "laptop"). */
  name: string;
  /** Whether the credential may be synced to other devices (a multi-device passkey). */
  backedUp: boolean;
  createdAt: number;
  lastUsedAt: number | null;
}

/**
 * What a sign-in ceremony must remember between its two requests: a WebAuthn challenge, or the
 * state, nonce and PKCE verifier of a single sign-on. Keyed by the hash of a random value the
 * client holds; taken once (a second take finds nothing) and only before it expires.
 */
export interface AuthChallengeRow {
  hash: Buffer;
  /** What it is for: `passkey.register`, `passkey.sign_in`, `oidc`. */
  purpose: string;
  /** The member it was issued to (registration), or null (sign-in, before anyone is known). */
  userId: string | null;
  /** What the second step needs, as JSON (the challenge itself, a PKCE verifier…). */
  data: string;
  createdAt: number;
  expiresAt: number;
}

export interface PasskeyRepo {
  insert(row: PasskeyRow): Promise<void>;
  /** A member's passkeys, oldest first. */
  listForUser(userId: string): Promise<PasskeyRow[]>;
  byCredentialId(credentialId: string): Promise<PasskeyRow | null>;
  /** Renames the member's passkey; false when the member has no passkey of that id. */
  rename(id: string, userId: string, name: string): Promise<boolean>;
  /** Removes the member's passkey; false when the member has no passkey of that id. */
  delete(id: string, userId: string): Promise<boolean>;
  /** After a sign-in with it: the new signature counter and when. */
  recordUse(id: string, counter: number, at: number): Promise<void>;
  insertChallenge(row: AuthChallengeRow): Promise<void>;
  /**
   * Removes and returns the challenge of this hash and purpose if it has not expired at `now`,
   * else null: one statement, so two requests racing with one challenge cannot both have it.
   */
  takeChallenge(hash: Buffer, purpose: string, now: number): Promise<AuthChallengeRow | null>;
  /** Deletes challenges expired at `now`; returns how many. */
  pruneChallenges(now: number): Promise<number>;
}
