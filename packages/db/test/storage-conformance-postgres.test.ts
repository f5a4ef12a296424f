import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { openPostgresStorage } from '../src/storage/postgres/postgres-storage.js';
import { storageConformance } from './storage-conformance.js';
import { accessRowsConformance } from './storage-conformance-access.js';
import { dropSchema, forgetStaleCount, freshSchema, terminateLockHolder, testPostgresUrl } from './support/postgres.js';
import { makeTempDir } from './support/tmp-dir.js';

const url = testPostgresUrl();

if (url instanceof Error) {
  it('storage conformance: PostgreSQL', () => {
    throw url;
  });
} else {
  const schema = freshSchema('conformance');
  const { dir } = makeTempDir('divan-conformance-pg-');
  let nodes = 0;
  storageConformance('PostgreSQL', {
    open: async () => openPostgresStorage({ url, schema, cacheDir: join(dir, 'node-a') }),
    openOtherNode: async () => openPostgresStorage({ url, schema, cacheDir: join(dir, `node-${++nodes}`) }),
    killLockHolder: (db, signature) => terminateLockHolder(url, schema, db, signature),
    forgetStaleCount: (db) => forgetStaleCount(url, schema, db),
    cleanup: async () => {
      await dropSchema(url, schema);
      rmSync(dir, { recursive: true, force: true });
    },
  });
  const accessSchema = freshSchema('conformance_access');
  const access = makeTempDir('divan-conformance-access-pg-');
  accessRowsConformance('PostgreSQL', {
    open: async () => openPostgresStorage({ url, schema: accessSchema, cacheDir: access.dir }),
    cleanup: async () => {
      await dropSchema(url, accessSchema);
      rmSync(access.dir, { recursive: true, force: true });
    },
  });
}
