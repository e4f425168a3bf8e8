
/**
 * A member's account at an OpenID provider (issue 34 item 3): the provider's `iss` and `sub`
 * name the person for good, whatever email address the provider gives later. One per member
 * per provider, and one member per (issuer, subject).
 */
export interface IdentityRow {
  /** Vigil's id (`idn_…`), what the API and dashboard name it by. */
  id: string;
  userId: string;
  issuer: string;
  subject: string;
  /** The address the provider gave at the last sign-in (shown to the member; never matched on). */
  email: string | null;
  createdAt: number;
  lastUsedAt: number | null;
}

export interface IdentityRepo {
  /**
   * Binds the identity; false (and nothing written) when the (issuer, subject) is bound already
   * or the member has one for that issuer: one statement, so two first sign-ins racing bind once.
   */
  insert(row: IdentityRow): Promise<boolean>;
  bySubject(issuer: string, subject: string): Promise<IdentityRow | null>;
  /** A member's identities, oldest first. */
  listForUser(userId: string): Promise<IdentityRow[]>;
  /** After a sign-in with it: when, and the address the provider gave. */
  recordUse(id: string, email: string | null, at: number): Promise<void>;
  /** Removes the member's identity; false when the member has none of that id. */
  delete(id: string, userId: string): Promise<boolean>;
}
