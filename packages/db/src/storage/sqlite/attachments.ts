/**
 * Attachment bytes in a database's SQLite file: chunks (attachment-chunks.ts) by key and number,
 * so an attachment is neither held whole while it is stored nor read whole to serve a range.
 * Chunks arrive under a key of their own (the digest is known only at the end), and the
 * attachment's row, added last, names that key: nothing is rewritten once the bytes are in (a
 * rename of the chunks to the digest would copy every byte again in one transaction, and hold
 * them in memory while doing so). An upload whose chunks go in before its row is listed in
 * `attachment_uploads` meanwhile: a crash leaves its chunks, removed when the file is next opened. Attachments stored before `attachment_data` existed keep their chunks
 * in `attachment_chunks` under their digest (their row has no key): read and deleted there.
 */
import { createHash, randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { ATTACHMENT_CHUNK_BYTES, chunkRange, fixedChunks } from '../attachment-chunks.js';
import { keysetPages } from '../keyset-pages.js';
import type { AttachmentInfo, AttachmentSource, Page } from '../records.js';

const PAGE_ROWS = 256;

export class SqliteAttachments {
  private readonly insertChunk: Database.Statement;
  private readonly chunk: Database.Statement;
  private readonly legacyChunk: Database.Statement;
  private readonly info: Database.Statement;
  private readonly keyOf: Database.Statement;
  private readonly located: Database.Statement;
  private readonly locatedWithFirst: Database.Statement;
  private readonly dropChunks: Database.Statement;
  private readonly dropLegacyChunks: Database.Statement;
  private readonly dropInfo: Database.Statement;
  private readonly insertInfo: Database.Statement;
  private readonly page: Database.Statement;
  private readonly insertUpload: Database.Statement;
  private readonly dropUpload: Database.Statement;
  private pending: { step: () => void; resolve: () => void; reject: (error: unknown) => void }[] = [];

  constructor(private readonly db: Database.Database) {
    this.insertChunk = db.prepare('INSERT INTO attachment_data (key, n, data) VALUES (?, ?, ?)');
    this.chunk = db.prepare('SELECT data FROM attachment_data WHERE key = ? AND n = ?').pluck();
    this.legacyChunk = db.prepare('SELECT data FROM attachment_chunks WHERE digest = ? AND n = ?').pluck();
    this.info = db.prepare('SELECT digest, length FROM attachments WHERE digest = ?');
    this.keyOf = db.prepare('SELECT chunks FROM attachments WHERE digest = ?').pluck();
    this.located = db.prepare('SELECT length, chunks FROM attachments WHERE digest = ?');
    this.locatedWithFirst = db.prepare(
      'SELECT a.length, a.chunks, d.data FROM attachments a LEFT JOIN attachment_data d ON d.key = a.chunks AND d.n = 0 WHERE a.digest = ?',
    );
    this.dropChunks = db.prepare('DELETE FROM attachment_data WHERE key = ?');
    this.dropLegacyChunks = db.prepare('DELETE FROM attachment_chunks WHERE digest = ?');
    this.dropInfo = db.prepare('DELETE FROM attachments WHERE digest = ?');
    this.insertInfo = db.prepare('INSERT INTO attachments (digest, length, chunks) VALUES (?, ?, ?)');
    this.page = db.prepare('SELECT digest, length FROM attachments WHERE digest > ? ORDER BY digest LIMIT ?');
    this.insertUpload = db.prepare('INSERT INTO attachment_uploads (key) VALUES (?)');
    this.dropUpload = db.prepare('DELETE FROM attachment_uploads WHERE key = ?');
    // Chunks of uploads that never got their row (the process died first).
    db.transaction(() => {
      db.prepare('DELETE FROM attachment_data WHERE key IN (SELECT key FROM attachment_uploads)').run();
      db.prepare('DELETE FROM attachment_uploads').run();
    })();
  }

  async put(source: AttachmentSource): Promise<AttachmentInfo> {
    const key = randomUUID();
    const md5 = createHash('md5');
    let length = 0;
    let n = 0;
    // Each chunk is written when the next one arrives, so the last goes in the transaction that
    // adds the row: a small attachment (one chunk) costs one commit, not two.
    let last: Buffer | undefined;
    try {
      for await (const piece of fixedChunks(source)) {
        md5.update(piece);
        length += piece.length;
        if (last !== undefined) {
          // The first chunk written before the row: the upload is listed until the row is in.
          if (n === 0) this.insertUpload.run(key);
          this.insertChunk.run(key, n++, last);
        }
        last = piece;
      }
      const digest = `md5-${md5.digest('base64')}`;
      await this.commit(() => {
        if (n > 0) this.dropUpload.run(key);
        if (this.info.get(digest) !== undefined) {
          if (n > 0) this.dropChunks.run(key);
        } else {
          if (last !== undefined) this.insertChunk.run(key, n, last);
          this.insertInfo.run(digest, length, key);
        }
      });
      return { digest, length };
    } catch (error) {
      if (n > 0) {
        this.db.transaction(() => {
          this.dropChunks.run(key);
          this.dropUpload.run(key);
        })();
      }
      throw error;
    }
  }

  /**
   * Runs an attachment's last step in a transaction shared with the others that reach theirs in
   * the same turn (a `_bulk_docs` of a thousand documents with inline attachments commits once,
   * not a thousand times); resolves once it is committed.
   */
  private commit(step: () => void): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ step, resolve, reject });
      if (this.pending.length === 1) setImmediate(() => this.commitPending());
    });
  }

  private commitPending(): void {
    const batch = this.pending;
    this.pending = [];
    try {
      this.db.transaction(() => {
        for (const { step } of batch) step();
      })();
    } catch (error) {
      for (const { reject } of batch) reject(error);
      return;
    }
    for (const { resolve } of batch) resolve();
  }

  infoOf(digest: string): AttachmentInfo | undefined {
    return this.info.get(digest) as AttachmentInfo | undefined;
  }

  async *read(digest: string, start = 0, end?: number): AsyncGenerator<Uint8Array> {
    // A read from the start gets the row and its first chunk in one statement: most attachments
    // are one chunk, and a replicator's batch reads thousands of them.
    const fromFirst = start < ATTACHMENT_CHUNK_BYTES;
    const row = (fromFirst ? this.locatedWithFirst : this.located).get(digest) as
      | { length: number; chunks: string | null; data?: Buffer | null }
      | undefined;
    if (row === undefined) return;
    const key = row.chunks;
    const first = key === null ? undefined : (row.data ?? undefined);
    const chunkOf = (n: number) =>
      (n === 0 && first !== undefined
        ? first
        : key === null
          ? this.legacyChunk.get(digest, n)
          : this.chunk.get(key, n)) as Buffer | undefined;
    yield* chunkRange(row.length, chunkOf, start, end);
  }

  delete(digests: readonly string[]): void {
    this.db.transaction(() => {
      for (const digest of digests) {
        const key = this.keyOf.get(digest) as string | null | undefined;
        if (key === undefined) continue;
        this.dropInfo.run(digest);
        if (key === null) this.dropLegacyChunks.run(digest);
        else this.dropChunks.run(key);
      }
    })();
  }

  async *fold(): AsyncGenerator<Page<AttachmentInfo>> {
    yield* keysetPages(
      '',
      (row: AttachmentInfo) => row.digest,
      PAGE_ROWS,
      ({ from, limit }) => this.page.all(from, limit) as AttachmentInfo[],
    );
  }
}
