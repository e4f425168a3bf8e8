import type { Principal } from '../core/principal.js';
import type { Account } from '../domain/records.js';
import { scopesOfRole, type User } from '../domain/people.js';

/**
 * What a member's session may do: their role's scopes, on the whole account (roles do not
 * restrict to checks or folders). Built from the rows read on each request, so a changed role
 * or a removal counts at once.
 */
export function userPrincipal(account: Account, user: User, sessionId: string): Principal {
  return {
    kind: 'session',
    credentialId: sessionId,
    account,
    scopes: scopesOfRole(user.role),
    access: null,
    key: null,
    user: { id: user.id, email: user.email, name: user.name, role: user.role },
  };
}
