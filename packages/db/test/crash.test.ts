import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { acknowledgedWritesSurviveKill } from './support/crash.js';
import { acknowledgedAttachmentsSurviveKill } from './support/crash-attachments.js';

describe('crash safety (SQLite)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'divan-crash-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps every acknowledged write after SIGKILL mid-load', async () => {
    await acknowledgedWritesSurviveKill(['--data', dataDir, '--admin', 'admin:secret']);
  });

  it('keeps every acknowledged attachment after SIGKILL mid-upload', async () => {
    await acknowledgedAttachmentsSurviveKill(['--data', join(dataDir, 'atts'), '--admin', 'admin:secret']);
  });
});
