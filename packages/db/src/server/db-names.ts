import { CouchError } from '../errors.js';

/** The system databases a CouchDB server knows; other names starting with `_` are refused. */
export const SYSTEM_DBS = new Set(['_users', '_replicator', '_global_changes']);

const NAME = /^[a-z][a-z0-9_$()+/-]*$/;
const MAX_SEGMENT = 238;

/** CouchDB's database name rules (couch_db:validate_dbname), for creating a database. */
export function validateDbName(name: string): void {
  if (SYSTEM_DBS.has(name)) return;
  if (!NAME.test(name)) {
    throw new CouchError(
      'illegal_database_name',
      `Name: '${name}'. Only lowercase characters (a-z), digits (0-9), and any of the characters _, $, (, ), +, -, and / are allowed. Must begin with a letter.`,
    );
  }
  if (name.split('/').some((segment) => segment.length > MAX_SEGMENT)) {
    throw new CouchError('database_name_too_long', `At least one path segment of \`${name}\` is too long.`);
  }
}
