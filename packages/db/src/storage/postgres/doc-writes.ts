/**
 * What changes documents in the PostgreSQL engine, each inside a transaction the caller holds on
 * `client`, under the database's writers' lock (the `dbs` row, taken first): write batches,
 * purges and compaction's rewrites, each keeping the counters of the `dbs` row with them.
 */
import type { PoolClient, QueryResultRow } from 'pg';
import { toWellFormed } from '../../support/unicode.js';
import type { CompactPlanner, Planner, PurgePlanner, UpdateOptions } from '../contract.js';
import { applyAccess, forgetAccess, withLeaves } from './access-rows.js';
import type { DocAccess } from '../doc-access.js';
import type { AccessWrite, DocRecord, DocWrite } from '../records.js';
import {
  countersOf,
  DESIGN_PREFIX,
  GENERIC_PLANS,
  lockedCountersOf,
  type DbTarget,
  type DocRow,
  gone,
  type LockedCounterRow,
  type LockedDocRow,
  toRecord,
} from './statements.js';
import type { TransactionEnd } from './errors.js';
import { TreeChunkWrites } from './tree-chunks.js';

/**
 * `DocumentStore.update` inside its transaction on `client`: locks the database's `dbs` row
 * (every other writer of it, on any node, waits here, so sequence order is commit order),
 * reads the records of `ids`, plans, and writes documents, bodies and counters with a few
 * multi-row statements.
 */
export async function updateLocked<R>(
  client: PoolClient,
  db: DbTarget,
  ids: readonly string[],
  plan: Planner<R>,
  options?: UpdateOptions,
  /**
   * What the transaction's `BEGIN` read already: the `dbs` row it locked (`lock`) and the
   * records of `ids` (`readForUpdateKept`), when it did.
   */
  begun?: { locked: LockedCounterRow | undefined; rows: LockedDocRow[] | undefined },
  /** Lets the usual batch send its statement and the COMMIT together. */
  end?: TransactionEnd,
): Promise<{ result: R; seqs: number[]; trees: StoredTree[]; designSeq: number }> {
  const q = async <T extends QueryResultRow>(config: { name: string; text: string }, values: unknown[]) =>
    (await client.query<T>({ ...config, values })).rows;
  const { locked, rows, records: found } = await lockedRecords(client, db, ids, begun?.locked, begun?.rows);
  // The documents' stored access, read once for the plan and the access rows.
  const accessRead = new Map<string, DocAccess>();
  const records = options?.access === true ? await withLeaves(client, db, found, accessRead) : found;
  const { writes, result } = plan(records, Number(locked.design_seq));
  if (writes.length === 0) return { result, seqs: [], trees: [], designSeq: Number(locked.design_seq) };
  for (const { record, bodies } of writes) {
    for (const b of bodies) {
      if (typeof b.body !== 'string') throw new TypeError(`body of ${record.id} ${b.rev} is not a string`);
    }
  }

  // The previous state of every written document (deleted flag, counted size, winner).
  const old = new Map<string, OldState>();
  // A plan may write a document whose id it was not given: its row is read now.
  const asked = new Set(ids);
  const readIds = new Set(rows.map((row) => row.id));
  const unread: string[] = [];
  for (const { record } of writes) {
    if (!asked.has(record.id) && !readIds.has(toWellFormed(record.id))) unread.push(record.id);
  }
  const oldRows = unread.length === 0 ? [] : await q<LockedDocRow>(db.sql.readForUpdate, [db.dbId, unread]);
  for (const row of [...rows, ...oldRows]) {
    old.set(row.id, { deleted: row.deleted, size: Number(row.size), rev: row.rev, tree: row.stored_tree });
  }
  const c = lockedCountersOf(locked);
  const { bodyIds, bodyRevs, bodyTexts, dropIds, dropRevs, sizes, sizeIds, sizeRevs, lookIds, lookRevs, unleaf } =
    batchColumns(writes, old, c.bodies !== undefined);
  let unleafedBytes = unleaf;
  // The usual batch (no access, no body looked up): bodies, records and counters in one statement,
  // its stored bytes counted by PostgreSQL from the bodies it inserted and those it dropped (an
  // update of a document at its revs limit drops the stemmed revision's body; every dropped
  // body was stale). Not when a body dropped is one written in the batch (the order would matter).
  if (isUsualBatch(writes, { lookIds, sizeIds, dropIds, dropRevs, bodyIds, bodyRevs })) {
    const trees = new TreeChunkWrites();
    const docs = docColumns(writes, old, sizes, c, trees);
    await trees.apply(client, db);
    if (c.bodies !== undefined) c.bodies.stale += unleafedBytes;
    const values = [
      db.dbId,
      bodyIds,
      bodyRevs,
      bodyTexts,
      docs.ids,
      docs.seqs,
      docs.revs,
      docs.deleted,
      docs.sizes,
      docs.trees,
      ...counterValues(db, c).slice(1),
      ...(dropIds.length === 0 ? [] : [dropIds, dropRevs]),
    ];
    const statement = dropIds.length === 0 ? db.sql.writeBatch : db.sql.writeBatchDropping;
    // The statement and the COMMIT in one round trip; the dropping one on its kept plan (GENERIC_PLANS).
    if (end === undefined) await q(statement, values);
    else await end.commitAfter({ ...statement, values }, dropIds.length === 0 ? [] : [GENERIC_PLANS]);
    return { result, seqs: docs.seqs, trees: storedTrees(writes, docs), designSeq: c.designSeq };
  }
  let added = 0;
  if (bodyIds.length > 0) {
    const put = await q<{ id: string; rev: string; inserted: boolean }>(db.sql.putBodies, [
      db.dbId,
      bodyIds,
      bodyRevs,
      bodyTexts,
    ]);
    const inserted = new Set(put.filter((row) => row.inserted).map((row) => `${row.id}\0${row.rev}`));
    bodyIds.forEach((id, i) => {
      if (inserted.has(`${toWellFormed(id)}\0${bodyRevs[i]}`)) added += Buffer.byteLength(bodyTexts[i]!, 'utf8');
    });
  }
  if (lookIds.length > 0)
    unleafedBytes += Number((await q<{ n: string }>(db.sql.bodyBytes, [db.dbId, lookIds, lookRevs]))[0]!.n);
  // Dropped bodies were all stale by now (stemmed: not leaves before, or unleafed by this write).
  let dropped = 0;
  if (dropIds.length > 0)
    dropped = Number((await q<{ n: string }>(db.sql.dropBodies, [db.dbId, dropIds, dropRevs]))[0]!.n);
  if (c.bodies !== undefined) {
    c.bodies.stored += added - dropped;
    c.bodies.stale += unleafedBytes - dropped;
  }
  if (sizeIds.length > 0) {
    for (const row of await q<{ id: string; size: number }>(db.sql.bodySizes, [db.dbId, sizeIds, sizeRevs])) {
      sizes.set(row.id, Number(row.size));
    }
  }

  const trees = new TreeChunkWrites();
  const docs = docColumns(writes, old, sizes, c, trees);
  await trees.apply(client, db);
  const seqs = docs.seqs;
  await q(db.sql.putDocs, [db.dbId, docs.ids, docs.seqs, docs.revs, docs.deleted, docs.sizes, docs.trees]);
  await applyAccess(client, db, writes, seqs, accessRead);
  await q(db.sql.saveCountersSized, counterValues(db, c));
  return { result, seqs, trees: storedTrees(writes, docs), designSeq: c.designSeq };
}

/** A written document's previous state: its deleted flag, counted size, winner and stored `tree` value. */
export type OldState = { deleted: boolean; size: number; rev: string; tree: string | undefined };

/**
 * A batch's bodies as the columns of its statements: new bodies (each revision once), bodies
 * dropped, the sizes of winners written in the batch and those to look up (`sizeIds`), and,
 * when the bodies' bytes are counted (`counted`), the bytes of the bodies that stop being leaves
 * (DocWrite.unleafed: from the batch, from the row of the winner they were, or else to look up).
 */
export function batchColumns(writes: readonly DocWrite[], old: ReadonlyMap<string, OldState>, counted: boolean) {
  let unleaf = 0;
  const lookIds: string[] = [];
  const lookRevs: string[] = [];
  if (counted) {
    for (const { record, bodies, unleafed } of writes) {
      if (unleafed === undefined) continue;
      const previous = old.get(toWellFormed(record.id));
      for (const rev of unleafed) {
        const inBatch = bodies.findLast((b) => b.rev === rev);
        if (inBatch !== undefined) unleaf += Buffer.byteLength(inBatch.body, 'utf8');
        else if (previous !== undefined && previous.rev === rev && !previous.deleted) unleaf += previous.size;
        else {
          lookIds.push(record.id);
          lookRevs.push(rev);
        }
      }
    }
  }
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
  return { bodyIds, bodyRevs, bodyTexts, dropIds, dropRevs, sizes, sizeIds, sizeRevs, lookIds, lookRevs, unleaf };
}

/**
 * Whether a batch can be written by one statement (`writeBatch`): no access rows, no body's
 * bytes or size to look up, and no body dropped that the batch writes (the order would matter).
 */
export function isUsualBatch(
  writes: readonly DocWrite[],
  cols: Pick<ReturnType<typeof batchColumns>, 'lookIds' | 'sizeIds' | 'dropIds' | 'dropRevs' | 'bodyIds' | 'bodyRevs'>,
): boolean {
  if (cols.lookIds.length > 0 || cols.sizeIds.length > 0 || writes.some((w) => w.access !== undefined)) return false;
  if (cols.dropIds.length === 0) return true;
  const written = new Set(cols.bodyIds.map((id, i) => `${toWellFormed(id)}\0${cols.bodyRevs[i]}`));
  return cols.dropIds.every((id, i) => !written.has(`${toWellFormed(id)}\0${cols.dropRevs[i]}`));
}

/** What a write stored as each document's tree (its id well-formed), in write order. */
export interface StoredTree {
  id: string;
  seq: number;
  rev: string;
  deleted: boolean;
  /** The size counted for the document (its winner's body bytes; 0 when deleted). */
  size: number;
  stored: string;
  text: string;
}

export function storedTrees(writes: readonly DocWrite[], docs: ReturnType<typeof docColumns>): StoredTree[] {
  return writes.map(({ record }, i) => ({
    id: toWellFormed(record.id),
    seq: docs.seqs[i]!,
    rev: record.rev,
    deleted: record.deleted,
    size: docs.sizes[i]!,
    stored: docs.trees[i]!,
    text: record.tree,
  }));
}

/**
 * The `docs` rows of a batch as the columns of one multi-row statement, each write at the next
 * sequence; `c` (the counters) and `old` (each document's previous state) move with them.
 */
export function docColumns(
  writes: readonly DocWrite[],
  old: Map<string, OldState>,
  sizes: ReadonlyMap<string, number>,
  c: ReturnType<typeof lockedCountersOf>,
  /** Where each tree is stored through (./tree-chunks.ts). */
  trees: TreeChunkWrites,
) {
  const docs = {
    ids: [] as string[],
    seqs: [] as number[],
    revs: [] as string[],
    deleted: [] as boolean[],
    sizes: [] as number[],
    trees: [] as string[],
  };
  for (const { record, treeGrowth } of writes) {
    const seq = ++c.updateSeq;
    const key = toWellFormed(record.id);
    if (key.startsWith(DESIGN_PREFIX)) c.designSeq = seq;
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
    old.set(key, { deleted: record.deleted, size, rev: record.rev, tree: undefined });
    docs.ids.push(record.id);
    docs.seqs.push(seq);
    docs.revs.push(record.rev);
    docs.deleted.push(record.deleted);
    docs.sizes.push(size);
    docs.trees.push(trees.store(key, record.tree, previous?.tree, treeGrowth));
  }
  return docs;
}

/**
 * The records of `ids` read on `client` under the writers' lock, by the id asked; the lock taken
 * first unless `lockedAlready` is the `dbs` row its transaction's `BEGIN` locked (and the records
 * read unless `rowsAlready` are those the `BEGIN` read after it).
 */
export async function lockedRecords(
  client: PoolClient,
  db: DbTarget,
  ids: readonly string[],
  lockedAlready?: LockedCounterRow,
  /** The records of `ids` read after the lock by the same simple query. */
  rowsAlready?: LockedDocRow[],
): Promise<{ locked: LockedCounterRow; rows: LockedDocRow[]; records: Map<string, DocRecord> }> {
  const locked = lockedAlready ?? (await client.query<LockedCounterRow>({ ...db.sql.lock, values: [db.dbId] })).rows[0];
  if (locked === undefined) throw gone(db.name);
  const rows =
    rowsAlready ??
    (ids.length === 0
      ? []
      : (await client.query<LockedDocRow>({ ...db.sql.readForUpdate, values: [db.dbId, ids] })).rows);
  const byId = new Map(rows.map((row) => [row.id, row]));
  const records = new Map<string, DocRecord>();
  for (const id of ids) {
    const row = byId.get(id) ?? byId.get(toWellFormed(id));
    if (row !== undefined) records.set(id, toRecord(row));
  }
  return { locked, rows, records };
}

/** `DocumentStore.purge` inside its transaction on `client`, under the writers' lock. */
export async function purgeLocked<R>(
  client: PoolClient,
  db: DbTarget,
  ids: readonly string[],
  keepInfos: number,
  plan: PurgePlanner<R>,
): Promise<{ result: R; purgeSeq: number; updateSeq: number }> {
  const q = async (config: { name: string; text: string }, values: unknown[]) => client.query({ ...config, values });
  const { locked, rows, records } = await lockedRecords(client, db, ids);
  const { purges, result } = plan(await withLeaves(client, db, records));
  const old = new Map(rows.map((row) => [toWellFormed(row.id), row]));
  const c = lockedCountersOf(locked);
  const before = c.updateSeq;
  const logSeqs: number[] = [];
  const logIds: string[] = [];
  const logRevs: string[] = [];
  const removed: string[] = [];
  const dropIds: string[] = [];
  const dropRevs: string[] = [];
  const kept: { id: string; record: Omit<DocRecord, 'seq'>; access: AccessWrite | undefined }[] = [];
  // Bodies that stop counting as stale (PurgeWrite.staleGone), read before any goes.
  const staleIds: string[] = [];
  const staleRevs: string[] = [];
  for (const { id, revs, record, dropBodies, access, staleGone } of purges) {
    logSeqs.push(++c.purgeSeq);
    logIds.push(id);
    logRevs.push(JSON.stringify(revs));
    if (record === undefined) continue;
    const previous = old.get(toWellFormed(id));
    if (previous === undefined) continue;
    if (previous.deleted) c.docDelCount--;
    else c.docCount--;
    c.external -= Number(previous.size);
    for (const rev of staleGone ?? []) {
      staleIds.push(id);
      staleRevs.push(rev);
    }
    if (record === null) {
      removed.push(id);
      continue;
    }
    for (const rev of dropBodies ?? []) {
      dropIds.push(id);
      dropRevs.push(rev);
    }
    kept.push({ id, record, access });
  }
  let bytesGone = 0;
  let staleBytesGone = 0;
  if (c.bodies !== undefined && staleIds.length > 0) {
    staleBytesGone = Number((await q(db.sql.bodyBytes, [db.dbId, staleIds, staleRevs])).rows[0].n);
  }
  const trees = new TreeChunkWrites();
  if (removed.length > 0) {
    for (const id of removed) trees.forget(toWellFormed(id));
    bytesGone += Number((await q(db.sql.deleteAllBodies, [db.dbId, removed])).rows[0].n);
    await q(db.sql.deleteDocs, [db.dbId, removed]);
    await forgetAccess(client, db, removed);
  }
  if (dropIds.length > 0) bytesGone += Number((await q(db.sql.dropBodies, [db.dbId, dropIds, dropRevs])).rows[0].n);
  if (c.bodies !== undefined) {
    c.bodies.stored -= bytesGone;
    c.bodies.stale -= staleBytesGone;
  }
  if (kept.length > 0) {
    const live = kept.filter((k) => !k.record.deleted);
    const sizes = new Map<string, number>();
    if (live.length > 0) {
      const found = await client.query<{ id: string; size: number }>({
        ...db.sql.bodySizes,
        values: [db.dbId, live.map((k) => k.id), live.map((k) => k.record.rev)],
      });
      for (const row of found.rows) sizes.set(row.id, Number(row.size));
    }
    const docs = kept.map(({ id, record, access }) => {
      const size = record.deleted ? 0 : (sizes.get(toWellFormed(id)) ?? 0);
      if (record.deleted) c.docDelCount++;
      else c.docCount++;
      c.external += size;
      return { id, seq: ++c.updateSeq, record, size, access };
    });
    await q(db.sql.putDocs, [
      db.dbId,
      docs.map((d) => d.id),
      docs.map((d) => d.seq),
      docs.map((d) => d.record.rev),
      docs.map((d) => d.record.deleted),
      docs.map((d) => d.size),
      docs.map((d) =>
        trees.store(toWellFormed(d.id), d.record.tree, old.get(toWellFormed(d.id))?.stored_tree, undefined),
      ),
    ]);
    // A document that keeps revisions keeps the access rows of what is left, at its new sequence.
    const rewritten = docs.filter((d) => d.access !== undefined);
    await applyAccess(
      client,
      db,
      rewritten.map((d) => ({ record: { ...d.record, id: d.id }, bodies: [], access: d.access })),
      rewritten.map((d) => d.seq),
    );
  }
  await trees.apply(client, db);
  // As CouchDB: the update sequence moves even when no document was re-sequenced.
  if (c.updateSeq === before) c.updateSeq++;
  // A design document purged (whole or some revisions) is a change to the design documents.
  if (purges.some((p) => p.id.startsWith(DESIGN_PREFIX))) c.designSeq = c.updateSeq;
  if (logSeqs.length > 0) await q(db.sql.logPurges, [db.dbId, logSeqs, logIds, logRevs]);
  await q(db.sql.prunePurges, [db.dbId, c.purgeSeq - Math.max(1, keepInfos)]);
  await q(db.sql.saveCountersSized, counterValues(db, c));
  await q(db.sql.savePurgeSeq, [db.dbId, c.purgeSeq]);
  return { result, purgeSeq: c.purgeSeq, updateSeq: c.updateSeq };
}

/** `DocumentStore.compact` inside its transaction on `client`, under the writers' lock. */
export async function compactLocked(
  client: PoolClient,
  db: DbTarget,
  ids: readonly string[],
  plan: CompactPlanner,
): Promise<void> {
  const { locked, rows, records } = await lockedRecords(client, db, ids);
  const writes = plan(records);
  if (writes.length === 0) return;
  const { bodies } = countersOf(locked);
  const dropIds: string[] = [];
  const dropRevs: string[] = [];
  for (const w of writes) {
    for (const rev of w.dropBodies) {
      dropIds.push(w.id);
      dropRevs.push(rev);
    }
  }
  if (dropIds.length > 0) {
    const found = await client.query<{ n: string }>({ ...db.sql.dropBodies, values: [db.dbId, dropIds, dropRevs] });
    // Compaction drops bodies of revisions that are not leaves: every byte of them was stale.
    const dropped = Number(found.rows[0]!.n);
    if (bodies !== undefined && dropped > 0) {
      await client.query({
        ...db.sql.saveSizes,
        values: [db.dbId, bodies.stored - dropped, bodies.stale - dropped],
      });
    }
  }
  const stored = new Map(rows.map((row) => [row.id, row.stored_tree]));
  const trees = new TreeChunkWrites();
  const storedTrees = writes.map((w) =>
    trees.store(toWellFormed(w.id), w.tree, stored.get(toWellFormed(w.id)), undefined),
  );
  await trees.apply(client, db);
  await client.query({ ...db.sql.setTrees, values: [db.dbId, writes.map((w) => w.id), storedTrees] });
}

/** `saveCountersSized`' values: the body bytes stay NULL while not counted. */
function counterValues(db: DbTarget, c: ReturnType<typeof lockedCountersOf>): unknown[] {
  return [
    db.dbId,
    c.updateSeq,
    c.docCount,
    c.docDelCount,
    c.external,
    c.bodies?.stored ?? null,
    c.bodies?.stale ?? null,
    c.designSeq,
  ];
}

/**
 * `DocumentStore.countStaleBodies` inside its transaction on `client`, under the writers' lock:
 * every stored body's bytes, and the stale ones: bodies whose revision is not the winner, less
 * the other leaves' (`leavesOf`; conflicts are few). Nothing to do where they are counted.
 */
export async function countStaleLocked(
  client: PoolClient,
  db: DbTarget,
  leavesOf: (record: DocRecord) => readonly string[],
): Promise<void> {
  const { locked } = await lockedRecords(client, db, []);
  if (countersOf(locked).bodies !== undefined) return;
  const [totals] = (await client.query<{ stored: string; stale: string }>({ ...db.sql.bodyTotals, values: [db.dbId] }))
    .rows;
  let stale = Number(totals!.stale);
  const ids: string[] = [];
  const revs: string[] = [];
  const PAGE = 1000;
  for (let after = ''; ; ) {
    const page = (await client.query<DocRow>({ ...db.sql.docsAfter, values: [db.dbId, after, PAGE] })).rows;
    for (const row of page) {
      const record = toRecord(row);
      for (const rev of leavesOf(record)) {
        if (rev === record.rev) continue;
        ids.push(row.id);
        revs.push(rev);
      }
    }
    if (page.length < PAGE) break;
    after = page[page.length - 1]!.id;
  }
  if (ids.length > 0)
    stale -= Number(
      (await client.query<{ n: string }>({ ...db.sql.bodyBytes, values: [db.dbId, ids, revs] })).rows[0]!.n,
    );
  await client.query({ ...db.sql.saveSizes, values: [db.dbId, Number(totals!.stored), stale] });
}
