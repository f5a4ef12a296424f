import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { acknowledgedWritesSurviveKill, nodeKilledMidIndexUpdate } from './support/crash.js';
import { acknowledgedAttachmentsSurviveKill } from './support/crash-attachments.js';
import { dropSchema, freshSchema, testPostgresUrl } from './support/postgres.js';

describe('crash safety (PostgreSQL)', () => {
  const url = testPostgresUrl();
  const schema = freshSchema('crash');
  const dataDir = mkdtempSync(join(tmpdir(), 'divan-crash-pg-'));
  after(async () => {
    rmSync(dataDir, { recursive: true, force: true });
    if (!(url instanceof Error)) await dropSchema(url, schema);
  });

  it('keeps every acknowledged write after SIGKILL of a node mid-load', async () => {
    if (url instanceof Error) throw url;
    const storage = new URL(url);
    storage.searchParams.set('schema', schema);
    await acknowledgedWritesSurviveKill([
      '--data',
      dataDir,
      '--admin',
      'admin:secret',
      '--storage',
      storage.toString(),
    ]);
  });

  it('a node killed mid-way through a view update: the other node finishes it, equal to a rebuild', async () => {
    if (url instanceof Error) throw url;
    const storage = new URL(url);
    storage.searchParams.set('schema', schema);
    await nodeKilledMidIndexUpdate((node) => [
      '--data',
      join(dataDir, `node-${node}`),
      '--admin',
      'admin:secret',
      '--storage',
      storage.toString(),
    ]);
  });

  it('keeps every acknowledged attachment after SIGKILL of a node mid-upload', async () => {
    if (url instanceof Error) throw url;
    const storage = new URL(url);
    storage.searchParams.set('schema', `${schema}_atts`);
    try {
      await acknowledgedAttachmentsSurviveKill([
        '--data',
        join(dataDir, 'atts'),
        '--admin',
        'admin:secret',
        '--storage',
        storage.toString(),
      ]);
    } finally {
      await dropSchema(url, `${schema}_atts`);
    }
  });
});
