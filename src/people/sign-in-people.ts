import type { OpenedSession, SignInClient } from './sessions-service.js';
import type { Principal } from '../core/principal.js';

/** A member as the sign-in ways beside the password see them (passkeys, single sign-on, email link). */
export interface Person {
  id: string;
  accountId: string;
  email: string;
  name: string | null;
  /** The client's address, when the person is the one making the request (the audit log's). */
  address?: string;
}

export type { SignInClient };

/**
 * The members model as passkeys, single sign-on and email links use it: find a person, create
 * one (single sign-on may), and end a sign-in with "create a session for this person".
 */
export interface SignInPeople {
  /** The person a principal is (a member's session), or null for any other credential. */
  of(principal: Principal): Promise<Person | null>;
  byId(id: string): Promise<Person | null>;
  byEmail(email: string): Promise<Person | null>;
  /** A new member of the account with this role (single sign-on's first sign-in). */
  create(accountId: string, email: string, name: string | null, role: string): Promise<Person>;
  /** Opens a session for the person; `method` names the way they signed in (`passkey`, `oidc`, `email_link`). */
  openSession(person: Person, method: string, client: SignInClient): Promise<OpenedSession>;
  /**
   * A sign-in the person's own credential failed (a known passkey that did not verify), for the
   * audit log; `fields` names what was refused where that tells more (single sign-on's claims).
   */
  signInFailed(person: Person, method: string, client: SignInClient, fields?: readonly string[]): Promise<void>;
  /** Runs `change` (store writes) and records it as the person's `action`, in one unit of work. */
  changed(person: Person, action: string, target: { kind: string; id: string; name: string }, fields: readonly string[], change: () => Promise<void>): Promise<void>;
}
