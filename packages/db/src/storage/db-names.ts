/**
 * CouchDB's database-name rule (couch_db:validate_dbname), the one place it is written: the
 * HTTP layer checks a name in the path with it, and each engine refuses to create any other.
 */
import { CouchError } from '../errors.js';

/** The system databases a CouchDB server knows; other names starting with `_` are refused. */
const SYSTEM_DBS = new Set(['_users', '_replicator', '_global_changes']);
const NAME = /^[a-z][a-z0-9_$()+/-]*$/;
const MAX_SEGMENT = 238;

/** Whether `name` may name a database: a system database's, or CouchDB's lowercase pattern. */
export function isValidDbName(name: string): boolean {
  return SYSTEM_DBS.has(name) || NAME.test(name);
}

/** CouchDB's answer to a name that does not match (`isValidDbName`). */
export function illegalDbName(name: string): CouchError {
  return new CouchError(
    'illegal_database_name',
    `Name: '${name}'. Only lowercase characters (a-z), digits (0-9), and any of the characters _, $, (, ), +, -, and / are allowed. Must begin with a letter.`,
  );
}

/** Throws CouchDB's error unless `name` is valid and none of its `/`-separated segments is too long. */
export function validateDbName(name: string): void {
  if (!isValidDbName(name)) throw illegalDbName(name);
  if (name.split('/').some((segment) => segment.length > MAX_SEGMENT)) {
    throw new CouchError('database_name_too_long', `At least one path segment of \`${name}\` is too long.`);
  }
}
