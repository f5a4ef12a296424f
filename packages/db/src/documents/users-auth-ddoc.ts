/**
 * `_design/_auth` of the users database: CouchDB creates it with its `validate_doc_update`, and
 * tools read it there. Divan applies those rules natively (`validateUserDoc` in users-db.ts, the
 * same checks and messages), so the stored function is what users read, and the sandbox skips it
 * while it is this very source; one edited by an admin runs like any other.
 */
import { fromPlain } from '../json/plain.js';
import type { Database } from './database.js';

export const AUTH_DDOC_ID = '_design/_auth';

/** The checks of `validateUserDoc`, as a validate function (ES5, for any reader). */
export const AUTH_VALIDATE_SOURCE = `function (newDoc, oldDoc, userCtx, secObj) {
  function forbid(reason) { throw { forbidden: reason }; }
  var isServerAdmin = userCtx.roles.indexOf('_admin') !== -1;
  if (newDoc._deleted === true) {
    if (isServerAdmin || (userCtx.name !== null && oldDoc && userCtx.name === oldDoc.name)) return;
    forbid('Only admins may delete other user docs.');
  }
  if (newDoc.type !== 'user') forbid('doc.type must be user');
  if (!newDoc.name) forbid('doc.name is required');
  if (newDoc.roles === undefined) forbid('doc.roles must exist');
  if (!Array.isArray(newDoc.roles)) forbid('doc.roles must be an array');
  var roles = newDoc.roles;
  for (var r = 0; r < roles.length; r++) {
    if (typeof roles[r] !== 'string') forbid('doc.roles can only contain strings');
  }
  if (newDoc._id !== 'org.couchdb.user:' + newDoc.name) forbid('Doc ID must be of the form org.couchdb.user:name');
  if (oldDoc && oldDoc.name !== newDoc.name) forbid('Usernames can not be changed.');
  if (newDoc.password_sha && !newDoc.salt) {
    forbid('Users with password_sha must have a salt.See /_utils/script/couch.js for example code.');
  }
  var scheme = newDoc.password_scheme;
  if (scheme !== undefined) {
    if (['simple', 'pbkdf2', 'simple+pbkdf2'].indexOf(scheme) === -1) forbid('Password scheme \`' + scheme + '\` not supported.');
    if (scheme === 'pbkdf2') {
      if (typeof newDoc.iterations !== 'number') forbid('iterations must be a number.');
      if (typeof newDoc.derived_key !== 'string') forbid('derived_key must be a string.');
    }
  }
  var admins = (secObj && secObj.admins) || {};
  var dbAdmin = isServerAdmin || (admins.names || []).indexOf(userCtx.name) !== -1 ||
    userCtx.roles.some(function (role) { return (admins.roles || []).indexOf(role) !== -1; });
  if (!dbAdmin) {
    if (oldDoc) {
      if (oldDoc.name !== userCtx.name) forbid('You may only update your own user document.');
      var before = (oldDoc.roles || []).slice().sort();
      var after = roles.slice().sort();
      if (before.length !== after.length) forbid('Only _admin may edit roles');
      for (var i = 0; i < before.length; i++) if (before[i] !== after[i]) forbid('Only _admin may edit roles');
    } else if (roles.length > 0) {
      forbid('Only _admin may set roles');
    }
  }
  for (var j = 0; j < roles.length; j++) {
    if (roles[j].charAt(0) === '_' && roles[j] !== '_metrics') forbid('No system roles (starting with underscore) in users db.');
  }
  if (String(newDoc.name).charAt(0) === '_') forbid('Username may not start with underscore.');
  if (String(newDoc.name).indexOf(':') !== -1) forbid('Character \`:\` is not allowed in usernames.');
}`;

/** Stores `_design/_auth` in a users database that has none (or only a deleted one), as CouchDB does. */
export async function ensureAuthDdoc(db: Database): Promise<void> {
  if ((await db.designRecords()).some((record) => record.id === AUTH_DDOC_ID)) return;
  try {
    const ddoc = { _id: AUTH_DDOC_ID, language: 'javascript', validate_doc_update: AUTH_VALIDATE_SOURCE };
    await db.bulkDocs([fromPlain(ddoc)], true);
  } catch {
    // Another node stored it first, or the write is refused for a reason the next start retries.
  }
}
