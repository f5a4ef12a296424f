/**
 * The SQLite engine's attachment tables: chunks go in under a key the attachment's row names
 * (never renamed), an upload cut by a crash leaves chunks that the next open removes, and files
 * whose attachments kept their chunks under the digest (before `attachment_data`) still read.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { openSqliteStorage } from '../src/storage/sqlite/sqlite-storage.js';
import { makeTempDir } from './support/tmp-dir.js';

async function collect(bytes: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of bytes) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

describe('sqlite engine: attachment tables', () => {
  it('an upload cut by a crash leaves chunks the next open removes; stored attachments stay', async () => {
    const { dir } = makeTempDir('divan-sqlite-att-');
    const storage = openSqliteStorage({ dir });
    const db = await storage.create('a');
    const bytes = Buffer.alloc(600 * 1024, 5);
    const info = await db.putAttachment([bytes]);
    await storage.close();
    // What a process killed mid-upload leaves: chunks, and the upload listed, but no row.
    const file = new Database(join(dir, 'a.sqlite'));
    file.prepare("INSERT INTO attachment_uploads (key) VALUES ('cut')").run();
    file.prepare("INSERT INTO attachment_data (key, n, data) VALUES ('cut', 0, x'00')").run();
    file.close();
    const again = openSqliteStorage({ dir });
    const reopened = (await again.open('a'))!;
    const check = new Database(join(dir, 'a.sqlite'), { readonly: true });
    assert.equal(check.prepare("SELECT count(*) FROM attachment_data WHERE key = 'cut'").pluck().get(), 0);
    assert.equal(check.prepare('SELECT count(*) FROM attachment_uploads').pluck().get(), 0);
    check.close();
    assert.deepEqual(await collect(reopened.readAttachment(info.digest)), bytes);
    await again.close();
  });

  it('attachments stored under their digest in attachment_chunks (older files) read and delete', async () => {
    const { dir } = makeTempDir('divan-sqlite-att-');
    const storage = openSqliteStorage({ dir });
    await storage.create('old');
    await storage.close();
    const file = new Database(join(dir, 'old.sqlite'));
    file.prepare("INSERT INTO attachments (digest, length) VALUES ('md5-old', 3)").run();
    file.prepare("INSERT INTO attachment_chunks (digest, n, data) VALUES ('md5-old', 0, x'616263')").run();
    file.close();
    const again = openSqliteStorage({ dir });
    const db = (await again.open('old'))!;
    assert.equal((await collect(db.readAttachment('md5-old', 1))).toString(), 'bc');
    await db.deleteAttachments(['md5-old']);
    assert.equal(await db.attachmentInfo('md5-old'), undefined);
    await again.close();
    const check = new Database(join(dir, 'old.sqlite'), { readonly: true });
    assert.equal(check.prepare('SELECT count(*) FROM attachment_chunks').pluck().get(), 0);
    check.close();
  });
});
