import { it } from 'node:test';
import { openPostgresStorage } from '../src/storage/postgres/postgres-storage.js';
import { storageConformance } from './storage-conformance.js';
import { dropSchema, freshSchema, testPostgresUrl } from './support/postgres.js';

const url = testPostgresUrl();

if (url instanceof Error) {
  it('storage conformance: PostgreSQL', () => {
    throw url;
  });
} else {
  const schema = freshSchema('conformance');
  storageConformance('PostgreSQL', {
    open: async () => openPostgresStorage({ url, schema }),
    cleanup: async () => dropSchema(url, schema),
  });
}
