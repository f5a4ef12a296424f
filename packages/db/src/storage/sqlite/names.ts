/**
 * Database names to file names. A name matches `^[a-z][a-z0-9_$()+/-]*$`; every character but
 * `/` is safe in a file name, and `%` cannot occur in a name, so `/` → `%2F` is injective.
 */

// System databases (`_users`, ...) are the only names starting with an underscore.
const NAME = /^(?:_users|_replicator|_global_changes|[a-z][a-z0-9_$()+/-]*)$/;
const SUFFIX = '.sqlite';

export function isValidDbName(name: string): boolean {
  return NAME.test(name);
}

export function fileNameOf(name: string): string {
  return name.replaceAll('/', '%2F') + SUFFIX;
}

/** The database name a file holds, or undefined for any other file (journals, strays). */
export function dbNameOf(fileName: string): string | undefined {
  if (!fileName.endsWith(SUFFIX)) return undefined;
  const name = fileName.slice(0, -SUFFIX.length).replaceAll('%2F', '/');
  return isValidDbName(name) && fileNameOf(name) === fileName ? name : undefined;
}
