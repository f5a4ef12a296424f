/**
 * Who is asking: the user context of a request, from its Authorization header. Wrong credentials
 * are a 401 on every endpoint (even `/_up`), as in CouchDB; no credentials is anonymous — there is
 * no admin party.
 */
import { CouchError } from '../errors.js';
import type { AdminStore } from './admins.js';
import { parseAuthorization } from './basic.js';
import { LOCKED_REASON, type Lockout } from './lockout.js';

export interface UserCtx {
  name: string | null;
  roles: string[];
}

export const ADMIN_ROLE = '_admin';

export function anonymous(): UserCtx {
  return { name: null, roles: [] };
}

export function authenticate(
  authorization: string | undefined,
  remoteAddress: string,
  admins: AdminStore,
  lockout: Lockout,
): UserCtx {
  const credentials = parseAuthorization(authorization);
  if (credentials === null) return anonymous();
  const { name, password } = credentials;
  // Checked before the password so a locked account costs no PBKDF2 run.
  if (lockout.isLocked(name, remoteAddress)) throw new CouchError('forbidden', LOCKED_REASON);
  if (!admins.verify(name, password)) {
    lockout.recordFailure(name, remoteAddress);
    throw new CouchError('unauthorized', 'Name or password is incorrect.');
  }
  lockout.recordSuccess(name, remoteAddress);
  return { name, roles: [ADMIN_ROLE] };
}

export function isAdmin(user: UserCtx): boolean {
  return user.roles.includes(ADMIN_ROLE);
}

/** Server-level operations (`/_all_dbs`, creating or deleting databases, …). */
export function requireAdmin(user: UserCtx): void {
  if (!isAdmin(user)) throw new CouchError('unauthorized', 'You are not a server admin.');
}
