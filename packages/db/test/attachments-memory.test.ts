/** Attachment streaming in bounded memory on SQLite (support/attachment-memory.ts). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { attachmentStreamingWithinMemory, SIZE } from './support/attachment-memory.js';

describe('attachment streaming memory (SQLite)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'divan-att-memory-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it(`a ${SIZE / 1024 / 1024} MiB upload and download grow the server's RSS by at most 32 MiB`, async (t) => {
    await attachmentStreamingWithinMemory(['--data', dataDir, '--admin', 'admin:secret'], (line) => t.diagnostic(line));
  });
});
