/**
 * What changes documents in a database file: write batches (new documents go in with multi-row
 * INSERTs), purges and compaction's rewrites. Purges and compaction save the counters in `meta`
 * with them; a write batch does not (a page less per commit): its counters follow from the rows
 * it leaves, which `loadCounters` (./sqlite-file.ts) counts again when `meta` is behind them.
 */
import type Database from 'better-sqlite3';
import type { CompactWrite, DocRecord, DocWrite, PurgeWrite } from '../records.js';
import type { OldRow, StoredCounters } from './doc-rows.js';
import { COUNTERS, STALE } from './schema.js';
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
  /**
   * The largest `k` given so far, once read (this connection is the file's only writer): a new
   * document then costs no `max(k)` lookup. A key given in a transaction that rolled back is just
   * skipped, and so is one a purge freed: keys need only be unique.
   */
  private maxKey: number | undefined;
  /** Multi-row inserts by row count (CHUNK_ROWS), prepared on first use. */
  private readonly stmtInsertDocs = new Map<number, Statement>();
  private readonly stmtPutBodies = new Map<number, Statement>();
  private readonly stmtUpdateDoc: Statement;
  private readonly stmtUpdateDocAccess: Statement;
  private readonly stmtPutBody: Statement;
  private readonly stmtDropBody: Statement;
  private readonly stmtSetTree: Statement;
  private readonly stmtBodySize: Statement;
  private readonly stmtWinnerSize: Statement;
  private readonly stmtKeepOldWinner: Statement;
  private readonly stmtTakeBody: Statement;
  private readonly stmtSaveCounters: Statement;
  /** `stmtSaveCounters` with the stale bodies' bytes, once the file keeps them. */
  private readonly stmtSaveCountersStale: Statement;

  constructor(
    private readonly db: Database.Database,
    /** Where long one-line histories are kept (./tree-chunks.ts): every tree is stored through it. */
    private readonly trees: TreeChunks,
  ) {
    this.stmtOld = db.prepare('SELECT k, deleted, size, tree, rev FROM docs WHERE id = ?').raw();
    // `k` is given explicitly on insert, as SQLite would pick it: one more than the largest.
    this.stmtMaxKey = db.prepare('SELECT max(k) FROM docs').pluck();
    // The winner's body is set when `WinnerBody.set` (a new winner, or its body written), else kept.
    const body = 'body = CASE WHEN ? THEN ? ELSE body END';
    this.stmtUpdateDoc = db.prepare(
      `UPDATE docs SET seq = ?, rev = ?, deleted = ?, size = ?, tree = ?, ${body} WHERE k = ?`,
    );
    this.stmtUpdateDocAccess = db.prepare(
      `UPDATE docs SET seq = ?, rev = ?, deleted = ?, size = ?, tree = ?, access = ?, ${body} WHERE k = ?`,
    );
    this.stmtPutBody = db.prepare('INSERT OR REPLACE INTO bodies (doc, rev, body) VALUES (?, ?, ?)');
    // The dropped body's bytes come back: a dropped body was stale (see `apply`).
    this.stmtDropBody = db
      .prepare('DELETE FROM bodies WHERE doc = ? AND rev = ? RETURNING length(CAST(body AS BLOB))')
      .pluck();
    this.stmtSetTree = db.prepare('UPDATE docs SET tree = ? WHERE k = ?');
    // CAST to BLOB makes length() count bytes instead of characters.
    this.stmtBodySize = db.prepare('SELECT length(CAST(body AS BLOB)) FROM bodies WHERE doc = ? AND rev = ?').pluck();
    this.stmtWinnerSize = db.prepare('SELECT length(CAST(body AS BLOB)) FROM docs WHERE k = ?').pluck();
    // A winner that stops being one keeps its body, in `bodies` (run before its row changes).
    this.stmtKeepOldWinner = db.prepare(
      'INSERT OR REPLACE INTO bodies (doc, rev, body) SELECT k, rev, body FROM docs WHERE k = ? AND body IS NOT NULL',
    );
    // A revision that becomes the winner takes its body out of `bodies`, into its row.
    this.stmtTakeBody = db.prepare('DELETE FROM bodies WHERE doc = ? AND rev = ? RETURNING body').pluck();
    this.stmtSaveCounters = db.prepare(
      `INSERT OR REPLACE INTO meta (key, value) VALUES ${COUNTERS.map((k) => `('${k}', ?)`).join(', ')}`,
    );
    this.stmtSaveCountersStale = db.prepare(
      `INSERT OR REPLACE INTO meta (key, value) VALUES ${[...COUNTERS, STALE].map((k) => `('${k}', ?)`).join(', ')}`,
    );
  }

  /** Bytes of the body of revision `rev` of document `k` (`old`: its row), 0 where none is stored. */
  private bodySize(k: number, rev: string, old: OldRow): number {
    if (rev !== old[4]) return (this.stmtBodySize.get(k, rev) as number | undefined) ?? 0;
    // The winner's body is in its row; a live one's size is there too.
    return old[1] === 0 ? old[2] : ((this.stmtWinnerSize.get(k) as number | null | undefined) ?? 0);
  }

  /**
   * Moves the winner's body where a write (or purge) of document `k` (`old`: its row before)
   * leaves it: the old winner's into `bodies` unless `dropped`, and the new winner's out of the
   * write's `bodies`, or else out of the table. Returns what the row's `body` becomes.
   */
  private winnerBody(
    k: number,
    old: OldRow,
    rev: string,
    bodies: DocWrite['bodies'],
    dropped: readonly string[] | undefined,
  ): WinnerBody {
    const oldDropped = dropped?.includes(old[4]) === true;
    if (rev !== old[4] && !oldDropped) this.stmtKeepOldWinner.run(k);
    for (const b of bodies) if (b.rev === rev) return { set: 1, body: b.body };
    if (rev === old[4]) return oldDropped ? NO_BODY : KEEP_BODY;
    return { set: 1, body: (this.stmtTakeBody.get(k, rev) as string | undefined) ?? null };
  }

  /**
   * Drops the bodies of `revs` of document `k`: their bytes, all of them stale when dropped (a
   * write drops stemmed revisions, which were not leaves or are `unleafed` by it; compaction
   * drops bodies of revisions that are not leaves).
   */
  private dropBodies(k: number, revs: readonly string[], old: OldRow): number {
    let bytes = 0;
    for (const rev of revs) {
      // The winner's (a write or purge that drops it gives the row another winner's body).
      if (rev === old[4]) bytes += this.bodySize(k, rev, old);
      else bytes += (this.stmtDropBody.get(k, rev) as number | undefined) ?? 0;
    }
    return bytes;
  }

  /**
   * Writes a batch (`SqliteSyncStore.writeDocs`); run inside the caller's transaction. Returns
   * each write's sequence and the counters after it (`totals` is not changed: a transaction that
   * throws leaves the caller's counters as they were), which are not saved: every write leaves
   * its sequence on its document's row, so `meta` is behind the rows until the next save. `olds`: rows of the documents read in
   * this transaction before (./doc-reads.ts `getForUpdate`); each is used once, as the first
   * write of its document in the batch changes it.
   */
  apply(
    writes: readonly DocWrite[],
    totals: StoredCounters,
    olds?: Map<string, OldRow>,
    /**
     * Each write's `docs.access` text (./access-rows.ts), which its row is inserted or updated
     * with (undefined: the write leaves the document's access as it is).
     */
    accessTexts?: readonly (string | null | undefined)[],
  ): { seqs: number[]; keys: number[]; counters: StoredCounters } {
    const c = copyCounters(totals);
    const seqs: number[] = [];
    // Each write's `docs.k` (the access rows name their document by it).
    const keys: number[] = [];
    // New documents' rows wait here and go in with multi-row INSERTs (flushed before any
    // statement that could see them): 9 values per docs row (the winner's body last), 3 per
    // bodies row (the other revisions').
    const docRows: unknown[] = [];
    const bodyRows: unknown[] = [];
    const flush = (): void => {
      this.insertRows(
        this.stmtInsertDocs,
        'INSERT INTO docs (k, id, seq, rev, deleted, size, tree, access, body)',
        9,
        docRows,
      );
      this.insertRows(this.stmtPutBodies, 'INSERT OR REPLACE INTO bodies (doc, rev, body)', 3, bodyRows);
    };
    let nextKey = 0; // read when the first new document needs one
    for (let i = 0; i < writes.length; i++) {
      const { record, bodies, dropBodies, isNew, treeGrowth, unleafed } = writes[i]!;
      for (const b of bodies) {
        if (typeof b.body !== 'string') throw new TypeError(`body of ${record.id} ${b.rev} is not a string`);
      }
      const seq = ++c.updateSeq;
      const deleted = record.deleted ? 1 : 0;
      let old: OldRow | undefined;
      if (!isNew) {
        flush();
        old = olds?.get(record.id);
        if (old === undefined) old = this.stmtOld.get(record.id) as OldRow | undefined;
        else olds!.delete(record.id);
      }
      let size = 0;
      if (old === undefined) {
        if (!record.deleted) size = sizeInBatch(bodies, record.rev) ?? 0;
        if (nextKey === 0) nextKey = (this.maxKey ?? (this.stmtMaxKey.get() as number | null) ?? 0) + 1;
        const k = nextKey++;
        this.maxKey = k;
        keys.push(k);
        // Bodies of a new document are all in the batch: those stemmed by a later write of it in
        // the batch are not stored at all, those no longer leaves count as stale.
        const dropped = dropBodies === undefined || dropBodies.length === 0 ? undefined : new Set(dropBodies);
        if (c.stale !== undefined && unleafed !== undefined) {
          for (const rev of unleafed) if (dropped?.has(rev) !== true) c.stale += sizeInBatch(bodies, rev) ?? 0;
        }
        let winner: string | null = null;
        for (const b of bodies) if (b.rev === record.rev) winner = b.body;
        docRows.push(
          k,
          record.id,
          seq,
          record.rev,
          deleted,
          size,
          this.trees.store(k, record.tree, undefined, undefined),
          accessTexts?.[i] ?? null,
          winner,
        );
        for (const b of bodies)
          if (b.rev !== record.rev && dropped?.has(b.rev) !== true) bodyRows.push(k, b.rev, b.body);
      } else {
        const k = old[0];
        keys.push(k);
        // New stale bodies, then the dropped ones (each stale by then): see DocWrite.unleafed.
        // Sizes are read before any body moves (the old winner's is on its row).
        if (c.stale !== undefined && unleafed !== undefined) {
          for (const rev of unleafed) c.stale += sizeInBatch(bodies, rev) ?? this.bodySize(k, rev, old);
        }
        if (dropBodies !== undefined) {
          const bytes = this.dropBodies(k, dropBodies, old);
          if (c.stale !== undefined) c.stale -= bytes;
        }
        const winner = this.winnerBody(k, old, record.rev, bodies, dropBodies);
        for (const b of bodies) if (b.rev !== record.rev) this.stmtPutBody.run(k, b.rev, b.body);
        if (!record.deleted) size = winner.set === 0 ? old[2] : byteLength(winner.body);
        const tree = this.trees.store(k, record.tree, old[3], treeGrowth);
        const accessText = accessTexts?.[i];
        if (accessText === undefined)
          this.stmtUpdateDoc.run(seq, record.rev, deleted, size, tree, winner.set, winner.body, k);
        else this.stmtUpdateDocAccess.run(seq, record.rev, deleted, size, tree, accessText, winner.set, winner.body, k);
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
    return { seqs, keys, counters: c };
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

  /** Saves the counters (a role change's sequences, a clean close), in the caller's transaction. */
  saveCounters(c: StoredCounters): void {
    if (c.stale === undefined)
      this.stmtSaveCounters.run(c.updateSeq, c.docCount, c.docDelCount, c.external, c.purgeSeq);
    else this.stmtSaveCountersStale.run(c.updateSeq, c.docCount, c.docDelCount, c.external, c.purgeSeq, c.stale);
  }

  /** A purge (`SqliteSyncStore.purgeDocs`), inside the caller's transaction; the counters after it. */
  purge(
    purges: readonly PurgeWrite[],
    keepInfos: number,
    totals: StoredCounters,
    /** Told of each purge that gave its document a new record, with that record's sequence. */
    resequenced?: (purge: PurgeWrite, seq: number) => void,
  ): StoredCounters {
    const c = copyCounters(totals);
    const db = this.db;
    const before = c.updateSeq;
    const logPurge = db.prepare('INSERT INTO purges (seq, id, revs) VALUES (?, ?, ?)');
    for (const purge of purges) {
      const { id, revs, record, dropBodies, staleGone } = purge;
      logPurge.run(++c.purgeSeq, id, JSON.stringify(revs));
      if (record === undefined) continue;
      const old = this.stmtOld.get(id) as OldRow | undefined;
      if (old === undefined) continue;
      const [k, oldDeleted, oldSize, oldTree] = old;
      if (oldDeleted !== 0) c.docDelCount--;
      else c.docCount--;
      c.external -= oldSize;
      // Read before any body goes: bodies that stop counting as stale.
      if (c.stale !== undefined && staleGone !== undefined)
        for (const rev of staleGone) c.stale -= this.bodySize(k, rev, old);
      if (record === null) {
        db.prepare('DELETE FROM bodies WHERE doc = ?').run(k);
        db.prepare('DELETE FROM docs WHERE k = ?').run(k);
        this.trees.drop(k);
        continue;
      }
      if (dropBodies !== undefined) this.dropBodies(k, dropBodies, old);
      const winner = this.winnerBody(k, old, record.rev, [], dropBodies);
      let size = 0;
      if (!record.deleted) size = winner.set === 0 ? oldSize : byteLength(winner.body);
      const tree = this.trees.store(k, record.tree, oldTree, undefined);
      this.stmtUpdateDoc.run(++c.updateSeq, record.rev, record.deleted ? 1 : 0, size, tree, winner.set, winner.body, k);
      resequenced?.(purge, c.updateSeq);
      if (record.deleted) c.docDelCount++;
      else c.docCount++;
      c.external += size;
    }
    // As CouchDB: the update sequence moves even when no document was re-sequenced.
    if (c.updateSeq === before) c.updateSeq++;
    db.prepare('DELETE FROM purges WHERE seq <= ?').run(c.purgeSeq - Math.max(1, keepInfos));
    this.saveCounters(c);
    return c;
  }

  /** Compaction's rewrites (`SqliteSyncStore.compactDocs`), in a transaction of their own; the counters after them. */
  compact(writes: readonly CompactWrite[], totals: StoredCounters): StoredCounters {
    if (writes.length === 0) return totals;
    const c = copyCounters(totals);
    this.db.transaction(() => {
      for (const { id, tree, dropBodies } of writes) {
        const old = this.stmtOld.get(id) as OldRow | undefined;
        if (old === undefined) continue;
        // Compaction drops bodies of revisions that are not leaves: never the winner's.
        const bytes = this.dropBodies(
          old[0],
          dropBodies.filter((rev) => rev !== old[4]),
          old,
        );
        if (c.stale !== undefined) c.stale -= bytes;
        this.stmtSetTree.run(this.trees.store(old[0], tree, old[3], undefined), old[0]);
      }
      if (c.stale !== undefined) this.saveCounters(c);
    })();
    return c;
  }

  /**
   * Counts the stale bodies' bytes of a file from before they were kept, inside the caller's
   * transaction: every body whose revision is not its document's winner, less the other leaves'
   * (`leavesOf`: a document's leaf revisions; conflicts are few, so those are looked up one by
   * one). Saves them with the counters; the counters after it.
   */
  countStale(
    totals: StoredCounters,
    records: Iterable<DocRecord & { k: number }>,
    leavesOf: (record: DocRecord) => readonly string[],
  ): StoredCounters {
    // `bodies` holds no winner's body (schema version 9).
    let stale = this.db
      .prepare('SELECT coalesce(sum(length(CAST(body AS BLOB))), 0) FROM bodies')
      .pluck()
      .get() as number;
    const others: [number, string][] = [];
    for (const record of records) {
      for (const rev of leavesOf(record)) if (rev !== record.rev) others.push([record.k, rev]);
    }
    for (const [k, rev] of others) stale -= (this.stmtBodySize.get(k, rev) as number | undefined) ?? 0;
    const c = { ...totals, stale };
    this.saveCounters(c);
    return c;
  }
}

/**
 * A copy of `c`, field by field: a spread of it went V8's slow clone path (`CloneObjectIC_Slow`,
 * ~0.8% of a c1 `PUT`'s main thread in a perf profile).
 */
function copyCounters(c: StoredCounters): StoredCounters {
  return {
    updateSeq: c.updateSeq,
    docCount: c.docCount,
    docDelCount: c.docDelCount,
    external: c.external,
    purgeSeq: c.purgeSeq,
    stale: c.stale,
  };
}

/** What a row's `body` becomes: set (1) to `body`, or kept as it is (0). */
interface WinnerBody {
  set: 0 | 1;
  body: string | null;
}

const KEEP_BODY: WinnerBody = { set: 0, body: null };
const NO_BODY: WinnerBody = { set: 1, body: null };

/** UTF-8 bytes of a body, 0 for none. */
function byteLength(body: string | null): number {
  return body === null ? 0 : Buffer.byteLength(body, 'utf8');
}

/** UTF-8 bytes of `rev`'s body when this write carries it. */
function sizeInBatch(bodies: DocWrite['bodies'], rev: string): number | undefined {
  for (const b of bodies) if (b.rev === rev) return Buffer.byteLength(b.body, 'utf8');
  return undefined;
}
