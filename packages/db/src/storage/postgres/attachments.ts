/**
 * Attachment bytes in the PostgreSQL engine: one row per stored attachment (`attachments`) and
 * its bytes in fixed-size chunks (`attachment_chunks`, ../attachment-chunks.ts); an upload
 * writes its chunks under a temporary key and renames them to the digest at its end. What keeps
 * a sweep off bytes whose revision has not committed is ./attachment-write-locks.ts.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Pool, PoolClient, QueryConfig, QueryResultRow } from 'pg';
import { chunkRange, fixedChunks } from '../attachment-chunks.js';
import type { AttachmentSweepMark } from '../contract.js';
import { keysetPagesAsync } from '../keyset-pages.js';
import type { AttachmentInfo, AttachmentSource, Page } from '../records.js';
import type { AttachmentWriteLocks } from './attachment-write-locks.js';
import { inTransaction, queryRows } from './errors.js';
import type { DbTarget } from './statements.js';

/** Stored attachments per page of `fold`. */
const ATTACHMENTS_PAGE = 1024;
/** Bytes of an attachment chunk read per row (see `read`). */
const READ_PIECE = 32 * 1024;
/** Chunks of an upload under way are under this prefix and a random key, renamed to the digest at its end. */
const UPLOADING = 'tmp:';

/** The attachments of one database (`DocumentStore`'s attachment methods). */
export class PostgresAttachments {
  constructor(
    private readonly pool: Pool,
    private readonly db: DbTarget,
    /** This node's attachment writes, where every node's sweep sees them (one per storage). */
    private readonly writes: AttachmentWriteLocks,
  ) {}

  private query<T extends QueryResultRow>(config: QueryConfig | string, values?: unknown[]): Promise<T[]> {
    return queryRows<T>(this.pool, config, values);
  }

  private transaction<T>(body: (client: PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, body);
  }

  async put(source: AttachmentSource): Promise<AttachmentInfo> {
    const temporary = `${UPLOADING}${randomUUID()}`;
    const md5 = createHash('md5');
    let length = 0;
    let n = 0;
    const chunks = this.db.sql.chunks;
    try {
      for await (const piece of fixedChunks(source)) {
        md5.update(piece);
        length += piece.length;
        await this.query(`INSERT INTO ${chunks} (db_id, digest, n, data) VALUES ($1, $2, $3, $4)`, [
          this.db.dbId,
          temporary,
          n++,
          piece,
        ]);
      }
      const digest = `md5-${md5.digest('base64')}`;
      await this.transaction(async (client) => {
        const inserted = await client.query(
          `INSERT INTO ${this.db.sql.attachments} (db_id, digest, length) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
          [this.db.dbId, digest, length],
        );
        if (inserted.rowCount === 0) {
          await client.query(`DELETE FROM ${chunks} WHERE db_id = $1 AND digest = $2`, [this.db.dbId, temporary]);
        } else {
          await client.query(`UPDATE ${chunks} SET digest = $3 WHERE db_id = $1 AND digest = $2`, [
            this.db.dbId,
            temporary,
            digest,
          ]);
        }
      });
      return { digest, length };
    } catch (error) {
      await this.query(`DELETE FROM ${chunks} WHERE db_id = $1 AND digest = $2`, [this.db.dbId, temporary]).catch(
        () => {},
      );
      throw error;
    }
  }

  async infoOf(digest: string): Promise<AttachmentInfo | undefined> {
    const [row] = await this.query<{ digest: string; length: string }>(
      `SELECT digest, length FROM ${this.db.sql.attachments} WHERE db_id = $1 AND digest = $2`,
      [this.db.dbId, digest],
    );
    return row === undefined ? undefined : { digest: row.digest, length: Number(row.length) };
  }

  async *read(digest: string, start = 0, end?: number): AsyncGenerator<Uint8Array> {
    const info = await this.infoOf(digest);
    if (info === undefined) return;
    yield* chunkRange(
      info.length,
      async (n) => {
        // In pieces: node-postgres reads a bytea as a hex string first, and a 512 KiB string is
        // only freed by a full collection (large objects), so a long download would pile them
        // up; 64 KiB strings die young. One round trip all the same.
        const rows = await this.query<{ piece: Buffer }>(
          `SELECT substring(c.data FROM g FOR ${READ_PIECE}) AS piece
           FROM ${this.db.sql.chunks} c, generate_series(1, octet_length(c.data), ${READ_PIECE}) AS g
           WHERE c.db_id = $1 AND c.digest = $2 AND c.n = $3 ORDER BY g`,
          [this.db.dbId, digest, n],
        );
        if (rows.length === 0) return undefined;
        return rows.length === 1 ? rows[0]!.piece : Buffer.concat(rows.map((r) => r.piece));
      },
      start,
      end,
    );
  }

  async delete(digests: readonly string[]): Promise<void> {
    if (digests.length === 0) return;
    await this.transaction(async (client) => {
      for (const table of [this.db.sql.attachments, this.db.sql.chunks]) {
        await client.query(`DELETE FROM ${table} WHERE db_id = $1 AND digest = ANY($2)`, [this.db.dbId, [...digests]]);
      }
    });
  }

  async *fold(): AsyncGenerator<Page<AttachmentInfo>> {
    type AttachmentRow = { digest: string; length: string };
    const pages = keysetPagesAsync(
      '',
      (row: AttachmentRow) => row.digest,
      ATTACHMENTS_PAGE,
      ({ from, limit }) =>
        this.query<AttachmentRow>(
          `SELECT digest, length FROM ${this.db.sql.attachments} WHERE db_id = $1 AND digest > $2 ORDER BY digest LIMIT $3`,
          [this.db.dbId, from, limit],
        ),
    );
    for await (const rows of pages) yield rows.map((r) => ({ digest: r.digest, length: Number(r.length) }));
  }

  run<T>(write: () => Promise<T>): Promise<T> {
    return this.writes.run(this.db.dbId, write);
  }

  sweepMark(): Promise<AttachmentSweepMark | undefined> {
    return this.transaction((client) => this.writes.quiet(client, this.db.dbId));
  }

  sweep(digests: readonly string[], mark: AttachmentSweepMark): Promise<boolean> {
    return this.transaction(async (client) => {
      // No node writes attachments to this database while this transaction holds the lock.
      if ((await this.writes.quiet(client, this.db.dbId)) !== mark) return false;
      for (const table of [this.db.sql.attachments, this.db.sql.chunks]) {
        await client.query(`DELETE FROM ${table} WHERE db_id = $1 AND digest = ANY($2)`, [this.db.dbId, [...digests]]);
      }
      // So chunks still under an upload's key are those of uploads that never finished (their
      // node died, or could not clean up).
      await client.query(`DELETE FROM ${this.db.sql.chunks} WHERE db_id = $1 AND digest LIKE $2`, [
        this.db.dbId,
        `${UPLOADING}%`,
      ]);
      return true;
    });
  }
}
