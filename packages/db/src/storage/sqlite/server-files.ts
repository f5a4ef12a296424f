/**
 * Server-level values of the SQLite engine: one small file each in the data folder (`admins.json`
 * holds the admins, readable and hand-editable like CouchDB's ini file). Written with a temp file,
 * fsync and rename, so a crash leaves the old value or the new one, never half of one; mode 0600.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

/** Keys are file names that can never be a database's file or journal. */
const KEY = /^[a-z][a-z0-9_-]*(\.[a-z0-9]+)?$/;

function pathOf(dir: string, key: string): string {
  if (!KEY.test(key) || key.endsWith('.sqlite')) throw new TypeError(`invalid server value key: ${key}`);
  return join(dir, key);
}

export function readServerFile(dir: string, key: string): string | undefined {
  try {
    return readFileSync(pathOf(dir, key), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

export function writeServerFile(dir: string, key: string, value: string): void {
  const file = pathOf(dir, key);
  mkdirSync(dir, { recursive: true });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeSync(fd, value);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  syncDirectory(dir);
}

export function deleteServerFile(dir: string, key: string): void {
  const file = pathOf(dir, key);
  try {
    rmSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  syncDirectory(dir);
}

/** The keys stored that start with `prefix`, sorted (a temporary file of a write under way is no key). */
export function listServerFiles(dir: string, prefix: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return names.filter((name) => name.startsWith(prefix) && KEY.test(name) && !name.endsWith('.sqlite')).sort();
}

/** Makes the rename durable; not every platform can open a directory, so failures are ignored. */
function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // best effort
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
