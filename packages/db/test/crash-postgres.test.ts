import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { acknowledgedWritesSurviveKill, nodeKilledMidIndexUpdate } from './support/crash.js';
import { acknowledgedAttachmentsSurviveKill } from './support/crash-attachments.js';
import { dropSchema, freshSchema, testPostgresUrl, nodeArgs } from './support/postgres.js';

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
    await acknowledgedWritesSurviveKill(nodeArgs(url, schema, dataDir));
  });

  it('a node killed mid-way through a view update: the other node finishes it, equal to a rebuild', async () => {
    if (url instanceof Error) throw url;
    await nodeKilledMidIndexUpdate((node) => nodeArgs(url, schema, join(dataDir, `node-${node}`)));
  });

  it('keeps every acknowledged attachment after SIGKILL of a node mid-upload', async () => {
    if (url instanceof Error) throw url;
    try {
      await acknowledgedAttachmentsSurviveKill(nodeArgs(url, `${schema}_atts`, join(dataDir, 'atts')));
    } finally {
      await dropSchema(url, `${schema}_atts`);
    }
  });
});
