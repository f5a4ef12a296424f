import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { fileNameOf } from '../src/storage/sqlite/file-names.js';
import { openSqliteStorage } from '../src/storage/sqlite/sqlite-storage.js';
import { storageConformance } from './storage-conformance.js';
import { accessRowsConformance } from './storage-conformance-access.js';
import { makeTempDir } from './support/tmp-dir.js';

const { dir } = makeTempDir('divan-conformance-');

storageConformance('SQLite', {
  open: async () => openSqliteStorage({ dir }),
  cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  // As schema version 2 left a file: no `stale` in `meta`.
  forgetStaleCount: async (db) => {
    const file = new Database(join(dir, fileNameOf(db)));
    file.prepare("DELETE FROM meta WHERE key = 'stale'").run();
    file.pragma('user_version = 2');
    file.close();
  },
});

const access = makeTempDir('divan-conformance-access-');
accessRowsConformance('SQLite', {
  open: async () => openSqliteStorage({ dir: access.dir }),
  cleanup: async () => rmSync(access.dir, { recursive: true, force: true }),
});
