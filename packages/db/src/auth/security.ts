/**
 * A database's `_security` object and who it admits (CouchDB's couch_db:check_is_member /
 * check_is_admin): DB admins by name or role, members likewise; members whose names and roles are
 * both empty make the database public; `readers` stands in for a missing `members` (1.x); server
 * admins are always both. A database without a stored object is admin-only (CouchDB 3's
 * `default_security = admin_only`).
 */
import { CouchError } from '../errors.js';
import { ADMIN_ROLE, isAdmin, type UserCtx } from './authenticate.js';

export type SecurityObject = Record<string, unknown>;

/** CouchDB 3's default for a new database (and `_users`). */
export const DEFAULT_SECURITY: SecurityObject = { members: { roles: [ADMIN_ROLE] }, admins: { roles: [ADMIN_ROLE] } };

/** The stored object (text, as kept by storage) or the default. */
export function securityOf(stored: string | undefined): SecurityObject {
  return stored === undefined ? DEFAULT_SECURITY : (JSON.parse(stored) as SecurityObject);
}

interface Group {
  names: string[];
  roles: string[];
}

function groupOf(value: unknown): Group {
  const object = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const strings = (list: unknown) =>
    Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : [];
  return { names: strings(object.names), roles: strings(object.roles) };
}

function admits(user: UserCtx, group: Group): boolean {
  if (user.name !== null && group.names.includes(user.name)) return true;
  return user.roles.some((role) => group.roles.includes(role));
}

export function isDbAdmin(user: UserCtx, security: SecurityObject): boolean {
  return isAdmin(user) || admits(user, groupOf(security.admins));
}

export function isMember(user: UserCtx, security: SecurityObject): boolean {
  if (isDbAdmin(user, security)) return true;
  const members = groupOf(security.members ?? security.readers);
  if (members.names.length === 0 && members.roles.length === 0) return true; // public
  return admits(user, members);
}

/** Anonymous → 401, anyone else → 403, as CouchDB words them. */
export function requireMember(user: UserCtx, security: SecurityObject): void {
  if (isMember(user, security)) return;
  if (user.name === null) throw new CouchError('unauthorized', 'You are not authorized to access this db.');
  throw new CouchError('forbidden', 'You are not allowed to access this db.');
}

/** `_compact`, `_view_cleanup`: a 401 for every member that is not DB admin. */
export function requireDbAdminForMaintenance(user: UserCtx, security: SecurityObject): void {
  if (!isDbAdmin(user, security)) throw new CouchError('unauthorized', 'You are not a server or db admin.');
}

/** Design documents and `_security`: 401 for anonymous, 403 for a signed-in member. */
export function requireDbAdmin(user: UserCtx, security: SecurityObject): void {
  if (isDbAdmin(user, security)) return;
  throw new CouchError(user.name === null ? 'unauthorized' : 'forbidden', 'You are not a db or server admin.');
}

/** A `_security` body: an object whose groups are objects of string lists (CouchDB: 500, here 400). */
export function checkSecurityObject(value: unknown): asserts value is SecurityObject {
  const bad = (why: string) => new CouchError('bad_request', `Invalid security object: ${why}`);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad('it must be a JSON object');
  for (const key of ['admins', 'members', 'readers']) {
    const group = (value as Record<string, unknown>)[key];
    if (group === undefined) continue;
    if (typeof group !== 'object' || group === null || Array.isArray(group)) throw bad(`\`${key}\` must be an object`);
    for (const list of ['names', 'roles']) {
      const entries = (group as Record<string, unknown>)[list];
      if (entries === undefined) continue;
      if (!Array.isArray(entries) || !entries.every((x) => typeof x === 'string')) {
        throw bad(`\`${key}.${list}\` must be a list of strings`);
      }
    }
  }
}
