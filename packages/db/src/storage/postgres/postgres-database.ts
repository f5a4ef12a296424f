/**
 * One database of the PostgreSQL engine: its rows in the shared tables, under its `db_id`.
 * Records come from `docs` at every call (another node may write at any time); the `dbs` row
 * (counters) and the properties are kept by the node while no change is told (./prop-cache.ts).
 * Its statements are in ./statements.ts; what changes documents (under the writers' lock) in
 * ./doc-writes.ts; attachment bytes in ./attachments.ts.
 */
import type { DbEventQueue } from '../db-event-queue.js';
import type { Pool, PoolClient, QueryConfig, QueryResultRow } from 'pg';
import { toWellFormed } from '../../support/unicode.js';
import type {
  AttachmentSweepMark,
  CompactPlanner,
  DocumentStore,
  Planner,
  PurgePlanner,
  UpdateOptions,
} from '../contract.js';
import { PostgresAccessReads, recordRoles } from './access-rows.js';
import { ChangesCountMemo } from '../changes-count-memo.js';
import { GROWING_PAGES, keysetPagesAsync } from '../keyset-pages.js';
import type {
  AccessChange,
  AttachmentInfo,
  AttachmentSource,
  ChangedDoc,
  Counters,
  DbMeta,
  DocRecord,
  IdRange,
  LocalDoc,
  Page,
  PurgeInfo,
  RangeStats,
  RoleChange,
  RoleRow,
} from '../records.js';
import type { ViewIndexStore } from '../view-index-store.js';
import type { AttachmentWriteLocks } from './attachment-write-locks.js';
import { PostgresAttachments } from './attachments.js';
import { MISS, type PropCache } from './prop-cache.js';
import { compactLocked, countStaleLocked, purgeLocked, type StoredTree, updateLocked } from './doc-writes.js';
import { commitInOneBatch, inTransaction, queryRows, storageError, type TransactionEnd } from './errors.js';
import { AssumedWrites } from './assumed-write.js';
import {
  type CounterRow,
  type DbTarget,
  type DocRow,
  type DocumentStatements,
  gone,
  type LockedCounterRow,
  type LockedDocRow,
  GENERIC_PLANS,
  CHOSEN_PLANS,
  named,
  toChangedDoc,
  toRecord,
} from './statements.js';
import { KeptTreeTexts, treeColumn, withKeptTexts } from './tree-chunks.js';
import type { BatchStatement } from './statement-batch.js';

/** Purge log entries per page. */
const PURGES_PAGE = 1024;
/** The key of a by-sequence walk. */
function bySeq(row: DocRow): number {
  return Number(row.seq);
}

export class PostgresDocumentStore implements DocumentStore {
  /** A write's plan is told `dbs.design_seq`, read with the lock (./doc-writes.ts). */
  readonly tellsDesignSeq = true;
  private readonly target: DbTarget;
  private readonly attachments: PostgresAttachments;
  private readonly access: PostgresAccessReads;
  private readonly changesCounts = new ChangesCountMemo();
  /** The long histories' texts this node wrote last (./tree-chunks.ts). */
  private readonly keptTrees = new KeptTreeTexts();
  /** What a write planned before its transaction assumes (./assumed-write.ts). */
  private readonly assumed = new AssumedWrites();

  constructor(
    private readonly pool: Pool,
    private readonly sql: DocumentStatements,
    readonly name: string,
    private readonly dbId: string,
    private readonly createdAt: number,
    private readonly indexes: ViewIndexStore,
    /** This node's attachment writes, where every node's sweep sees them (one per storage). */
    attachmentWrites: AttachmentWriteLocks,
    /** The server's database events: each commit here records an `updated`. */
    private readonly events: DbEventQueue,
    /** This node's copy of the databases' properties (one per storage). */
    private readonly props: PropCache,
  ) {
    this.target = { sql, dbId, name };
    this.attachments = new PostgresAttachments(pool, this.target, attachmentWrites);
    this.access = new PostgresAccessReads((config, values) => this.query(config, values), this.target);
  }

  viewIndexes(): ViewIndexStore {
    return this.indexes;
  }

  private query<T extends QueryResultRow>(config: QueryConfig | string, values?: unknown[]): Promise<T[]> {
    return queryRows<T>(this.pool, config, values);
  }

  /** From this node's copy while it is current (./prop-cache.ts), else one query. */
  private async readCounters(): Promise<CounterRow> {
    const kept = this.props.counters(this.dbId);
    if (kept !== undefined) return kept;
    const epoch = this.props.begin();
    const [row] = await this.query<CounterRow>(this.sql.counters, [this.dbId]);
    if (row === undefined) throw gone(this.name);
    this.props.keepCounters(epoch, this.dbId, row);
    return row;
  }

  async meta(): Promise<DbMeta> {
    const c = await this.readCounters();
    const external = Number(c.external);
    const stored = c.stored === null || c.stale === null ? undefined : Number(c.stored);
    return {
      updateSeq: Number(c.update_seq),
      purgeSeq: Number(c.purge_seq),
      docCount: Number(c.doc_count),
      docDelCount: Number(c.doc_del_count),
      // PostgreSQL's files hold every database at once: no per-database file size to report,
      // so `file` is the bytes of its stored bodies, and `active` those less the stale ones
      // (revisions no longer leaves: what compaction drops). Not counted yet: the live bodies'.
      sizes:
        stored === undefined
          ? { file: external, external, active: external }
          : { file: stored, external, active: stored - Number(c.stale) },
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

  async getDocsWithBodies(ids: readonly string[]): Promise<(ChangedDoc | undefined)[]> {
    if (ids.length === 0) return [];
    const rows = await this.query<DocRow & { body: string | null }>(this.sql.getDocsWithBodies, [
      this.dbId,
      ids.map(toWellFormed),
    ]);
    const byId = new Map(rows.map((row) => [row.id, toChangedDoc(row)]));
    // An id with a lone surrogate travels as U+FFFD (UTF-8 cannot hold it); its row comes back so.
    return ids.map((id) => byId.get(id) ?? byId.get(toWellFormed(id)));
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
   * The write path: in one transaction, under the writers' lock, the records of `ids` are read,
   * planned over and written (./doc-writes.ts).
   */
  async update<R>(
    ids: readonly string[],
    plan: Planner<R>,
    options?: UpdateOptions,
  ): Promise<{ result: R; seqs: number[] }> {
    // One round trip when the plan made on what this node assumes holds under the lock.
    const assumed = options?.access === true ? undefined : this.assumed.plan(this.target, ids, plan);
    if (assumed !== undefined) {
      const lock = { ...this.sql.lock, values: [this.dbId] };
      let answered: QueryResultRow[][];
      try {
        answered = await commitInOneBatch(this.pool, [lock, ...assumed.statements]);
      } finally {
        this.props.forgetCounters(this.dbId);
      }
      const locked = answered[0]?.[0] as LockedCounterRow | undefined;
      if (locked === undefined) throw gone(this.name);
      const base = (answered.at(-1)?.[0] as { base: string } | undefined)?.base;
      if (base !== undefined) {
        const done = assumed.written(Number(base));
        this.committed(done.trees, done.designSeq);
        return { result: assumed.result, seqs: done.seqs };
      }
      this.assumed.missed(ids.map(toWellFormed), Number(locked.design_seq));
    }
    // The lock and the records in the batch of the BEGIN: one round trip. Trees whose text this
    // node wrote last come as NULL while their rows are unchanged.
    const wellFormed = ids.map(toWellFormed);
    const kept = this.keptTrees.read(wellFormed);
    const lock = { ...this.sql.lock, values: [this.dbId] };
    // One id (a single-document write): a statement of its own, whose plan PostgreSQL keeps.
    const one = wellFormed.length === 1 ? wellFormed[0] : undefined;
    const first =
      one === undefined
        ? [
            GENERIC_PLANS,
            lock,
            { ...this.sql.readForUpdateKept, values: [this.dbId, wellFormed, kept.ids, kept.seqs, kept.heads] },
            CHOSEN_PLANS,
          ]
        : [
            lock,
            {
              ...this.sql.readOneForUpdateKept,
              values: [this.dbId, one, kept.seqs[0] ?? null, kept.heads[0] ?? null],
            },
          ];
    const done = await this.transaction((client, begun, end) => {
      const [locked, rows] = one === undefined ? begun.slice(1) : begun;
      return updateLocked(
        client,
        this.target,
        ids,
        plan,
        options,
        {
          locked: locked?.[0] as LockedCounterRow | undefined,
          rows: withKeptTexts(rows as LockedDocRow[], kept.texts),
        },
        end,
      );
    }, first);
    this.committed(done.trees, done.designSeq);
    return { result: done.result, seqs: done.seqs };
  }

  /** What a committed write leaves this node: its trees' texts, its assumptions, the event. */
  private committed(trees: readonly StoredTree[], designSeq: number): void {
    for (const { id, seq, stored, text } of trees) this.keptTrees.keep(id, seq, stored, text);
    this.assumed.committed(trees, designSeq);
    if (trees.length > 0) this.events.updated(this.name);
  }

  readersOf(ids: readonly string[]): Promise<string[][]> {
    return this.access.readersOf(ids);
  }

  foldReadable(principals: readonly string[], range: IdRange): AsyncIterable<Page<DocRecord>> {
    return this.access.foldReadable(principals, range);
  }

  countReadable(principals: readonly string[], range: IdRange): Promise<number> {
    return this.access.countReadable(principals, range);
  }

  foldAccessChanges(
    principals: readonly string[],
    since: number,
    options: { descending?: boolean; withRemoved?: boolean },
  ): AsyncIterable<Page<AccessChange>> {
    return this.access.foldChanges(principals, since, options);
  }

  countAccessChanges(principals: readonly string[], since: number, withRemoved: boolean): Promise<number> {
    return this.access.countChanges(principals, since, withRemoved);
  }

  async recordRoles(
    user: string,
    roles: readonly string[],
    principals: readonly string[],
    version: number,
  ): Promise<{ log: RoleChange[]; seq?: number }> {
    // A feed records its user's roles at every request: most find them as they were, without the lock.
    const unchanged = await this.access.unchangedRoles(user, roles, version);
    if (unchanged !== undefined) return { log: unchanged };
    const done = await this.transaction((client) => recordRoles(client, this.target, user, roles, principals, version));
    if (done.seq !== undefined) this.events.updated(this.name);
    return done;
  }

  foldRoleRows(user: string, since: number): AsyncIterable<Page<RoleRow>> {
    return this.access.foldRoleRows(user, since);
  }

  async purge<R>(
    ids: readonly string[],
    keepInfos: number,
    plan: PurgePlanner<R>,
  ): Promise<{ result: R; purgeSeq: number; updateSeq: number }> {
    let done: { result: R; purgeSeq: number; updateSeq: number };
    try {
      done = await this.transaction((client) => purgeLocked(client, this.target, ids, keepInfos, plan));
    } finally {
      this.keptTrees.forget(ids.map(toWellFormed));
      this.assumed.forget(ids.map(toWellFormed));
    }
    this.events.updated(this.name);
    return done;
  }

  async countStaleBodies(leavesOf: (record: DocRecord) => readonly string[]): Promise<void> {
    // Counted already (every database made since they are kept): one read, no lock.
    const c = await this.readCounters();
    if (c.stored !== null && c.stale !== null) return;
    await this.transaction((client) => countStaleLocked(client, this.target, leavesOf));
  }

  async compact(ids: readonly string[], plan: CompactPlanner): Promise<void> {
    try {
      await this.transaction((client) => compactLocked(client, this.target, ids, plan));
    } finally {
      this.keptTrees.forget(ids.map(toWellFormed));
      this.assumed.forget(ids.map(toWellFormed));
    }
  }

  /**
   * A transaction on a checked-out connection (rolled back on a throw; a broken one is not
   * pooled). The counters this node keeps are forgotten once it ends, committed or not (a cut-off
   * `COMMIT` may have committed): a read after it asks PostgreSQL, not the notification's way.
   * `first`: a statement sent with the `BEGIN` (./errors.ts inTransaction), its rows given to `body`.
   */
  private async transaction<T>(
    body: (client: PoolClient, begun: QueryResultRow[][], end: TransactionEnd) => Promise<T>,
    first?: readonly BatchStatement[],
  ): Promise<T> {
    try {
      return await inTransaction(this.pool, body, first);
    } finally {
      this.props.forgetCounters(this.dbId);
    }
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

  /** PostgreSQL's files hold every database: their space is the server's (autovacuum) to give back. */
  async reclaimSpace(_maxPages: number): Promise<boolean> {
    return false;
  }

  async *foldDocs(range: IdRange): AsyncGenerator<Page<DocRecord>> {
    const filter = range.includeDeleted === true ? '' : 'NOT deleted';
    const columns = `id, seq, rev, deleted, ${treeColumn(this.sql.schema)}`;
    for await (const rows of this.foldRange<DocRow>('docs', columns, filter, range)) {
      yield rows.map(toRecord);
    }
  }

  async *foldDocBodies(range: IdRange): AsyncGenerator<Page<ChangedDoc>> {
    const filter = range.includeDeleted === true ? '' : 'NOT deleted';
    // Each page's records with their winners' bodies in one statement (a body looked up by the
    // primary key per row), not a page of records and then their bodies by arrays of ids and revs.
    // A lateral subquery (OFFSET 0: never flattened into a join the planner could make a merge
    // join of) costs PostgreSQL less than the same lookup as a subquery in the columns.
    const columns = `id, seq, rev, deleted, ${treeColumn(this.sql.schema)}, b.body`;
    const table =
      `docs LEFT JOIN LATERAL (SELECT b.body FROM ${this.sql.schema}.bodies b WHERE b.db_id = docs.db_id ` +
      'AND b.id = docs.id AND b.rev = docs.rev AND NOT docs.deleted OFFSET 0) b ON true';
    for await (const rows of this.foldRange<DocRow & { body: string | null }>(table, columns, filter, range)) {
      yield rows.map(toChangedDoc);
    }
  }

  async countDocs(range: IdRange): Promise<number> {
    const { where, params } = rangeWhere(range, range.start, range.descending === true ? '<=' : '>=', '', 2);
    if (where === '') {
      const c = await this.counters();
      return c.docCount + (range.includeDeleted === true ? c.docDelCount : 0);
    }
    // Every row of the range by the primary key (an index-only scan), less the deleted ones by
    // docs_deleted (a partial index, small): `NOT deleted` itself would need each row's heap tuple,
    // which made PostgreSQL read the table (five times the pages, EXPLAIN ANALYZE BUFFERS).
    const docs = `${this.sql.schema}.docs`;
    const text =
      range.includeDeleted === true
        ? `SELECT count(*) AS n FROM ${docs} WHERE db_id = $1${where}`
        : `SELECT (SELECT count(*) FROM ${docs} WHERE db_id = $1${where}) - (SELECT count(*) FROM ${docs} WHERE db_id = $1${where} AND deleted) AS n`;
    const [row] = await this.query<{ n: string }>(named(text), [this.dbId, ...params]);
    return Number(row?.n ?? 0);
  }

  async rangeStats(start: string, end: string): Promise<RangeStats> {
    // The (db_id, id) key bounds the scan to the range; sizes are 0 for deleted winners.
    const [row] = await this.query<{ live: string; deleted: string; external: string }>(
      `SELECT count(*) FILTER (WHERE NOT deleted) AS live, count(*) FILTER (WHERE deleted) AS deleted, ` +
        `coalesce(sum(size), 0) AS external FROM ${this.sql.schema}.docs WHERE db_id = $1 AND id >= $2 AND id < $3`,
      [this.dbId, start, end],
    );
    // Every stored revision body counts (until compaction drops the old ones), as CouchDB's active size.
    const [stored] = await this.query<{ active: string }>(
      `SELECT coalesce(sum(octet_length(body)), 0) AS active FROM ${this.sql.schema}.bodies WHERE db_id = $1 AND id >= $2 AND id < $3`,
      [this.dbId, start, end],
    );
    return {
      docCount: Number(row?.live ?? 0),
      docDelCount: Number(row?.deleted ?? 0),
      external: Number(row?.external ?? 0),
      active: Number(stored?.active ?? 0),
    };
  }

  /** Whether this node's kept counters say nothing changed after `since` (no query then). */
  private nothingSince(since: number): boolean {
    const kept = this.props.counters(this.dbId);
    return kept !== undefined && Number(kept.update_seq) <= since;
  }

  async *foldChanges(since: number, descending = false): AsyncGenerator<Page<DocRecord>> {
    if (this.nothingSince(since)) return;
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
    if (this.nothingSince(since)) return;
    const pages = keysetPagesAsync(since, bySeq, GROWING_PAGES, ({ from, limit }) =>
      this.query<DocRow & { body: string | null }>(this.sql.changedBodies, [this.dbId, from, limit]),
    );
    for await (const rows of pages) {
      yield rows.map(toChangedDoc);
    }
  }

  async countChanges(since: number): Promise<number> {
    if (since <= 0) {
      const c = await this.counters();
      return c.docCount + c.docDelCount;
    }
    if (this.nothingSince(since)) return 0;
    // Counted from the last count when the database has not changed since (ChangesCountMemo).
    const from = this.changesCounts.since;
    if (from !== undefined && from <= since) {
      const [row] = await this.query<{ n: string; version: string }>(this.sql.countChanges, [this.dbId, from, since]);
      if (row === undefined) throw gone(this.name);
      const memo = this.changesCounts.from(since, row.version);
      if (memo !== undefined) {
        const count = memo.count - Number(row.n);
        this.changesCounts.remember(since, count, row.version);
        return count;
      }
    }
    const [row] = await this.query<{ n: string; version: string }>(this.sql.countChanges, [this.dbId, since, null]);
    if (row === undefined) throw gone(this.name);
    this.changesCounts.remember(since, Number(row.n), row.version);
    return Number(row.n);
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

  putAttachment(source: AttachmentSource): Promise<AttachmentInfo> {
    return this.attachments.put(source);
  }

  attachmentInfo(digest: string): Promise<AttachmentInfo | undefined> {
    return this.attachments.infoOf(digest);
  }

  readAttachment(digest: string, start?: number, end?: number): AsyncIterable<Uint8Array> {
    return this.attachments.read(digest, start, end);
  }

  deleteAttachments(digests: readonly string[]): Promise<void> {
    return this.attachments.delete(digests);
  }

  foldAttachments(): AsyncIterable<Page<AttachmentInfo>> {
    return this.attachments.fold();
  }

  attachmentWrite<T>(write: () => Promise<T>): Promise<T> {
    return this.attachments.run(write);
  }

  attachmentSweepMark(): Promise<AttachmentSweepMark | undefined> {
    return this.attachments.sweepMark();
  }

  sweepAttachments(digests: readonly string[], mark: AttachmentSweepMark): Promise<boolean> {
    return this.attachments.sweep(digests, mark);
  }

  /** From this node's copy while it is current (./prop-cache.ts), else one query. */
  async getProp(key: string): Promise<string | undefined> {
    const kept = this.props.get(this.dbId, key);
    if (kept !== MISS) return kept;
    const epoch = this.props.begin();
    const [row] = await this.query<{ value: string }>(this.sql.getProp, [this.dbId, key]);
    this.props.keep(epoch, this.dbId, key, row?.value);
    return row?.value;
  }

  async setProp(key: string, value: string): Promise<void> {
    this.props.forget(this.dbId);
    const rows = await this.queryCount(this.sql.setProp, [this.dbId, key, value, this.props.channel]);
    this.props.forget(this.dbId);
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
          named(
            `SELECT ${columns} FROM ${this.sql.schema}.${table} WHERE db_id = $1${where} ORDER BY id${desc ? ' DESC' : ''} LIMIT $${params.length + 2}`,
          ),
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
