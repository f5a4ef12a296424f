/**
 * What changes documents in a database file: write batches (new documents go in with multi-row
 * INSERTs), purges and compaction's rewrites, each keeping the counters in `meta` with them.
 */
import type Database from 'better-sqlite3';
import type { CompactWrite, DocWrite, PurgeWrite } from '../records.js';
import type { OldRow, StoredCounters } from './doc-rows.js';
import { COUNTERS } from './schema.js';
import type { TreeChunks } from './tree-chunks.js';

type Statement = Database.Statement;

/**
 * Rows per multi-row statement: one statement call for many rows saves most of the per-call
 * cost of better-sqlite3 on bulk writes and lookups. Smaller sizes mop up a batch's remainder.
 */
const CHUNK_ROWS = [64, 16, 4, 1] as const;

export class SqliteDocWrites {
  private readonly stmtOld: Statement;
  private readonly stmtMaxKey: Statement;
  /** Multi-row inserts by row count (CHUNK_ROWS), prepared on first use. */
  private readonly stmtInsertDocs = new Map<number, Statement>();
  private readonly stmtPutBodies = new Map<number, Statement>();
  private readonly stmtUpdateDoc: Statement;
  private readonly stmtPutBody: Statement;
  private readonly stmtDropBody: Statement;
  private readonly stmtSetTree: Statement;
  private readonly stmtBodySize: Statement;
  private readonly stmtSaveCounters: Statement;

  constructor(
    private readonly db: Database.Database,
    /** Where long one-line histories are kept (./tree-chunks.ts): every tree is stored through it. */
    private readonly trees: TreeChunks,
  ) {
    this.stmtOld = db.prepare('SELECT k, deleted, size, tree FROM docs WHERE id = ?').raw();
    // `k` is given explicitly on insert, as SQLite would pick it: one more than the largest.
    this.stmtMaxKey = db.prepare('SELECT max(k) FROM docs').pluck();
    this.stmtUpdateDoc = db.prepare('UPDATE docs SET seq = ?, rev = ?, deleted = ?, size = ?, tree = ? WHERE k = ?');
    this.stmtPutBody = db.prepare('INSERT OR REPLACE INTO bodies (doc, rev, body) VALUES (?, ?, ?)');
    this.stmtDropBody = db.prepare('DELETE FROM bodies WHERE doc = ? AND rev = ?');
    this.stmtSetTree = db.prepare('UPDATE docs SET tree = ? WHERE k = ?');
    // CAST to BLOB makes length() count bytes instead of characters.
    this.stmtBodySize = db.prepare('SELECT length(CAST(body AS BLOB)) FROM bodies WHERE doc = ? AND rev = ?').pluck();
    this.stmtSaveCounters = db.prepare(
      `INSERT OR REPLACE INTO meta (key, value) VALUES ${COUNTERS.map((k) => `('${k}', ?)`).join(', ')}`,
    );
  }

  /**
   * Writes a batch (`SqliteSyncStore.writeDocs`); run inside the caller's transaction. Returns
   * each write's sequence and the counters after it (`totals` is not changed: a transaction that
   * throws leaves the caller's counters as they were).
   */
  apply(writes: readonly DocWrite[], totals: StoredCounters): { seqs: number[]; counters: StoredCounters } {
    const c = { ...totals };
    const seqs: number[] = [];
    // New documents' rows wait here and go in with multi-row INSERTs (flushed before any
    // statement that could see them): 7 values per docs row, 3 per bodies row.
    const docRows: unknown[] = [];
    const bodyRows: unknown[] = [];
    const flush = (): void => {
      this.insertRows(this.stmtInsertDocs, 'INSERT INTO docs (k, id, seq, rev, deleted, size, tree)', 7, docRows);
      this.insertRows(this.stmtPutBodies, 'INSERT OR REPLACE INTO bodies (doc, rev, body)', 3, bodyRows);
    };
    let nextKey = 0; // read when the first new document needs one
    for (const { record, bodies, dropBodies, isNew, treeGrowth } of writes) {
      for (const b of bodies) {
        if (typeof b.body !== 'string') throw new TypeError(`body of ${record.id} ${b.rev} is not a string`);
      }
      const seq = ++c.updateSeq;
      const deleted = record.deleted ? 1 : 0;
      let old: OldRow | undefined;
      if (!isNew) {
        flush();
        old = this.stmtOld.get(record.id) as OldRow | undefined;
      }
      let size = 0;
      if (old === undefined) {
        if (!record.deleted) size = sizeInBatch(bodies, record.rev) ?? 0;
        if (nextKey === 0) nextKey = ((this.stmtMaxKey.get() as number | null) ?? 0) + 1;
        const k = nextKey++;
        docRows.push(
          k,
          record.id,
          seq,
          record.rev,
          deleted,
          size,
          this.trees.store(k, record.tree, undefined, undefined),
        );
        for (const b of bodies) bodyRows.push(k, b.rev, b.body);
      } else {
        const k = old[0];
        for (const b of bodies) this.stmtPutBody.run(k, b.rev, b.body);
        if (dropBodies !== undefined) for (const rev of dropBodies) this.stmtDropBody.run(k, rev);
        if (!record.deleted) {
          size = sizeInBatch(bodies, record.rev) ?? (this.stmtBodySize.get(k, record.rev) as number | undefined) ?? 0;
        }
        this.stmtUpdateDoc.run(seq, record.rev, deleted, size, this.trees.store(k, record.tree, old[3], treeGrowth), k);
        if (old[1] !== 0) c.docDelCount--;
        else c.docCount--;
        c.external -= old[2];
      }
      if (record.deleted) c.docDelCount++;
      else c.docCount++;
      c.external += size;
      seqs.push(seq);
    }
    flush();
    this.stmtSaveCounters.run(c.updateSeq, c.docCount, c.docDelCount, c.external, c.purgeSeq);
    return { seqs, counters: c };
  }

  /** Runs `insert VALUES (...), ...` over `values` (`width` per row) in as few calls as CHUNK_ROWS allow; empties it. */
  private insertRows(statements: Map<number, Statement>, insert: string, width: number, values: unknown[]): void {
    let at = 0;
    for (const rows of CHUNK_ROWS) {
      const n = rows * width;
      if (values.length - at < n) continue;
      let stmt = statements.get(rows);
      if (stmt === undefined) {
        const row = `(${Array(width).fill('?').join(', ')})`;
        stmt = this.db.prepare(`${insert} VALUES ${Array(rows).fill(row).join(', ')}`);
        statements.set(rows, stmt);
      }
      while (values.length - at >= n) {
        stmt.run(at === 0 && values.length === n ? values : values.slice(at, at + n));
        at += n;
      }
    }
    values.length = 0;
  }

  /** Saves counters moved outside a document write (a role change's sequences), in the caller's transaction. */
  saveCounters(c: StoredCounters): void {
    this.stmtSaveCounters.run(c.updateSeq, c.docCount, c.docDelCount, c.external, c.purgeSeq);
  }

  /** A purge (`SqliteSyncStore.purgeDocs`), inside the caller's transaction; the counters after it. */
  purge(
    purges: readonly PurgeWrite[],
    keepInfos: number,
    totals: StoredCounters,
    /** Told of each purge that gave its document a new record, with that record's sequence. */
    resequenced?: (purge: PurgeWrite, seq: number) => void,
  ): StoredCounters {
    const c = { ...totals };
    const db = this.db;
    const before = c.updateSeq;
    const logPurge = db.prepare('INSERT INTO purges (seq, id, revs) VALUES (?, ?, ?)');
    for (const purge of purges) {
      const { id, revs, record, dropBodies } = purge;
      logPurge.run(++c.purgeSeq, id, JSON.stringify(revs));
      if (record === undefined) continue;
      const old = this.stmtOld.get(id) as OldRow | undefined;
      if (old === undefined) continue;
      const [k, oldDeleted, oldSize, oldTree] = old;
      if (oldDeleted !== 0) c.docDelCount--;
      else c.docCount--;
      c.external -= oldSize;
      if (record === null) {
        db.prepare('DELETE FROM bodies WHERE doc = ?').run(k);
        db.prepare('DELETE FROM docs WHERE k = ?').run(k);
        this.trees.drop(k);
        continue;
      }
      for (const rev of dropBodies ?? []) this.stmtDropBody.run(k, rev);
      const size = record.deleted ? 0 : ((this.stmtBodySize.get(k, record.rev) as number | undefined) ?? 0);
      const tree = this.trees.store(k, record.tree, oldTree, undefined);
      this.stmtUpdateDoc.run(++c.updateSeq, record.rev, record.deleted ? 1 : 0, size, tree, k);
      resequenced?.(purge, c.updateSeq);
      if (record.deleted) c.docDelCount++;
      else c.docCount++;
      c.external += size;
    }
    // As CouchDB: the update sequence moves even when no document was re-sequenced.
    if (c.updateSeq === before) c.updateSeq++;
    db.prepare('DELETE FROM purges WHERE seq <= ?').run(c.purgeSeq - Math.max(1, keepInfos));
    this.stmtSaveCounters.run(c.updateSeq, c.docCount, c.docDelCount, c.external, c.purgeSeq);
    return c;
  }

  /** Compaction's rewrites (`SqliteSyncStore.compactDocs`), in a transaction of their own. */
  compact(writes: readonly CompactWrite[]): void {
    if (writes.length === 0) return;
    this.db.transaction(() => {
      for (const { id, tree, dropBodies } of writes) {
        const old = this.stmtOld.get(id) as OldRow | undefined;
        if (old === undefined) continue;
        for (const rev of dropBodies) this.stmtDropBody.run(old[0], rev);
        this.stmtSetTree.run(this.trees.store(old[0], tree, old[3], undefined), old[0]);
      }
    })();
  }
}

/** UTF-8 bytes of `rev`'s body when this write carries it. */
function sizeInBatch(bodies: DocWrite['bodies'], rev: string): number | undefined {
  for (const b of bodies) if (b.rev === rev) return Buffer.byteLength(b.body, 'utf8');
  return undefined;
}
