/**
 * A write in one round trip (issue #31): planned before its transaction on the records this
 * node assumes (a document it wrote last as it wrote it, any other id as absent, `design_seq`
 * as it last saw it), then sent as one batch: `BEGIN`, the writers' lock, one statement that
 * writes only when every assumption holds under the lock (`writeAssumed`), and `COMMIT`. So the
 * contract's rule holds as on the usual path (the plan sees the records as they are under the
 * lock, on every node): a plan is pure (storage/contract.ts `Planner`), and one whose
 * assumptions turned out false wrote nothing; the write then goes the usual way (lock and read,
 * then plan and write: two round trips), and after such a miss the next writes of the
 * database go that way for a while (a workload that updates documents this node did not write).
 *
 * Planned on assumptions only where the usual path would write with one statement too: no
 * access rows, every id asked written (a plan that refuses an id, such as an update of a
 * document assumed absent, is better planned on what is there), no body's size to look up and
 * no tree chunk to write (./tree-chunks.ts: once every CHUNK_NODES updates of a long history).
 */
import { toWellFormed } from '../../support/unicode.js';
import type { Planner } from '../contract.js';
import type { DocRecord } from '../records.js';
import { batchColumns, docColumns, isUsualBatch, type OldState, type StoredTree, storedTrees } from './doc-writes.js';
import type { BatchStatement } from './statement-batch.js';
import { type DbTarget, GENERIC_PLANS } from './statements.js';
import { TreeChunkWrites } from './tree-chunks.js';

/** Documents whose last write this node remembers, per database (the last written kept). */
const KEPT_RECORDS = 32;
/** Writes that go the usual way after a miss: doubled at each miss in a row, up to the most. */
const PAUSE_FIRST = 8;
const PAUSE_MOST = 1024;

/** What a document's row held after this node's last committed write of it. */
type KeptRecord = Omit<StoredTree, 'id'>;

/**
 * A write planned on assumptions: its statements (the write last), and what it gives once it
 * wrote (`base`: `update_seq` before it).
 */
export interface AssumedWrite<R> {
  statements: BatchStatement[];
  result: R;
  written(base: number): { seqs: number[]; trees: StoredTree[]; designSeq: number };
}

/** One database's assumptions: the records this node wrote last, and `design_seq` as last seen. */
export class AssumedWrites {
  private readonly kept = new Map<string, KeptRecord>();
  private designSeq: number | undefined;
  /** Writes left to go the usual way, and how many the next miss sends there. */
  private paused = 0;
  private pause = PAUSE_FIRST;

  /** After a write committed (either way): what it stored, and `design_seq` after it. */
  committed(trees: readonly StoredTree[], designSeq: number): void {
    this.designSeq = designSeq;
    for (const { id, ...record } of trees) {
      this.kept.delete(id);
      this.kept.set(id, record);
      if (this.kept.size > KEPT_RECORDS) this.kept.delete(this.kept.keys().next().value!);
    }
  }

  /** An assumption failed: the usual way for a while, and what the lock read is seen. */
  missed(ids: readonly string[], designSeq: number): void {
    this.designSeq = designSeq;
    this.forget(ids);
    this.paused = this.pause;
    this.pause = Math.min(this.pause * 2, PAUSE_MOST);
  }

  /** Forgets documents changed other than by a write (purge, compaction): ids well-formed. */
  forget(ids: Iterable<string>): void {
    for (const id of ids) this.kept.delete(id);
  }

  /**
   * The write of `ids` planned by `plan` on the assumptions, or undefined when it is to go the
   * usual way (nothing known yet, paused after a miss, a plan not written in one statement).
   */
  plan<R>(db: DbTarget, ids: readonly string[], plan: Planner<R>): AssumedWrite<R> | undefined {
    if (this.designSeq === undefined || ids.length === 0) return undefined;
    if (this.paused > 0) {
      this.paused--;
      return undefined;
    }
    const wellFormed = [...new Set(ids.map(toWellFormed))];
    const records = new Map<string, DocRecord>();
    const old = new Map<string, OldState>();
    for (const id of ids) {
      const kept = this.kept.get(toWellFormed(id));
      if (kept === undefined) continue;
      records.set(id, { id: toWellFormed(id), seq: kept.seq, rev: kept.rev, deleted: kept.deleted, tree: kept.text });
      old.set(toWellFormed(id), { deleted: kept.deleted, size: kept.size, rev: kept.rev, tree: kept.stored });
    }
    let planned: ReturnType<Planner<R>>;
    try {
      planned = plan(records, this.designSeq);
    } catch {
      // Planned again on the records read under the lock (which may throw the same).
      return undefined;
    }
    const { writes, result } = planned;
    const written = new Set(writes.map((w) => toWellFormed(w.record.id)));
    if (writes.length !== wellFormed.length || wellFormed.some((id) => !written.has(id))) return undefined;
    if (writes.some((w) => w.bodies.some((b) => typeof b.body !== 'string'))) return undefined;
    const cols = batchColumns(writes, old, true);
    if (!isUsualBatch(writes, cols)) return undefined;
    // Sequences and counters as offsets from the `dbs` row the statement finds under the lock.
    const moved = {
      updateSeq: 0,
      docCount: 0,
      docDelCount: 0,
      external: 0,
      purgeSeq: 0,
      bodies: undefined,
      designSeq: 0,
    };
    const trees = new TreeChunkWrites();
    const docs = docColumns(writes, old, cols.sizes, moved, trees);
    if (!trees.isEmpty()) return undefined;
    const assumedDesignSeq = this.designSeq;
    const assumedSeqs = wellFormed.map((id) => this.kept.get(id)?.seq ?? null);
    const assumedTrees = wellFormed.map((id) => this.kept.get(id)?.stored ?? null);
    const dropping = cols.dropIds.length > 0;
    const sql = dropping ? db.sql.writeAssumedDropping : db.sql.writeAssumed;
    const statement: BatchStatement = {
      ...sql,
      values: [
        db.dbId,
        cols.bodyIds,
        cols.bodyRevs,
        cols.bodyTexts,
        docs.ids,
        docs.seqs,
        docs.revs,
        docs.deleted,
        docs.sizes,
        docs.trees,
        moved.updateSeq,
        moved.docCount,
        moved.docDelCount,
        moved.external,
        cols.unleaf,
        moved.designSeq === 0 ? null : moved.designSeq,
        assumedDesignSeq,
        wellFormed,
        assumedSeqs,
        assumedTrees,
        ...(dropping ? [cols.dropIds, cols.dropRevs] : []),
      ],
    };
    return {
      // The dropping one on its kept plan, as on the usual path (statements.ts GENERIC_PLANS).
      statements: dropping ? [GENERIC_PLANS, statement] : [statement],
      result,
      written: (base) => {
        const seqs = docs.seqs.map((offset) => base + offset);
        const designSeq = moved.designSeq === 0 ? assumedDesignSeq : base + moved.designSeq;
        return { seqs, trees: storedTrees(writes, { ...docs, seqs }), designSeq };
      },
    };
  }
}
