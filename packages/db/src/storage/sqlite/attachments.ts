/**
 * Attachment bytes in a database's SQLite file: chunks (attachment-chunks.ts) by digest and number, so an
 * attachment is neither held whole while it is stored nor read whole to serve a range. Chunks
 * arrive under a temporary key (the digest is known only at the end) and are renamed to their
 * digest in the transaction that adds the attachment's row; a crash in between leaves temporary
 * chunks, removed when the file is next opened.
 */
import { createHash, randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { chunkRange, fixedChunks } from '../attachment-chunks.js';
import type { AttachmentInfo, AttachmentSource, Page } from '../contract.js';

const TEMPORARY = 'tmp:';
const PAGE_ROWS = 256;

export class SqliteAttachments {
  private readonly insertChunk: Database.Statement;
  private readonly chunk: Database.Statement;
  private readonly info: Database.Statement;
  private readonly dropChunks: Database.Statement;
  private readonly dropInfo: Database.Statement;
  private readonly rename: Database.Statement;
  private readonly insertInfo: Database.Statement;
  private readonly page: Database.Statement;

  constructor(private readonly db: Database.Database) {
    this.insertChunk = db.prepare('INSERT INTO attachment_chunks (digest, n, data) VALUES (?, ?, ?)');
    this.chunk = db.prepare('SELECT data FROM attachment_chunks WHERE digest = ? AND n = ?').pluck();
    this.info = db.prepare('SELECT digest, length FROM attachments WHERE digest = ?');
    this.dropChunks = db.prepare('DELETE FROM attachment_chunks WHERE digest = ?');
    this.dropInfo = db.prepare('DELETE FROM attachments WHERE digest = ?');
    this.rename = db.prepare('UPDATE attachment_chunks SET digest = ? WHERE digest = ?');
    this.insertInfo = db.prepare('INSERT INTO attachments (digest, length) VALUES (?, ?)');
    this.page = db.prepare('SELECT digest, length FROM attachments WHERE digest > ? ORDER BY digest LIMIT ?');
    db.prepare(`DELETE FROM attachment_chunks WHERE digest >= '${TEMPORARY}' AND digest < 'tmp;'`).run();
  }

  async put(source: AttachmentSource): Promise<AttachmentInfo> {
    const temporary = `${TEMPORARY}${randomUUID()}`;
    const md5 = createHash('md5');
    let length = 0;
    let n = 0;
    try {
      for await (const piece of fixedChunks(source)) {
        md5.update(piece);
        length += piece.length;
        this.insertChunk.run(temporary, n++, piece);
      }
      const digest = `md5-${md5.digest('base64')}`;
      this.db.transaction(() => {
        if (this.info.get(digest) !== undefined) this.dropChunks.run(temporary);
        else {
          this.rename.run(digest, temporary);
          this.insertInfo.run(digest, length);
        }
      })();
      return { digest, length };
    } catch (error) {
      this.dropChunks.run(temporary);
      throw error;
    }
  }

  infoOf(digest: string): AttachmentInfo | undefined {
    return this.info.get(digest) as AttachmentInfo | undefined;
  }

  async *read(digest: string, start = 0, end?: number): AsyncGenerator<Uint8Array> {
    const info = this.infoOf(digest);
    if (info === undefined) return;
    yield* chunkRange(info.length, (n) => this.chunk.get(digest, n) as Buffer | undefined, start, end);
  }

  delete(digests: readonly string[]): void {
    this.db.transaction(() => {
      for (const digest of digests) {
        this.dropInfo.run(digest);
        this.dropChunks.run(digest);
      }
    })();
  }

  async *fold(): AsyncGenerator<Page<AttachmentInfo>> {
    let after = '';
    for (;;) {
      const rows = this.page.all(after, PAGE_ROWS) as AttachmentInfo[];
      if (rows.length > 0) yield rows;
      if (rows.length < PAGE_ROWS) return;
      after = rows[rows.length - 1]!.digest;
    }
  }
}
