/**
 * The `_users` database's document rules (couch_users_db and its `_design/_auth` validate
 * function): a `password` is replaced by PBKDF2 fields before storage, and every write — a server
 * admin's too — must pass CouchDB's checks, with CouchDB's messages. The hooks apply to `_users`
 * and to any database whose last path segment is `_users`.
 */
import { randomBytes } from 'node:crypto';
import { pbkdf2Limited } from '../auth/pbkdf2-pool.js';
import { CouchError } from '../errors.js';
import { JsonObject, type JsonValue } from '../json/index.js';
import { isAdmin, type UserCtx } from '../auth/authenticate.js';

export const USERS_DB = '_users';
export const USER_PREFIX = 'org.couchdb.user:';

export function userDocId(name: string): string {
  return USER_PREFIX + name;
}

export function isUsersDb(name: string): boolean {
  return name === USERS_DB || name.endsWith('/_users');
}

/** Members a new password replaces (the hash fields of the old one). */
const HASH_MEMBERS = new Set([
  'password',
  'password_sha',
  'derived_key',
  'salt',
  'iterations',
  'password_scheme',
  'pbkdf2_prf',
  'preserve_salt',
]);

/**
 * The body with its `password` turned into `password_scheme`, `pbkdf2_prf`, `salt`, `iterations`
 * and `derived_key` (in front, as CouchDB stores them), or undefined when there is nothing to hash.
 */
export async function hashUserPassword(body: JsonObject, iterations: number): Promise<JsonObject | undefined> {
  const password = body.get('password');
  if (password === undefined || password === null) return undefined;
  if (typeof password !== 'string') {
    throw new CouchError('forbidden', `Password value of '${erlangText(password)}' is invalid.`);
  }
  const given = body.get('salt');
  const salt =
    body.get('preserve_salt') === true && typeof given === 'string' ? given : randomBytes(16).toString('hex');
  const key = (await pbkdf2Limited(password, salt, iterations, 32, 'sha256')).toString('hex');
  const keys = ['password_scheme', 'pbkdf2_prf', 'salt', 'iterations', 'derived_key'];
  const values: JsonValue[] = ['pbkdf2', 'sha256', salt, iterations, key];
  body.keys.forEach((name, i) => {
    if (HASH_MEMBERS.has(name)) return;
    keys.push(name);
    values.push(body.values[i]!);
  });
  return new JsonObject(keys, values);
}

/** How CouchDB's error message prints a non-string password (numbers as they are, the rest as JSON). */
function erlangText(value: JsonValue): string {
  return typeof value === 'number' ? String(value) : JSON.stringify(value);
}

export interface UserDocWrite {
  /** The new document as validate functions see it (`_id`, `_deleted` included). */
  newDoc: Record<string, unknown>;
  oldDoc: Record<string, unknown> | null;
  user: UserCtx;
  /** The writer is a DB admin of this users database (server admins included). */
  dbAdmin: boolean;
}

/** `_design/_auth`'s validate_doc_update, natively; the first failing check wins. */
export function validateUserDoc({ newDoc, oldDoc, user, dbAdmin }: UserDocWrite): void {
  const forbid = (reason: string): never => {
    throw new CouchError('forbidden', reason);
  };
  if (newDoc._deleted === true) {
    if (isAdmin(user) || (user.name !== null && user.name === oldDoc?.name)) return;
    forbid('Only admins may delete other user docs.');
  }
  if (newDoc.type !== 'user') forbid('doc.type must be user');
  if (!newDoc.name) forbid('doc.name is required');
  if (newDoc.roles === undefined) forbid('doc.roles must exist');
  if (!Array.isArray(newDoc.roles)) forbid('doc.roles must be an array');
  const roles = newDoc.roles as unknown[];
  if (!roles.every((role) => typeof role === 'string')) forbid('doc.roles can only contain strings');
  if (newDoc._id !== USER_PREFIX + String(newDoc.name)) forbid('Doc ID must be of the form org.couchdb.user:name');
  if (newDoc.password_sha !== undefined && newDoc.salt === undefined) {
    forbid('Users with password_sha must have a salt.See /_utils/script/couch.js for example code.');
  }
  const scheme = newDoc.password_scheme;
  if (scheme !== undefined) {
    if (!['simple', 'pbkdf2', 'simple+pbkdf2'].includes(scheme as string)) {
      forbid(`Password scheme \`${String(scheme)}\` not supported.`);
    }
    if (scheme === 'pbkdf2') {
      if (typeof newDoc.iterations !== 'number') forbid('iterations must be a number.');
      if (typeof newDoc.derived_key !== 'string') forbid('derived_key must be a string.');
    }
  }
  if (!dbAdmin) {
    if (oldDoc !== null) {
      if (oldDoc.name !== user.name) forbid('You may only update your own user document.');
      const before = Array.isArray(oldDoc.roles) ? [...(oldDoc.roles as unknown[])].map(String).sort() : [];
      const after = roles.map(String).sort();
      if (before.length !== after.length || before.some((role, i) => role !== after[i])) {
        forbid('Only _admin may edit roles');
      }
    } else if (roles.length > 0) {
      forbid('Only _admin may set roles');
    }
  }
  for (const role of roles as string[]) {
    if (role.startsWith('_') && role !== '_metrics') forbid('No system roles (starting with underscore) in users db.');
  }
  const name = String(newDoc.name);
  if (name.startsWith('_')) forbid('Username may not start with underscore.');
  if (name.includes(':')) forbid('Character `:` is not allowed in usernames.');
}
