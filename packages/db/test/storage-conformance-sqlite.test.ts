import { rmSync } from 'node:fs';
import { openSqliteStorage } from '../src/storage/sqlite/sqlite-storage.js';
import { storageConformance } from './storage-conformance.js';
import { accessRowsConformance } from './storage-conformance-access.js';
import { makeTempDir } from './support/tmp-dir.js';

const { dir } = makeTempDir('divan-conformance-');

storageConformance('SQLite', {
  open: async () => openSqliteStorage({ dir }),
  cleanup: async () => rmSync(dir, { recursive: true, force: true }),
});

const access = makeTempDir('divan-conformance-access-');
accessRowsConformance('SQLite', {
  open: async () => openSqliteStorage({ dir: access.dir }),
  cleanup: async () => rmSync(access.dir, { recursive: true, force: true }),
});
