/**
 * The changes feed: one row per document at its latest sequence, as JSON text, oldest first (or
 * newest first). Filters (`_doc_ids`, `_design`) are predicates on the record; filters that need
 * the document (`_selector`, `_view`, design-doc functions) judge its revisions a page at a time.
 */
import { parseRev } from '../revisions/index.js';
import type { DocRecord } from '../storage/records.js';
import { accessChanges, countAccessChanges } from './access-roles.js';
import type { AccessReader } from './access-rules.js';
import { attachmentViewOf } from './all-docs.js';
import type { Database } from './database.js';
import type { Viewer } from './replicator-reads.js';

export interface ChangesOptions {
  since: number;
  descending: boolean;
  limit?: number;
  includeDocs: boolean;
  conflicts: boolean;
  /** With `includeDocs`: inline attachment data (`attachments=true`). */
  attachments?: boolean;
  /** With `includeDocs`: `att_encoding_info=true`. */
  attEncodingInfo?: boolean;
  /** `style=all_docs`: every leaf, not only the winner. */
  allLeaves: boolean;
  filter?: (record: DocRecord) => boolean;
  /**
   * `filter=_doc_ids`: how many times each wanted id was named. CouchDB looks each one up, so an
   * id named twice gives its row twice.
   */
  docIds?: ReadonlyMap<string, number>;
  /** A filter on the documents themselves. */
  docFilter?: DocFilter;
  /**
   * A reader of an access-enabled database (./access-rules.ts): only the documents they may
   * read, from their access rows; `removed`: also a row for each document they lost.
   */
  access?: { reader: AccessReader; removed: boolean };
  /** Who reads: documents are shown (and judged by filters) as they may see them (./replicator-reads.ts). */
  viewer?: Viewer;
}

/**
 * A filter that reads documents. It is shown the revisions of a page of changes (the winner,
 * or every leaf with `style=all_docs`) as CouchDB passes them to filters: `_id`, `_rev`, the
 * body, `_deleted: true` for tombstones, `_conflicts` with `conflicts=true`.
 */
export interface DocFilter {
  /** Which of the revisions (JSON texts) pass. */
  test(docsJson: readonly string[]): Promise<boolean[]>;
  /**
   * The same judged on live winners' stored bodies (`_id` and `_rev` apart, see render.ts), where
   * the filter can: a feed then renders only the documents of the rows it sends.
   */
  testStored?(docs: readonly StoredWinner[]): boolean[];
  /** Rewrites the `doc` of an `include_docs` row (a `_selector` filter's `fields`). */
  projectDoc?(docJson: string): string;
}

export interface StoredWinner {
  id: string;
  rev: string;
  body: string;
}

export interface ChangeRow {
  seq: number;
  json: string;
}

/** A change the scan went past: a row, or (json undefined) a change the filter did not pass. */
export interface ChangeEvent {
  seq: number;
  json: string | undefined;
}

export async function* changeRows(db: Database, options: ChangesOptions): AsyncGenerator<ChangeRow> {
  let left = options.limit ?? Infinity;
  if (left <= 0) return;
  for await (const event of changeEvents(db, options)) {
    if (event.json === undefined) continue;
    yield event as ChangeRow;
    if (--left <= 0) return;
  }
}

/**
 * Every change after `since` in feed order, whether it passed the filters or not (a change the
 * record predicates reject is skipped silently, as CouchDB's lookups do; one a document filter
 * rejects is reported, since it moves `last_seq`). Ignores `limit`.
 */
export async function* changeEvents(db: Database, options: ChangesOptions): AsyncGenerator<ChangeEvent> {
  // A document filter on the winners of an ascending feed reads the bodies with the changes.
  const withBodies =
    options.docFilter !== undefined && !options.descending && !options.allLeaves && options.access === undefined;
  const pages: AsyncIterable<readonly (DocRecord & { body?: string | undefined; removedAt?: number })[]> =
    options.access !== undefined
      ? accessPages(db, options, options.access)
      : options.docIds !== undefined && options.docIds.size <= LOOKUP_IDS
        ? lookedUp(db, options, options.docIds)
        : withBodies
          ? db.store.foldChangedBodies(options.since)
          : db.store.foldChanges(options.since, options.descending);
  for await (const page of pages) {
    const lost = page.length === 1 ? page[0]!.removedAt : undefined;
    if (lost !== undefined) {
      const { id } = page[0]!;
      if (options.docIds === undefined || options.docIds.has(id)) {
        yield { seq: lost, json: `{"seq":${lost},"id":${JSON.stringify(id)},"changes":[],"removed":true}` };
      }
      continue;
    }
    const records: (DocRecord & { body?: string | undefined })[] = [];
    for (const record of page) {
      if (options.filter !== undefined && !options.filter(record)) continue;
      if (options.docIds !== undefined && !options.docIds.has(record.id)) continue;
      records.push(record);
    }
    // Judged a slice at a time, so rows flow before a large page is through the filter.
    for (let start = 0; start < records.length; start += JUDGE_BATCH) {
      const slice = records.slice(start, start + JUDGE_BATCH);
      const judged = options.docFilter === undefined ? undefined : await judge(db, slice, options, withBodies);
      for (let r = 0; r < slice.length; r++) {
        const record = slice[r]!;
        const revs = judged === undefined ? db.changeRevs(record, options.allLeaves) : judged.passing[r]!;
        if (revs.length === 0) {
          yield { seq: record.seq, json: undefined };
          continue;
        }
        const row = { seq: record.seq, json: await changeRow(db, record, revs, options, judged?.winners[r]) };
        const times = options.docIds === undefined ? 1 : (options.docIds.get(record.id) ?? 0);
        for (let i = 0; i < times; i++) yield row;
      }
    }
  }
}

/**
 * A reader's changes from their access rows, in feed order: readable documents in pages, each
 * document they lost (with `removed`) as a page of its own, marked with the row's sequence.
 */
async function* accessPages(
  db: Database,
  options: ChangesOptions,
  access: NonNullable<ChangesOptions['access']>,
): AsyncGenerator<(DocRecord & { removedAt?: number })[]> {
  const folded = accessChanges(db, access.reader, options.since, {
    descending: options.descending,
    withRemoved: access.removed,
  });
  for await (const page of folded) {
    let run: DocRecord[] = [];
    for (const change of page) {
      if (!change.removed) {
        run.push(change.record);
        continue;
      }
      if (run.length > 0) yield run;
      run = [];
      yield [{ ...change.record, removedAt: change.seq }];
    }
    if (run.length > 0) yield run;
  }
}

/** How many changes after `since` a feed with these options could give (`pending`). */
export function countChangesOf(db: Database, options: ChangesOptions, since: number): Promise<number> {
  if (options.access === undefined) return db.countChanges(since);
  return countAccessChanges(db, options.access.reader, since, options.access.removed);
}

/** Up to this many `doc_ids`, the documents are looked up rather than the changes scanned (CouchDB's rule). */
const LOOKUP_IDS = 1000;

/** The records of the listed documents changed after `since`, as one page in feed order. */
async function* lookedUp(
  db: Database,
  options: ChangesOptions,
  ids: ReadonlyMap<string, number>,
): AsyncGenerator<DocRecord[]> {
  const found = (await db.store.getDocs([...ids.keys()])).filter(
    (record): record is DocRecord => record !== undefined && record.seq > options.since,
  );
  found.sort((a, b) => (options.descending ? b.seq - a.seq : a.seq - b.seq));
  if (found.length > 0) yield found;
}

/** How many changes a document filter judges in one call (one sandbox round trip). */
const JUDGE_BATCH = 64;

/**
 * For each record, the revisions the document filter passes (winner first when several), and
 * the winner's text when it was read for the filter (for `include_docs`).
 */
async function judge(
  db: Database,
  records: readonly (DocRecord & { body?: string | undefined })[],
  options: ChangesOptions,
  withBodies: boolean,
): Promise<{ passing: { rev: string }[][]; winners: (string | undefined)[] }> {
  const revsOf = records.map((record) => db.changeRevs(record, options.allLeaves));
  const filter = options.docFilter!;
  // Stored bodies are judged only where every reader is shown them (no read rule).
  if (withBodies && !options.conflicts && filter.testStored !== undefined && !db.hasReadRule) {
    // Live winners judged on their stored bodies; tombstones as filters see them.
    const verdicts: boolean[] = [];
    const stored: StoredWinner[] = [];
    const storedAt: number[] = [];
    const tombstones: string[] = [];
    const tombstonesAt: number[] = [];
    for (let r = 0; r < records.length; r++) {
      const record = records[r]!;
      if (!record.deleted && record.body !== undefined) {
        stored.push({ id: record.id, rev: record.rev, body: record.body });
        storedAt.push(r);
      } else {
        tombstones.push(await revisionDoc(db, record, record.rev, false, options.viewer));
        tombstonesAt.push(r);
      }
    }
    const storedVerdicts = filter.testStored(stored);
    for (let i = 0; i < storedAt.length; i++) verdicts[storedAt[i]!] = storedVerdicts[i] === true;
    const tombstoneVerdicts = tombstones.length > 0 ? await filter.test(tombstones) : [];
    for (let i = 0; i < tombstonesAt.length; i++) verdicts[tombstonesAt[i]!] = tombstoneVerdicts[i] === true;
    return { passing: revsOf.map((revs, r) => (verdicts[r] === true ? revs : [])), winners: [] };
  }
  const texts: string[] = [];
  const winners: (string | undefined)[] = [];
  if (!options.allLeaves) {
    // Winners: live ones read together (or given with the changes), tombstones one by one.
    const live = withBodies
      ? records.map((record) => db.winningDocFromBody(record, record.body, options.conflicts, options.viewer))
      : await db.winningDocs(records, options.conflicts, undefined, options.viewer);
    for (let r = 0; r < records.length; r++) {
      const text = live[r] ?? (await revisionDoc(db, records[r]!, records[r]!.rev, options.conflicts, options.viewer));
      texts.push(text);
      winners.push(live[r] ?? undefined);
    }
  } else {
    // A live document with one leaf (most of them) is its winner: read with the page's others,
    // not opened one by one as the leaves of a conflicted or deleted document are.
    const single = records.map((record, r) => (revsOf[r]!.length === 1 && !record.deleted ? record : undefined));
    const live = await db.winningDocs(single, options.conflicts, undefined, options.viewer);
    for (let r = 0; r < records.length; r++) {
      const text = live[r];
      if (text !== null && text !== undefined) texts.push(text);
      else {
        for (const { rev } of revsOf[r]!) {
          texts.push(await revisionDoc(db, records[r]!, rev, options.conflicts, options.viewer));
        }
      }
    }
  }
  const verdicts = await filter.test(texts);
  let v = 0;
  return { passing: revsOf.map((revs) => revs.filter(() => verdicts[v++] === true)), winners };
}

/** One revision as filters see it (`{_id, _rev, _deleted: true, …}` for a tombstone). */
async function revisionDoc(
  db: Database,
  record: DocRecord,
  rev: string,
  conflicts: boolean,
  viewer: Viewer | undefined,
): Promise<string> {
  try {
    return (await db.openDoc(record.id, { rev: parseRev(rev), conflicts, ...(viewer && { viewer }) })).json;
  } catch {
    return JSON.stringify({ _id: record.id, _rev: rev, _deleted: true });
  }
}

async function changeRow(
  db: Database,
  record: DocRecord & { body?: string | undefined },
  revs: readonly { rev: string }[],
  options: ChangesOptions,
  read: string | undefined,
): Promise<string> {
  let row = `{"seq":${record.seq},"id":${JSON.stringify(record.id)},"changes":${JSON.stringify(revs)}`;
  if (record.deleted) row += ',"deleted":true';
  if (options.includeDocs) {
    // The winner's text as read for the filter (or from the body read with the change), unless
    // the row must carry attachment data or info.
    const plain = !options.attachments && !options.attEncodingInfo;
    const winner = plain ? (read ?? readWinner(db, record, options.conflicts, options.viewer)) : undefined;
    let doc = winner ?? (await changeDoc(db, record, options));
    if (doc !== 'null' && options.docFilter?.projectDoc !== undefined) doc = options.docFilter.projectDoc(doc);
    row += `,"doc":${doc}`;
  }
  return `${row}}`;
}

/** A live winner rendered from the body read with its change; undefined without one. */
function readWinner(
  db: Database,
  record: DocRecord & { body?: string | undefined },
  conflicts: boolean,
  viewer: Viewer | undefined,
): string | undefined {
  if (record.deleted || record.body === undefined) return undefined;
  return db.winningDocFromBody(record, record.body, conflicts, viewer) ?? undefined;
}

/** A deleted document's row carries its tombstone (`{_id, _rev, _deleted: true}` and kept members). */
async function changeDoc(db: Database, record: DocRecord, options: ChangesOptions): Promise<string> {
  if (!record.deleted) {
    return (await db.winningDoc(record, options.conflicts, attachmentViewOf(options), options.viewer)) ?? 'null';
  }
  try {
    const { attachments, attEncodingInfo, viewer } = options;
    return (await db.openDoc(record.id, { rev: parseRev(record.rev), attachments, attEncodingInfo, viewer })).json;
  } catch {
    return 'null';
  }
}
