/** Attachment streaming in bounded memory on PostgreSQL (support/attachment-memory.ts). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { attachmentStreamingWithinMemory, SIZE } from './support/attachment-memory.js';
import { dropSchema, freshSchema, testPostgresUrl, nodeArgs } from './support/postgres.js';

describe('attachment streaming memory (PostgreSQL)', () => {
  const url = testPostgresUrl();
  const schema = freshSchema('attmem');
  const dataDir = mkdtempSync(join(tmpdir(), 'divan-att-memory-pg-'));
  after(async () => {
    rmSync(dataDir, { recursive: true, force: true });
    if (!(url instanceof Error)) await dropSchema(url, schema);
  });

  it(`a ${SIZE / 1024 / 1024} MiB upload and download grow the node's RSS by at most 32 MiB`, async (t) => {
    if (url instanceof Error) throw url;
    await attachmentStreamingWithinMemory(nodeArgs(url, schema, dataDir), (line) => t.diagnostic(line));
  });
});
