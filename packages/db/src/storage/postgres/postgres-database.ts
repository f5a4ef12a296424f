/**
 * One database of the PostgreSQL engine: its rows in the shared tables, under its `db_id`.
 * Nothing is cached between calls (another node may write at any time): counters come from the
 * `dbs` row, records from `docs`.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Pool, PoolClient, QueryConfig, QueryResultRow } from 'pg';
import { CouchError } from '../../errors.js';
import { toWellFormed } from '../../support/unicode.js';
import type { AttachmentInfo, AttachmentSource, Counters, Page } from '../records.js';
import type { AttachmentSweepMark, CompactPlanner, DocumentStore, Planner, PurgePlanner } from '../contract.js';
import type { ChangedDoc, DbMeta, DocRecord, IdRange, LocalDoc, PurgeInfo } from '../records.js';
import type { ViewIndexStore } from '../view-index-store.js';
import { chunkRange, fixedChunks } from '../attachment-chunks.js';
import { GROWING_PAGES, keysetPagesAsync } from '../keyset-pages.js';
import type { AttachmentWriteLocks } from './attachment-write-locks.js';
import { inTransaction, storageError } from './errors.js';
import { quoteIdent } from './schema.js';

/** Purge log entries, and stored attachments, per page. */
const PURGES_PAGE = 1024;
const ATTACHMENTS_PAGE = 1024;
/** Bytes of an attachment chunk read per row (see readAttachment). */
const READ_PIECE = 32 * 1024;
/** Chunks of an upload under way are under this prefix and a random key, renamed to the digest at its end. */
const UPLOADING = 'tmp:';

/** A named statement: node-postgres parses it once per connection, then only binds values. */
function named(text: string): { name: string; text: string } {
  return { name: `divan_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`, text };
}

/** The statements of one schema, built once per storage. */
export function documentStatements(schema: string) {
  const s = quoteIdent(schema);
  const DOC = 'id, seq, rev, deleted, tree';
  return {
    /** The attachment tables, qualified (their statements are built where used). */
    attachments: `${s}.attachments`,
    chunks: `${s}.attachment_chunks`,
    counters: named(`SELECT update_seq, doc_count, doc_del_count, external, purge_seq FROM ${s}.dbs WHERE db_id = $1`),
    // The writers' lock: FOR NO KEY UPDATE conflicts with itself (one writer per database at a
    // time, on every node) but not with the KEY SHARE lock that local documents and properties
    // take, which only a DELETE of the row (destroy) waits for.
    lock: named(
      `SELECT update_seq, doc_count, doc_del_count, external, purge_seq FROM ${s}.dbs WHERE db_id = $1 FOR NO KEY UPDATE`,
    ),
    setTrees: named(
      `UPDATE ${s}.docs d SET tree = x.tree FROM unnest($2::text[], $3::text[]) AS x(id, tree) ` +
        'WHERE d.db_id = $1 AND d.id = x.id',
    ),
    deleteDocs: named(`DELETE FROM ${s}.docs WHERE db_id = $1 AND id = ANY($2::text[])`),
    deleteAllBodies: named(`DELETE FROM ${s}.bodies WHERE db_id = $1 AND id = ANY($2::text[])`),
    logPurges: named(
      `INSERT INTO ${s}.purges (db_id, seq, id, revs) SELECT $1::int8, * FROM unnest($2::int8[], $3::text[], $4::text[])`,
    ),
    prunePurges: named(`DELETE FROM ${s}.purges WHERE db_id = $1 AND seq <= $2`),
    purges: named(`SELECT seq, id, revs FROM ${s}.purges WHERE db_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`),
    oldestPurge: named(`SELECT min(seq) AS seq FROM ${s}.purges WHERE db_id = $1`),
    savePurgeSeq: named(`UPDATE ${s}.dbs SET purge_seq = $2 WHERE db_id = $1`),
    keyShare: `SELECT 1 FROM ${s}.dbs WHERE db_id = $1 FOR KEY SHARE`,
    getDoc: named(`SELECT ${DOC} FROM ${s}.docs WHERE db_id = $1 AND id = $2`),
    getDocs: named(`SELECT ${DOC} FROM ${s}.docs WHERE db_id = $1 AND id = ANY($2::text[])`),
    // What update() reads under the lock: the records, and each one's counted size.
    readForUpdate: named(`SELECT ${DOC}, size FROM ${s}.docs WHERE db_id = $1 AND id = ANY($2::text[])`),
    getBody: named(`SELECT body FROM ${s}.bodies WHERE db_id = $1 AND id = $2 AND rev = $3`),
    getDocWithBody: named(
      `SELECT d.id, d.seq, d.rev, d.deleted, d.tree, b.body FROM ${s}.docs d
       LEFT JOIN ${s}.bodies b ON b.db_id = d.db_id AND b.id = d.id AND b.rev = d.rev
       WHERE d.db_id = $1 AND d.id = $2`,
    ),
    getBodies: named(
      `SELECT b.id, b.rev, b.body FROM ${s}.bodies b JOIN unnest($2::text[], $3::text[]) AS w(id, rev) ` +
        `ON b.id = w.id AND b.rev = w.rev WHERE b.db_id = $1`,
    ),
    putBodies: named(
      `INSERT INTO ${s}.bodies (db_id, id, rev, body) SELECT $1::int8, * FROM unnest($2::text[], $3::text[], $4::text[]) ` +
        'ON CONFLICT (db_id, id, rev) DO UPDATE SET body = excluded.body',
    ),
    dropBodies: named(
      `DELETE FROM ${s}.bodies b USING unnest($2::text[], $3::text[]) AS x(id, rev) ` +
        'WHERE b.db_id = $1 AND b.id = x.id AND b.rev = x.rev',
    ),
    bodySizes: named(
      `SELECT x.id, octet_length(b.body) AS size FROM unnest($2::text[], $3::text[]) AS x(id, rev) ` +
        `JOIN ${s}.bodies b ON b.db_id = $1 AND b.id = x.id AND b.rev = x.rev`,
    ),
    putDocs: named(
      `INSERT INTO ${s}.docs (db_id, id, seq, rev, deleted, size, tree) ` +
        'SELECT $1::int8, * FROM unnest($2::text[], $3::int8[], $4::text[], $5::bool[], $6::int8[], $7::text[]) ' +
        'ON CONFLICT (db_id, id) DO UPDATE SET seq = excluded.seq, rev = excluded.rev, deleted = excluded.deleted, ' +
        'size = excluded.size, tree = excluded.tree',
    ),
    saveCounters: named(
      `UPDATE ${s}.dbs SET update_seq = $2, doc_count = $3, doc_del_count = $4, external = $5 WHERE db_id = $1`,
    ),
    changes: named(`SELECT ${DOC} FROM ${s}.docs WHERE db_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`),
    changesDesc: named(
      `SELECT ${DOC} FROM ${s}.docs WHERE db_id = $1 AND seq > $2 AND seq < $3 ORDER BY seq DESC LIMIT $4`,
    ),
    changedBodies: named(
      'SELECT d.id, d.seq, d.rev, d.deleted, d.tree, CASE WHEN NOT d.deleted THEN b.body END AS body ' +
        `FROM ${s}.docs d LEFT JOIN ${s}.bodies b ON b.db_id = d.db_id AND b.id = d.id AND b.rev = d.rev ` +
        'WHERE d.db_id = $1 AND d.seq > $2 ORDER BY d.seq LIMIT $3',
    ),
    countChanges: named(`SELECT count(*) AS n FROM ${s}.docs WHERE db_id = $1 AND seq > $2`),
    getLocal: named(`SELECT id, rev, body FROM ${s}.local_docs WHERE db_id = $1 AND id = $2`),
    putLocal: named(
      `INSERT INTO ${s}.local_docs (db_id, id, rev, body) SELECT db_id, $2, $3, $4 FROM ${s}.dbs ` +
        'WHERE db_id = $1 FOR KEY SHARE ON CONFLICT (db_id, id) DO UPDATE SET rev = excluded.rev, body = excluded.body',
    ),
    deleteLocal: named(`DELETE FROM ${s}.local_docs WHERE db_id = $1 AND id = $2`),
    getProp: named(`SELECT value FROM ${s}.props WHERE db_id = $1 AND key = $2`),
    setProp: named(
      `INSERT INTO ${s}.props (db_id, key, value) SELECT db_id, $2, $3 FROM ${s}.dbs ` +
        'WHERE db_id = $1 FOR KEY SHARE ON CONFLICT (db_id, key) DO UPDATE SET value = excluded.value',
    ),
    schema: s,
  };
}

export type DocumentStatements = ReturnType<typeof documentStatements>;

interface DocRow {
  id: string;
  seq: string;
  rev: string;
  deleted: boolean;
  tree: string;
}

interface CounterRow {
  update_seq: string;
  doc_count: string;
  doc_del_count: string;
  external: string;
  purge_seq: string;
}

function toRecord(row: DocRow): DocRecord {
  return { id: row.id, seq: Number(row.seq), rev: row.rev, deleted: row.deleted, tree: row.tree };
}

/** The key of a by-sequence walk. */
function bySeq(row: DocRow): number {
  return Number(row.seq);
}

function gone(name: string): CouchError {
  return new CouchError('not_found', `Database ${name} does not exist.`);
}

export class PostgresDocumentStore implements DocumentStore {
  constructor(
    private readonly pool: Pool,
    private readonly sql: DocumentStatements,
    readonly name: string,
    private readonly dbId: string,
    private readonly createdAt: number,
    private readonly indexes: ViewIndexStore,
    /** This node's attachment writes, where every node's sweep sees them (one per storage). */
    private readonly attachmentWrites: AttachmentWriteLocks,
  ) {}

  viewIndexes(): ViewIndexStore {
    return this.indexes;
  }

  private async query<T extends QueryResultRow>(config: QueryConfig | string, values?: unknown[]): Promise<T[]> {
    try {
      const query = typeof config === 'string' ? { text: config, values } : { ...config, values };
      return (await this.pool.query<T>(query)).rows;
    } catch (err) {
      throw storageError(err);
    }
  }

  private async readCounters(): Promise<CounterRow> {
    const [row] = await this.query<CounterRow>(this.sql.counters, [this.dbId]);
    if (row === undefined) throw gone(this.name);
    return row;
  }

  async meta(): Promise<DbMeta> {
    const c = await this.readCounters();
    const external = Number(c.external);
    return {
      updateSeq: Number(c.update_seq),
      purgeSeq: Number(c.purge_seq),
      docCount: Number(c.doc_count),
      docDelCount: Number(c.doc_del_count),
      // PostgreSQL's files hold every database at once: no per-database file size to report,
      // so both sizes are the bodies' bytes.
      sizes: { file: external, external, active: external },
      createdAt: this.createdAt,
    };
  }

  async counters(): Promise<Counters> {
    const c = await this.readCounters();
    return { updateSeq: Number(c.update_seq), docCount: Number(c.doc_count), docDelCount: Number(c.doc_del_count) };
  }

  async getDoc(id: string): Promise<DocRecord | undefined> {
    const [row] = await this.query<DocRow>(this.sql.getDoc, [this.dbId, id]);
    return row === undefined ? undefined : toRecord(row);
  }

  async getDocs(ids: readonly string[]): Promise<(DocRecord | undefined)[]> {
    if (ids.length === 0) return [];
    if (ids.length === 1) return [await this.getDoc(ids[0]!)];
    const rows = await this.query<DocRow>(this.sql.getDocs, [this.dbId, ids]);
    const byId = new Map(rows.map((row) => [row.id, toRecord(row)]));
    // An id with a lone surrogate travels as U+FFFD (UTF-8 cannot hold it); its row comes back so.
    return ids.map((id) => byId.get(id) ?? byId.get(toWellFormed(id)));
  }

  async getBody(id: string, rev: string): Promise<string | undefined> {
    const [row] = await this.query<{ body: string }>(this.sql.getBody, [this.dbId, id, rev]);
    return row?.body;
  }

  async getDocWithBody(id: string): Promise<{ record: DocRecord; body: string | undefined } | undefined> {
    const [row] = await this.query<DocRow & { body: string | null }>(this.sql.getDocWithBody, [this.dbId, id]);
    return row === undefined ? undefined : { record: toRecord(row), body: row.body ?? undefined };
  }

  async getBodies(wanted: readonly { id: string; rev: string }[]): Promise<(string | undefined)[]> {
    if (wanted.length === 0) return [];
    const rows = await this.query<{ id: string; rev: string; body: string }>(this.sql.getBodies, [
      this.dbId,
      wanted.map((w) => toWellFormed(w.id)),
      wanted.map((w) => w.rev),
    ]);
    const found = new Map(rows.map((r) => [`${r.rev}\u0000${r.id}`, r.body]));
    return wanted.map((w) => found.get(`${w.rev}\u0000${toWellFormed(w.id)}`));
  }

  /**
   * The write path: in one transaction, lock this database's `dbs` row (every other writer of
   * the database, on any node, waits here, so sequence order is commit order), read the records
   * of `ids`, plan, write documents, bodies and counters with a few multi-row statements, commit.
   */
  async update<R>(ids: readonly string[], plan: Planner<R>): Promise<{ result: R; seqs: number[] }> {
    return this.transaction((client) => this.updateIn(client, ids, plan));
  }

  private async updateIn<R>(
    client: PoolClient,
    ids: readonly string[],
    plan: Planner<R>,
  ): Promise<{ result: R; seqs: number[] }> {
    const q = async <T extends QueryResultRow>(config: { name: string; text: string }, values: unknown[]) =>
      (await client.query<T>({ ...config, values })).rows;
    const [locked] = await q<CounterRow>(this.sql.lock, [this.dbId]);
    if (locked === undefined) throw gone(this.name);
    const rows = ids.length === 0 ? [] : await q<DocRow & { size: string }>(this.sql.readForUpdate, [this.dbId, ids]);
    const byId = new Map(rows.map((row) => [row.id, row]));
    const records = new Map<string, DocRecord>();
    for (const id of ids) {
      const row = byId.get(id) ?? byId.get(toWellFormed(id));
      if (row !== undefined) records.set(id, toRecord(row));
    }
    const { writes, result } = plan(records);
    if (writes.length === 0) return { result, seqs: [] };
    for (const { record, bodies } of writes) {
      for (const b of bodies) {
        if (typeof b.body !== 'string') throw new TypeError(`body of ${record.id} ${b.rev} is not a string`);
      }
    }

    // The previous state of every written document (deleted flag and counted size).
    const old = new Map<string, { deleted: boolean; size: number }>();
    // A plan may write a document whose id it was not given: its row is read now.
    const asked = new Set(ids);
    const unread: string[] = [];
    for (const { record } of writes) {
      if (!asked.has(record.id) && !byId.has(toWellFormed(record.id))) unread.push(record.id);
    }
    const oldRows =
      unread.length === 0 ? [] : await q<DocRow & { size: string }>(this.sql.readForUpdate, [this.dbId, unread]);
    for (const row of [...rows, ...oldRows]) old.set(row.id, { deleted: row.deleted, size: Number(row.size) });

    // New bodies first, then dropped ones (a write's order), then sizes of winners not in the batch.
    const bodyIds: string[] = [];
    const bodyRevs: string[] = [];
    const bodyTexts: string[] = [];
    const dropIds: string[] = [];
    const dropRevs: string[] = [];
    const sizes = new Map<string, number>();
    const sizeIds: string[] = [];
    const sizeRevs: string[] = [];
    for (const { record, bodies, dropBodies } of writes) {
      const seen = new Map<string, string>();
      for (const b of bodies) seen.set(b.rev, b.body);
      for (const [rev, body] of seen) {
        bodyIds.push(record.id);
        bodyRevs.push(rev);
        bodyTexts.push(body);
      }
      if (dropBodies !== undefined) {
        for (const rev of dropBodies) {
          dropIds.push(record.id);
          dropRevs.push(rev);
        }
      }
      if (record.deleted) continue;
      const winner = seen.get(record.rev);
      if (winner !== undefined) sizes.set(toWellFormed(record.id), Buffer.byteLength(winner, 'utf8'));
      else {
        sizeIds.push(record.id);
        sizeRevs.push(record.rev);
      }
    }
    if (bodyIds.length > 0) await q(this.sql.putBodies, [this.dbId, bodyIds, bodyRevs, bodyTexts]);
    if (dropIds.length > 0) await q(this.sql.dropBodies, [this.dbId, dropIds, dropRevs]);
    if (sizeIds.length > 0) {
      for (const row of await q<{ id: string; size: number }>(this.sql.bodySizes, [this.dbId, sizeIds, sizeRevs])) {
        sizes.set(row.id, Number(row.size));
      }
    }

    const c = {
      updateSeq: Number(locked.update_seq),
      docCount: Number(locked.doc_count),
      docDelCount: Number(locked.doc_del_count),
      external: Number(locked.external),
    };
    const seqs: number[] = [];
    const docIds: string[] = [];
    const docSeqs: number[] = [];
    const docRevs: string[] = [];
    const docDeleted: boolean[] = [];
    const docSizes: number[] = [];
    const docTrees: string[] = [];
    for (const { record } of writes) {
      const seq = ++c.updateSeq;
      const key = toWellFormed(record.id);
      const size = record.deleted ? 0 : (sizes.get(key) ?? 0);
      const previous = old.get(key);
      if (previous !== undefined) {
        if (previous.deleted) c.docDelCount--;
        else c.docCount--;
        c.external -= previous.size;
      }
      if (record.deleted) c.docDelCount++;
      else c.docCount++;
      c.external += size;
      // A later write of the same document in this batch sees this one as its previous state.
      old.set(key, { deleted: record.deleted, size });
      seqs.push(seq);
      docIds.push(record.id);
      docSeqs.push(seq);
      docRevs.push(record.rev);
      docDeleted.push(record.deleted);
      docSizes.push(size);
      docTrees.push(record.tree);
    }
    await q(this.sql.putDocs, [this.dbId, docIds, docSeqs, docRevs, docDeleted, docSizes, docTrees]);
    await q(this.sql.saveCounters, [this.dbId, c.updateSeq, c.docCount, c.docDelCount, c.external]);
    return { result, seqs };
  }

  /** A transaction on a checked-out connection (rolled back on a throw; a broken one is not pooled). */
  private transaction<T>(body: (client: PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, body);
  }

  /** The records of `ids` read on `client` (under the writers' lock), by the id asked. */
  private async lockedRecords(
    client: PoolClient,
    ids: readonly string[],
  ): Promise<{ locked: CounterRow; rows: (DocRow & { size: string })[]; records: Map<string, DocRecord> }> {
    const [locked] = (await client.query<CounterRow>({ ...this.sql.lock, values: [this.dbId] })).rows;
    if (locked === undefined) throw gone(this.name);
    const rows =
      ids.length === 0
        ? []
        : (await client.query<DocRow & { size: string }>({ ...this.sql.readForUpdate, values: [this.dbId, ids] })).rows;
    const byId = new Map(rows.map((row) => [row.id, row]));
    const records = new Map<string, DocRecord>();
    for (const id of ids) {
      const row = byId.get(id) ?? byId.get(toWellFormed(id));
      if (row !== undefined) records.set(id, toRecord(row));
    }
    return { locked, rows, records };
  }

  async purge<R>(
    ids: readonly string[],
    keepInfos: number,
    plan: PurgePlanner<R>,
  ): Promise<{ result: R; purgeSeq: number; updateSeq: number }> {
    return this.transaction(async (client) => {
      const q = async (config: { name: string; text: string }, values: unknown[]) =>
        client.query({ ...config, values });
      const { locked, rows, records } = await this.lockedRecords(client, ids);
      const { purges, result } = plan(records);
      const old = new Map(rows.map((row) => [toWellFormed(row.id), row]));
      const c = {
        updateSeq: Number(locked.update_seq),
        docCount: Number(locked.doc_count),
        docDelCount: Number(locked.doc_del_count),
        external: Number(locked.external),
        purgeSeq: Number(locked.purge_seq),
      };
      const before = c.updateSeq;
      const logSeqs: number[] = [];
      const logIds: string[] = [];
      const logRevs: string[] = [];
      const removed: string[] = [];
      const dropIds: string[] = [];
      const dropRevs: string[] = [];
      const kept: { id: string; record: Omit<DocRecord, 'seq'> }[] = [];
      for (const { id, revs, record, dropBodies } of purges) {
        logSeqs.push(++c.purgeSeq);
        logIds.push(id);
        logRevs.push(JSON.stringify(revs));
        if (record === undefined) continue;
        const previous = old.get(toWellFormed(id));
        if (previous === undefined) continue;
        if (previous.deleted) c.docDelCount--;
        else c.docCount--;
        c.external -= Number(previous.size);
        if (record === null) {
          removed.push(id);
          continue;
        }
        for (const rev of dropBodies ?? []) {
          dropIds.push(id);
          dropRevs.push(rev);
        }
        kept.push({ id, record });
      }
      if (removed.length > 0) {
        await q(this.sql.deleteAllBodies, [this.dbId, removed]);
        await q(this.sql.deleteDocs, [this.dbId, removed]);
      }
      if (dropIds.length > 0) await q(this.sql.dropBodies, [this.dbId, dropIds, dropRevs]);
      if (kept.length > 0) {
        const live = kept.filter((k) => !k.record.deleted);
        const sizes = new Map<string, number>();
        if (live.length > 0) {
          const found = await client.query<{ id: string; size: number }>({
            ...this.sql.bodySizes,
            values: [this.dbId, live.map((k) => k.id), live.map((k) => k.record.rev)],
          });
          for (const row of found.rows) sizes.set(row.id, Number(row.size));
        }
        const docs = kept.map(({ id, record }) => {
          const size = record.deleted ? 0 : (sizes.get(toWellFormed(id)) ?? 0);
          if (record.deleted) c.docDelCount++;
          else c.docCount++;
          c.external += size;
          return { id, seq: ++c.updateSeq, record, size };
        });
        await q(this.sql.putDocs, [
          this.dbId,
          docs.map((d) => d.id),
          docs.map((d) => d.seq),
          docs.map((d) => d.record.rev),
          docs.map((d) => d.record.deleted),
          docs.map((d) => d.size),
          docs.map((d) => d.record.tree),
        ]);
      }
      // As CouchDB: the update sequence moves even when no document was re-sequenced.
      if (c.updateSeq === before) c.updateSeq++;
      if (logSeqs.length > 0) await q(this.sql.logPurges, [this.dbId, logSeqs, logIds, logRevs]);
      await q(this.sql.prunePurges, [this.dbId, c.purgeSeq - Math.max(1, keepInfos)]);
      await q(this.sql.saveCounters, [this.dbId, c.updateSeq, c.docCount, c.docDelCount, c.external]);
      await q(this.sql.savePurgeSeq, [this.dbId, c.purgeSeq]);
      return { result, purgeSeq: c.purgeSeq, updateSeq: c.updateSeq };
    });
  }

  async purgeSeq(): Promise<number> {
    return Number((await this.readCounters()).purge_seq);
  }

  async *foldPurges(since: number): AsyncGenerator<Page<PurgeInfo>> {
    type PurgeRow = { seq: string; id: string; revs: string };
    const pages = keysetPagesAsync(
      since,
      (row: PurgeRow) => Number(row.seq),
      PURGES_PAGE,
      ({ from, limit }) => this.query<PurgeRow>(this.sql.purges, [this.dbId, from, limit]),
    );
    for await (const rows of pages) {
      yield rows.map((r) => ({ purgeSeq: Number(r.seq), id: r.id, revs: JSON.parse(r.revs) as string[] }));
    }
  }

  async oldestPurge(): Promise<number> {
    const [row] = await this.query<{ seq: string | null }>(this.sql.oldestPurge, [this.dbId]);
    if (row?.seq !== null && row?.seq !== undefined) return Number(row.seq);
    return (await this.purgeSeq()) + 1;
  }

  async compact(ids: readonly string[], plan: CompactPlanner): Promise<void> {
    await this.transaction(async (client) => {
      const { records } = await this.lockedRecords(client, ids);
      const writes = plan(records);
      if (writes.length === 0) return;
      const dropIds: string[] = [];
      const dropRevs: string[] = [];
      for (const w of writes) {
        for (const rev of w.dropBodies) {
          dropIds.push(w.id);
          dropRevs.push(rev);
        }
      }
      if (dropIds.length > 0) await client.query({ ...this.sql.dropBodies, values: [this.dbId, dropIds, dropRevs] });
      await client.query({
        ...this.sql.setTrees,
        values: [this.dbId, writes.map((w) => w.id), writes.map((w) => w.tree)],
      });
    });
  }

  /** PostgreSQL's files hold every database: their space is the server's (autovacuum) to give back. */
  async reclaimSpace(_maxPages: number): Promise<boolean> {
    return false;
  }

  async *foldDocs(range: IdRange): AsyncGenerator<Page<DocRecord>> {
    const filter = range.includeDeleted === true ? '' : 'NOT deleted';
    for await (const rows of this.foldRange<DocRow>('docs', 'id, seq, rev, deleted, tree', filter, range)) {
      yield rows.map(toRecord);
    }
  }

  async *foldDocBodies(range: IdRange): AsyncGenerator<Page<ChangedDoc>> {
    for await (const records of this.foldDocs(range)) {
      const live = records.filter((r) => !r.deleted);
      const bodies = await this.getBodies(live.map((r) => ({ id: r.id, rev: r.rev })));
      const bodyOf = new Map(live.map((r, i) => [r, bodies[i]]));
      yield records.map((r) => ({ ...r, body: bodyOf.get(r) }));
    }
  }

  async countDocs(range: IdRange): Promise<number> {
    const { where, params } = rangeWhere(range, range.start, range.descending === true ? '<=' : '>=', '', 2);
    if (where === '') {
      const c = await this.counters();
      return c.docCount + (range.includeDeleted === true ? c.docDelCount : 0);
    }
    const filter = range.includeDeleted === true ? '' : ' AND NOT deleted';
    const [row] = await this.query<{ n: string }>(
      `SELECT count(*) AS n FROM ${this.sql.schema}.docs WHERE db_id = $1${where}${filter}`,
      [this.dbId, ...params],
    );
    return Number(row?.n ?? 0);
  }

  async *foldChanges(since: number, descending = false): AsyncGenerator<Page<DocRecord>> {
    const pages = descending
      ? keysetPagesAsync(Number.MAX_SAFE_INTEGER, bySeq, GROWING_PAGES, ({ from, limit }) =>
          this.query<DocRow>(this.sql.changesDesc, [this.dbId, since, from, limit]),
        )
      : keysetPagesAsync(since, bySeq, GROWING_PAGES, ({ from, limit }) =>
          this.query<DocRow>(this.sql.changes, [this.dbId, from, limit]),
        );
    for await (const rows of pages) yield rows.map(toRecord);
  }

  async *foldChangedBodies(since: number): AsyncGenerator<Page<ChangedDoc>> {
    const pages = keysetPagesAsync(since, bySeq, GROWING_PAGES, ({ from, limit }) =>
      this.query<DocRow & { body: string | null }>(this.sql.changedBodies, [this.dbId, from, limit]),
    );
    for await (const rows of pages) {
      yield rows.map((r) => ({
        id: r.id,
        seq: Number(r.seq),
        rev: r.rev,
        deleted: r.deleted,
        body: r.body ?? undefined,
        tree: r.tree,
      }));
    }
  }

  async countChanges(since: number): Promise<number> {
    if (since <= 0) {
      const c = await this.counters();
      return c.docCount + c.docDelCount;
    }
    const [row] = await this.query<{ n: string }>(this.sql.countChanges, [this.dbId, since]);
    return Number(row?.n ?? 0);
  }

  async getLocal(id: string): Promise<LocalDoc | undefined> {
    const [row] = await this.query<LocalDoc>(this.sql.getLocal, [this.dbId, id]);
    return row === undefined ? undefined : { id: row.id, rev: row.rev, body: row.body };
  }

  async putLocal(doc: LocalDoc): Promise<void> {
    const rows = await this.queryCount(this.sql.putLocal, [this.dbId, doc.id, doc.rev, doc.body]);
    if (rows === 0) throw gone(this.name);
  }

  async deleteLocal(id: string): Promise<boolean> {
    return (await this.queryCount(this.sql.deleteLocal, [this.dbId, id])) > 0;
  }

  async *foldLocal(range: IdRange): AsyncGenerator<Page<LocalDoc>> {
    for await (const rows of this.foldRange<LocalDoc>('local_docs', 'id, rev, body', '', range)) {
      yield rows.map((r) => ({ id: r.id, rev: r.rev, body: r.body }));
    }
  }

  async putAttachment(source: AttachmentSource): Promise<AttachmentInfo> {
    const temporary = `${UPLOADING}${randomUUID()}`;
    const md5 = createHash('md5');
    let length = 0;
    let n = 0;
    const chunks = this.sql.chunks;
    try {
      for await (const piece of fixedChunks(source)) {
        md5.update(piece);
        length += piece.length;
        await this.query(`INSERT INTO ${chunks} (db_id, digest, n, data) VALUES ($1, $2, $3, $4)`, [
          this.dbId,
          temporary,
          n++,
          piece,
        ]);
      }
      const digest = `md5-${md5.digest('base64')}`;
      await this.transaction(async (client) => {
        const inserted = await client.query(
          `INSERT INTO ${this.sql.attachments} (db_id, digest, length) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
          [this.dbId, digest, length],
        );
        if (inserted.rowCount === 0) {
          await client.query(`DELETE FROM ${chunks} WHERE db_id = $1 AND digest = $2`, [this.dbId, temporary]);
        } else {
          await client.query(`UPDATE ${chunks} SET digest = $3 WHERE db_id = $1 AND digest = $2`, [
            this.dbId,
            temporary,
            digest,
          ]);
        }
      });
      return { digest, length };
    } catch (error) {
      await this.query(`DELETE FROM ${chunks} WHERE db_id = $1 AND digest = $2`, [this.dbId, temporary]).catch(
        () => {},
      );
      throw error;
    }
  }

  async attachmentInfo(digest: string): Promise<AttachmentInfo | undefined> {
    const [row] = await this.query<{ digest: string; length: string }>(
      `SELECT digest, length FROM ${this.sql.attachments} WHERE db_id = $1 AND digest = $2`,
      [this.dbId, digest],
    );
    return row === undefined ? undefined : { digest: row.digest, length: Number(row.length) };
  }

  async *readAttachment(digest: string, start = 0, end?: number): AsyncGenerator<Uint8Array> {
    const info = await this.attachmentInfo(digest);
    if (info === undefined) return;
    yield* chunkRange(
      info.length,
      async (n) => {
        // In pieces: node-postgres reads a bytea as a hex string first, and a 512 KiB string is
        // only freed by a full collection (large objects), so a long download would pile them
        // up; 64 KiB strings die young. One round trip all the same.
        const rows = await this.query<{ piece: Buffer }>(
          `SELECT substring(c.data FROM g FOR ${READ_PIECE}) AS piece
           FROM ${this.sql.chunks} c, generate_series(1, octet_length(c.data), ${READ_PIECE}) AS g
           WHERE c.db_id = $1 AND c.digest = $2 AND c.n = $3 ORDER BY g`,
          [this.dbId, digest, n],
        );
        if (rows.length === 0) return undefined;
        return rows.length === 1 ? rows[0]!.piece : Buffer.concat(rows.map((r) => r.piece));
      },
      start,
      end,
    );
  }

  async deleteAttachments(digests: readonly string[]): Promise<void> {
    if (digests.length === 0) return;
    await this.transaction(async (client) => {
      for (const table of [this.sql.attachments, this.sql.chunks]) {
        await client.query(`DELETE FROM ${table} WHERE db_id = $1 AND digest = ANY($2)`, [this.dbId, [...digests]]);
      }
    });
  }

  async *foldAttachments(): AsyncGenerator<Page<AttachmentInfo>> {
    type AttachmentRow = { digest: string; length: string };
    const pages = keysetPagesAsync(
      '',
      (row: AttachmentRow) => row.digest,
      ATTACHMENTS_PAGE,
      ({ from, limit }) =>
        this.query<AttachmentRow>(
          `SELECT digest, length FROM ${this.sql.attachments} WHERE db_id = $1 AND digest > $2 ORDER BY digest LIMIT $3`,
          [this.dbId, from, limit],
        ),
    );
    for await (const rows of pages) yield rows.map((r) => ({ digest: r.digest, length: Number(r.length) }));
  }

  attachmentWrite<T>(write: () => Promise<T>): Promise<T> {
    return this.attachmentWrites.run(this.dbId, write);
  }

  attachmentSweepMark(): Promise<AttachmentSweepMark | undefined> {
    return this.transaction((client) => this.attachmentWrites.quiet(client, this.dbId));
  }

  sweepAttachments(digests: readonly string[], mark: AttachmentSweepMark): Promise<boolean> {
    return this.transaction(async (client) => {
      // No node writes attachments to this database while this transaction holds the lock.
      if ((await this.attachmentWrites.quiet(client, this.dbId)) !== mark) return false;
      for (const table of [this.sql.attachments, this.sql.chunks]) {
        await client.query(`DELETE FROM ${table} WHERE db_id = $1 AND digest = ANY($2)`, [this.dbId, [...digests]]);
      }
      // So chunks still under an upload's key are those of uploads that never finished (their
      // node died, or could not clean up).
      await client.query(`DELETE FROM ${this.sql.chunks} WHERE db_id = $1 AND digest LIKE $2`, [
        this.dbId,
        `${UPLOADING}%`,
      ]);
      return true;
    });
  }

  async getProp(key: string): Promise<string | undefined> {
    const [row] = await this.query<{ value: string }>(this.sql.getProp, [this.dbId, key]);
    return row?.value;
  }

  async setProp(key: string, value: string): Promise<void> {
    const rows = await this.queryCount(this.sql.setProp, [this.dbId, key, value]);
    if (rows === 0) throw gone(this.name);
  }

  private async queryCount(config: { name: string; text: string }, values: unknown[]): Promise<number> {
    try {
      return (await this.pool.query({ ...config, values })).rowCount ?? 0;
    } catch (err) {
      throw storageError(err);
    }
  }

  /**
   * Rows of `table` by id in walk order, a query per page (keyset pagination): each page starts
   * after the last id of the one before, so no statement or transaction stays open between pages.
   */
  private foldRange<Row extends { id: string }>(
    table: string,
    columns: string,
    filter: string,
    range: IdRange,
  ): AsyncGenerator<readonly Row[]> {
    const desc = range.descending === true;
    return keysetPagesAsync(
      range.start,
      (row: Row) => row.id,
      GROWING_PAGES,
      ({ from, first, limit }) => {
        const fromOp = desc ? (first ? '<=' : '<') : first ? '>=' : '>';
        const { where, params } = rangeWhere(range, from, fromOp, filter, 2);
        return this.query<Row>(
          `SELECT ${columns} FROM ${this.sql.schema}.${table} WHERE db_id = $1${where} ORDER BY id${desc ? ' DESC' : ''} LIMIT $${params.length + 2}`,
          [this.dbId, ...params, limit],
        );
      },
    );
  }
}

/**
 * The extra conditions (each starting with ` AND `) of a range walk whose next row is
 * `fromOp from` (`from` undefined: no bound); parameters are numbered from `first`.
 */
function rangeWhere(
  range: IdRange,
  from: string | undefined,
  fromOp: string,
  filter: string,
  first: number,
): { where: string; params: string[] } {
  const desc = range.descending === true;
  let where = '';
  const params: string[] = [];
  if (from !== undefined) {
    params.push(from);
    where += ` AND id ${fromOp} $${first + params.length - 1}`;
  }
  if (range.end !== undefined) {
    const inclusive = range.inclusiveEnd !== false;
    params.push(range.end);
    where += ` AND id ${desc ? '>' : '<'}${inclusive ? '=' : ''} $${first + params.length - 1}`;
  }
  if (filter !== '') where += ` AND ${filter}`;
  return { where, params };
}
