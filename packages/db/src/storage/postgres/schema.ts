/**
 * The tables of the PostgreSQL engine, as numbered migrations applied in order at start
 * (`migrate`). Every key of a database's rows leads with `db_id`, so the tables can later be
 * distributed by database (Citus, or a `db -> cluster` map) without changing a key.
 *
 * Ids are `COLLATE "C"`: PostgreSQL then compares their UTF-8 bytes, which is code point order,
 * the order `_all_docs` walks (a locale collation would not be).
 */
import type { PoolClient } from 'pg';
import { accessDocsMigration, accessFeedMigration, accessMigration, roleLogMigration } from './access-rows.js';
import { treeChunksMigration } from './tree-chunks.js';

/** `name` quoted as an SQL identifier. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Migration N takes the schema from version N-1 to N. Never edit one that shipped: add the next. */
export function migrations(schema: string): string[] {
  const s = quoteIdent(schema);
  return [
    // 1: databases with their counters, documents, bodies, local documents, properties, server values.
    `
    CREATE TABLE ${s}.dbs (
      db_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      name text COLLATE "C" NOT NULL UNIQUE,
      -- The counters, updated in every write transaction under this row's lock (see update()).
      update_seq bigint NOT NULL DEFAULT 0,
      doc_count bigint NOT NULL DEFAULT 0,
      doc_del_count bigint NOT NULL DEFAULT 0,
      -- UTF-8 bytes of the live winners' bodies (sizes.external)
      external bigint NOT NULL DEFAULT 0,
      -- milliseconds since the epoch
      created_at bigint NOT NULL
    );
    CREATE TABLE ${s}.docs (
      db_id bigint NOT NULL,
      id text COLLATE "C" NOT NULL,
      -- the sequence of the document's last change: the by-sequence index below holds one entry
      -- per document at its latest sequence
      seq bigint NOT NULL,
      rev text NOT NULL,
      deleted boolean NOT NULL,
      -- UTF-8 bytes of the winning body when the winner is live, else 0 (sums to dbs.external)
      size bigint NOT NULL,
      tree text NOT NULL,
      PRIMARY KEY (db_id, id)
    );
    CREATE UNIQUE INDEX docs_by_seq ON ${s}.docs (db_id, seq);
    -- Deleted documents by id, so counting the live ones in a range subtracts a small count.
    CREATE INDEX docs_deleted ON ${s}.docs (db_id, id) WHERE deleted;
    CREATE TABLE ${s}.bodies (
      db_id bigint NOT NULL,
      id text COLLATE "C" NOT NULL,
      rev text COLLATE "C" NOT NULL,
      body text NOT NULL,
      PRIMARY KEY (db_id, id, rev)
    );
    CREATE TABLE ${s}.local_docs (
      db_id bigint NOT NULL,
      id text COLLATE "C" NOT NULL,
      rev text NOT NULL,
      body text NOT NULL,
      PRIMARY KEY (db_id, id)
    );
    CREATE TABLE ${s}.props (
      db_id bigint NOT NULL,
      key text COLLATE "C" NOT NULL,
      value text NOT NULL,
      PRIMARY KEY (db_id, key)
    );
    CREATE TABLE ${s}.server_values (
      key text COLLATE "C" PRIMARY KEY,
      value text NOT NULL
    );
    `,
    // 2: purges: a database's purge sequence, and its purge log (one row per document of a purge).
    `
    ALTER TABLE ${s}.dbs ADD COLUMN purge_seq bigint NOT NULL DEFAULT 0;
    CREATE TABLE ${s}.purges (
      db_id bigint NOT NULL,
      seq bigint NOT NULL,
      id text COLLATE "C" NOT NULL,
      revs text NOT NULL,
      PRIMARY KEY (db_id, seq)
    );
    `,
    // 3: attachment bytes: chunks by digest and number, and one row per stored attachment
    // (inserted last, in the transaction that names the chunks by their digest).
    `
    CREATE TABLE ${s}.attachments (
      db_id bigint NOT NULL,
      digest text COLLATE "C" NOT NULL,
      length bigint NOT NULL,
      PRIMARY KEY (db_id, digest)
    );
    CREATE TABLE ${s}.attachment_chunks (
      db_id bigint NOT NULL,
      digest text COLLATE "C" NOT NULL,
      n integer NOT NULL,
      data bytea NOT NULL,
      PRIMARY KEY (db_id, digest, n)
    );
    `,
    // 4: view indexes shared by every node (see shared-index.ts): per index its checkpoint and a
    // version counting its writes; B-tree nodes and back-index entries stamped with the version
    // that last wrote them (NULL: deleted then), so a node's copy fetches only what changed.
    `
    CREATE TABLE ${s}.view_indexes (
      db_id bigint NOT NULL,
      signature text COLLATE "C" NOT NULL,
      version bigint NOT NULL DEFAULT 0,
      -- deletions written at or before this version are forgotten: an older copy fetches all
      pruned bigint NOT NULL DEFAULT 0,
      -- the checkpoint (JSON): sequences, per-view change sequences, the roots of the trees
      meta text,
      PRIMARY KEY (db_id, signature)
    );
    CREATE TABLE ${s}.view_index_nodes (
      db_id bigint NOT NULL,
      signature text COLLATE "C" NOT NULL,
      view integer NOT NULL,
      id bigint NOT NULL,
      version bigint NOT NULL,
      node bytea,
      PRIMARY KEY (db_id, signature, view, id)
    );
    CREATE INDEX view_index_nodes_by_version ON ${s}.view_index_nodes (db_id, signature, version);
    CREATE TABLE ${s}.view_index_back (
      db_id bigint NOT NULL,
      signature text COLLATE "C" NOT NULL,
      id text COLLATE "C" NOT NULL,
      version bigint NOT NULL,
      rows bytea,
      PRIMARY KEY (db_id, signature, id)
    );
    CREATE INDEX view_index_back_by_version ON ${s}.view_index_back (db_id, signature, version);
    `,
    // 5: attachment writes begun per database, counted by a node each time it takes the
    // database's attachment-writes lock (see attachment-write-locks.ts): a sweep that saw the
    // count move while it looked deletes nothing.
    `
    CREATE TABLE ${s}.attachment_writes (
      db_id bigint PRIMARY KEY,
      begun bigint NOT NULL
    );
    `,
    // 6: the server's database events (_db_updates): each database's latest event of each type,
    // at a sequence every node takes under one lock (see postgres-storage.ts), so sequence
    // order is commit order.
    `
    CREATE TABLE ${s}.db_events (
      db_name text COLLATE "C" NOT NULL,
      type text NOT NULL,
      seq bigint NOT NULL UNIQUE,
      PRIMARY KEY (db_name, type)
    );
    `,
    // 7: access rows of per-document `_access` (see access-rows.ts).
    accessMigration(s),
    // 8: the role log of per-document `_access`: roles given or taken away in `_users` (access-rows.ts).
    roleLogMigration(s),
    // 9: each document's access in one row of its own, no by-document index of the access rows (access-rows.ts).
    accessDocsMigration(s),
    // 10: what a database's sizes.file and sizes.active are made of (postgres-database.ts meta):
    // the bytes of its stored bodies, and of those of revisions that are not leaves (stale: what
    // compaction drops), kept by every write. NULL in a database from before, until
    // countStaleBodies counts them once; 0 in a new one.
    `
    ALTER TABLE ${s}.dbs ADD COLUMN stored bigint, ADD COLUMN stale bigint;
    ALTER TABLE ${s}.dbs ALTER COLUMN stored SET DEFAULT 0, ALTER COLUMN stale SET DEFAULT 0;
    `,
    // 11: the access rows in one tree, by principal and sequence (access-rows.ts).
    accessFeedMigration(s),
    // 12: long one-line revision histories in chunks, so that an update appends (tree-chunks.ts).
    treeChunksMigration(s),
    // 13: the update sequence of a database's last change to a design document (written or
    // purged), read with the writers' lock, so a write's rules need not read the counters first
    // (doc-writes.ts). From before, unknown: any change so far may have been one. (IF NOT EXISTS:
    // tests that put a schema back to an older version run it again.)
    `
    ALTER TABLE ${s}.dbs ADD COLUMN IF NOT EXISTS design_seq bigint NOT NULL DEFAULT 0;
    UPDATE ${s}.dbs SET design_seq = update_seq;
    `,
  ];
}

/** Advisory lock key (first half) of the migration lock; the second half hashes the schema name. */
const MIGRATION_LOCK_CLASS = 0x646976; // "div"

/**
 * Brings `schema` to the latest version. Safe when several nodes start at once: each takes a
 * session advisory lock for the schema first, so one migrates and the others then find it done.
 */
export async function migrate(client: PoolClient, schema: string): Promise<void> {
  const s = quoteIdent(schema);
  const encoding = await client.query<{ server_encoding: string }>('SHOW server_encoding');
  if (encoding.rows[0]?.server_encoding !== 'UTF8') {
    throw new Error(`PostgreSQL database encoding is ${encoding.rows[0]?.server_encoding}; Divan needs UTF8`);
  }
  await client.query('SELECT pg_advisory_lock($1, hashtext($2))', [MIGRATION_LOCK_CLASS, schema]);
  try {
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${s}.schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const current = await client.query<{ v: number | null }>(`SELECT max(version) AS v FROM ${s}.schema_version`);
    const version = current.rows[0]?.v ?? 0;
    const steps = migrations(schema);
    if (version > steps.length) {
      throw new Error(
        `storage schema ${schema} is at version ${version}, newer than this Divan knows (${steps.length})`,
      );
    }
    for (let v = version + 1; v <= steps.length; v++) {
      await client.query('BEGIN');
      try {
        await client.query(steps[v - 1]!);
        await client.query(`INSERT INTO ${s}.schema_version (version) VALUES ($1)`, [v]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', [MIGRATION_LOCK_CLASS, schema]).catch(() => {});
  }
}
