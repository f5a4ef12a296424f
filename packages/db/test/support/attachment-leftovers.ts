/**
 * Attachment bytes a test server's storage holds that no stored attachment owns: what an upload
 * that failed half-way could leave. Read from the engine's own tables (the contract lists only
 * named attachments), in the SQLite file or the PostgreSQL schema the server runs on.
 */
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import pg from 'pg';
import { fileNameOf } from '../../src/storage/sqlite/file-names.js';
import type { TestServer } from './server.js';

/** Chunks of database `db` that belong to no stored attachment. */
export async function strayAttachmentChunks(t: TestServer, db: string): Promise<number> {
  if (t.storage === undefined) {
    const file = new Sqlite(join(t.dataDir, fileNameOf(db)), { readonly: true });
    try {
      const stray = file
        .prepare(
          'SELECT count(*) FROM attachment_data WHERE key NOT IN (SELECT chunks FROM attachments WHERE chunks IS NOT NULL)',
        )
        .pluck()
        .get() as number;
      return stray;
    } finally {
      file.close();
    }
  }
  const client = new pg.Client({ connectionString: t.storage.url });
  await client.connect();
  try {
    const s = `"${t.storage.schema}"`;
    const found = await client.query<{ n: string }>(
      `SELECT count(*) AS n FROM ${s}.attachment_chunks c JOIN ${s}.dbs d ON d.db_id = c.db_id
       WHERE d.name = $1 AND NOT EXISTS (SELECT 1 FROM ${s}.attachments a WHERE a.db_id = c.db_id AND a.digest = c.digest)`,
      [db],
    );
    return Number(found.rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}
