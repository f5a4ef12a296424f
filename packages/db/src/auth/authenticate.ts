/**
 * The user context of a request (`{name, roles}`) and the server-level checks on it; who is asking
 * is decided by authenticator.ts.
 */
import { CouchError } from '../errors.js';

export interface UserCtx {
  name: string | null;
  roles: string[];
}

export const ADMIN_ROLE = '_admin';

export function anonymous(): UserCtx {
  return { name: null, roles: [] };
}

export function isAdmin(user: UserCtx): boolean {
  return user.roles.includes(ADMIN_ROLE);
}

/** Server-level operations (`/_all_dbs`, creating or deleting databases, …). */
export function requireAdmin(user: UserCtx): void {
  if (!isAdmin(user)) throw new CouchError('unauthorized', 'You are not a server admin.');
}

/** CouchDB's role for monitoring: it reads `_stats`, `_system` and `_prometheus`, and nothing else. */
export const METRICS_ROLE = '_metrics';

/** `/_node/{node}/_stats`, `_system`, `_prometheus`: server admins and `_metrics` users. */
export function requireMetrics(user: UserCtx): void {
  if (!isAdmin(user) && !user.roles.includes(METRICS_ROLE)) {
    throw new CouchError('unauthorized', 'You are not a server admin or read-only metrics user');
  }
}
