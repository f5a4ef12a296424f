/**
 * Database names to file names. Every character a valid name holds (../db-names.ts) but `/` is
 * safe in a file name, and `%` cannot occur in a name, so `/` → `%2F` is injective.
 */
import { isValidDbName } from '../db-names.js';

const SUFFIX = '.sqlite';

export function fileNameOf(name: string): string {
  return name.replaceAll('/', '%2F') + SUFFIX;
}

/** The database name a file holds, or undefined for any other file (journals, strays). */
export function dbNameOf(fileName: string): string | undefined {
  if (!fileName.endsWith(SUFFIX)) return undefined;
  const name = fileName.slice(0, -SUFFIX.length).replaceAll('%2F', '/');
  return isValidDbName(name) && fileNameOf(name) === fileName ? name : undefined;
}
