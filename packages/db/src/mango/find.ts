/**
 * Running a Mango query: the plan (./planner.ts) names an index and a range; its rows are read in
 * order, each row's document (unless the index covers the query) tested against the selector,
 * `skip` and `limit` applied, and the kept documents projected to `fields`. As CouchDB, the row
 * after the last returned one is examined too (it shows in `execution_stats`), and the bookmark
 * names the last row a page took (returned or skipped).
 */
import type { Viewer } from '../documents/replicator-reads.js';
import { foldReadableBodies, readableIdSet } from '../documents/access-reads.js';
import type { AccessReader } from '../documents/access-rules.js';
import type { Database } from '../documents/database.js';
import { isDesignId } from '../documents/doc-id.js';
import { compareIds } from '../documents/id-order.js';
import { partitionIdRange } from '../documents/partition.js';
import { CouchError } from '../errors.js';
import { withScanWarning } from './scan-warning.js';
import type { ChangedDoc, IdRange, NumberBound } from '../storage/records.js';
import { type JsonValue, JsonNumber, JsonObject, parseJson, stringifyJson } from '../json/index.js';
import { encodeKey, rowKeyBound, type RowKeyRange } from '../collation/index.js';
import { viewOf } from '../views/design.js';
import type { RowEntry } from '../views/index/row-tree.js';
import { partitionRows } from '../views/index/partition-rows.js';
import { readerView } from '../views/query/reader-rows.js';
import type { ViewManager } from '../views/view-manager.js';
import { type Bookmark, decodeBookmark, encodeBookmark } from './bookmark.js';
import type { FindRequest } from './find-request.js';
import { jsonIndexes } from './indexes.js';
import type { JsonIndex } from './json-index.js';
import { rangeExactness } from './exact-range.js';
import { matches } from './match.js';
import { numberBounds } from './number-bounds.js';
import { type FieldRange, type Plan, plan } from './planner.js';
import { selectorParser, storedBodyParser } from './selector-parser.js';
import { isAllFields, project } from './projection.js';
import { textFind, textPlan } from './text-find.js';

export interface FindAnswer {
  /** The documents' JSON texts (a text may hold several, joined by commas: `FoundRow.inJoined`). */
  docs: string[];
  /** undefined: the query was not run (an empty range): the answer is `{"docs":[]}`. */
  bookmark?: string;
  stats?: ExecutionStats;
  warning?: string;
}

/** What one run of a query did, for the node's statistics (`mango` group of `_stats`). */
export interface FindRun {
  keysExamined: number;
  docsExamined: number;
  resultsReturned: number;
  /** No index but `_all_docs` could answer it. */
  unindexed: boolean;
  /** It got the warning that it examined many documents per result. */
  tooManyScanned: boolean;
  ms: number;
}

export interface ExecutionStats {
  total_keys_examined: number;
  total_docs_examined: number;
  total_quorum_docs_examined: number;
  results_returned: number;
  execution_time_ms: number;
}

/** Rows whose documents are read together (the first page only as many as the request can take). */
const PAGE = 128;

export async function planFind(db: Database, request: FindRequest): Promise<Plan> {
  // A query for a partition uses partitioned indexes only, any other query global ones (and `_all_docs` either way).
  const scoped = request.partition !== '';
  const all = await jsonIndexes(db);
  const indexes = all.filter((index) => index.partitioned === scoped);
  const planned = plan(
    {
      selector: request.selector,
      sort: request.sort,
      useIndex: request.useIndex,
      allowFallback: request.allowFallback,
      fields: request.fields.names,
    },
    indexes,
    all.filter((index) => index.partitioned !== scoped),
  );
  return planned;
}

/**
 * The response body of `POST /{db}/_find`. An answer depends on the documents and the request
 * only, so one for the same request at the same database sequence is kept (the view engine's
 * answer cache, which keeps what is asked for twice): none for `update: false`, whose index may
 * lag, nor with `execution_stats`, whose time differs.
 */
export async function findBody(
  db: Database,
  views: ViewManager,
  request: FindRequest,
  requestJson: string,
  onRun?: (run: FindRun) => void,
  /** A reader of an access-enabled database: only documents they may read (documents/access-rules.ts). */
  reader?: AccessReader,
): Promise<Buffer> {
  // Not kept where readers are shown different documents (a read rule: documents/replicator-reads.ts).
  const cacheable =
    request.update && request.stale !== 'ok' && !request.executionStats && reader === undefined && !db.hasReadRule;
  // The partition may come from the path, not the body.
  const key = cacheable ? `_find ${await db.updateSeq()} ${request.partition} ${requestJson}` : undefined;
  const cached = key === undefined ? undefined : views.answers.get(key);
  if (cached !== undefined) return cached;
  const answer = await find(db, views, request, onRun, undefined, reader);
  let tail = ']';
  if (answer.bookmark !== undefined) tail += `,"bookmark":${JSON.stringify(answer.bookmark)}`;
  if (answer.stats !== undefined) tail += `,"execution_stats":${JSON.stringify(answer.stats)}`;
  if (answer.warning !== undefined) tail += `,"warning":${JSON.stringify(answer.warning)}`;
  const body = answerBytes(answer.docs, `${tail}}\n`);
  if (key !== undefined) views.answers.set(key, body);
  return body;
}

/**
 * `{"docs":[` the documents `tail` as UTF-8, each text encoded straight into the body (joining
 * them first made two more copies of the page to collect). Sized by characters first: an ASCII
 * answer (the usual one) is then written without measuring each text's UTF-8 length.
 */
function answerBytes(docs: readonly string[], tail: string): Buffer {
  return asciiAnswer(docs, tail) ?? measuredAnswer(docs, tail);
}

const ANSWER_HEAD = '{"docs":[';

/**
 * The answer written into as many bytes as it has characters (and 4 to spare), or undefined if
 * some text is not ASCII: a piece's UTF-8 is as long as its characters only when it is ASCII,
 * and a piece that does not fit is written short by at most one character (at most 4 bytes,
 * Buffer.write writes no partial character), so one that is not ASCII always writes more or
 * fewer bytes than its characters.
 */
function asciiAnswer(docs: readonly string[], tail: string): Buffer | undefined {
  let chars = ANSWER_HEAD.length + tail.length + Math.max(0, docs.length - 1);
  for (const doc of docs) chars += doc.length;
  const body = Buffer.allocUnsafe(chars + 4);
  let at = body.write(ANSWER_HEAD, 0, 'latin1');
  for (let i = 0; i < docs.length; i++) {
    if (i > 0) body[at++] = 0x2c; // ,
    const doc = docs[i]!;
    const written = body.write(doc, at);
    if (written !== doc.length) return undefined;
    at += written;
  }
  if (body.write(tail, at) !== tail.length) return undefined;
  return body.subarray(0, chars);
}

/** The answer written after measuring each text's UTF-8 length. */
function measuredAnswer(docs: readonly string[], tail: string): Buffer {
  let size = ANSWER_HEAD.length + Buffer.byteLength(tail) + Math.max(0, docs.length - 1);
  for (const doc of docs) size += Buffer.byteLength(doc);
  const body = Buffer.allocUnsafe(size);
  let at = body.write(ANSWER_HEAD, 0, 'latin1');
  for (const [i, doc] of docs.entries()) {
    if (i > 0) body[at++] = 0x2c; // ,
    at += body.write(doc, at);
  }
  body.write(tail, at);
  return body;
}

/** `POST /{db}/_find`. */
export async function find(
  db: Database,
  views: ViewManager,
  request: FindRequest,
  onRun?: (run: FindRun) => void,
  /** Which documents the caller may see: the others are passed over unexamined. */
  visibleIds?: (id: string) => boolean,
  /**
   * A reader of an access-enabled database: a scan without an index reads their documents alone
   * (their access rows joined with the documents); an index's rows are kept when they may read them.
   */
  reader?: AccessReader,
): Promise<FindAnswer> {
  const started = performance.now();
  if (request.partition !== '' && !db.partitioned) {
    throw new CouchError('query_parse_error', '`partition` parameter is not supported on this db', 400);
  }
  const text = await textPlan(db, request, () => planFind(db, request));
  if (text !== undefined) {
    const visible = reader === undefined ? visibleIds : await readableTest(db, reader);
    return textFind(db, views, request, text, onRun, visible);
  }
  const planned = await planFind(db, request);
  const { index } = planned;
  if (index === undefined) {
    // mango_idx:mango_sort_error names the kind of index missing in a partitioned database.
    const kind = !db.partitioned ? '' : request.partition !== '' ? 'partitioned ' : 'global ';
    throw new CouchError(
      'no_usable_index',
      `No ${kind}index exists for this sort, try indexing by the sort fields.`,
      400,
    );
  }
  if (planned.empty || neverRuns(request)) return { docs: [] };
  const bookmark = request.bookmark === undefined ? undefined : decodeBookmark(request.bookmark);
  const stats = { keys: 0, docs: 0 };
  const docs: string[] = [];
  // The documents returned (a text of `docs` may hold several).
  let returned = 0;
  // The last row taken (its key is read only for the bookmark: a skipped row's may never be).
  let last: FoundRow | undefined;
  let skip = request.skip;
  const quorum = request.r >= 2;
  const fresh = request.update && request.stale !== 'ok';
  // A reader's source holds their documents' rows alone (allDocsRows, indexRows).
  const visible = reader === undefined ? visibleIds : undefined;
  // A fresh index whose range is the selector (./exact-range.ts), up to a strict end.
  const exactIndex = fresh && visible === undefined && index.kind === 'json' && !planned.covering;
  const exactness = exactIndex ? rangeExactness(request.selector, index.index, planned.ranges) : undefined;
  const exactBelowEnd = exactness?.belowEnd === true;
  // A document unchanged since the index was current is then judged by its row, not parsed to
  // be matched (unless a projection needs it parsed, or a read rule may show it otherwise).
  const judgedByRow = exactBelowEnd && isAllFields(request.fields) && !db.hasReadRule;
  const source =
    index.kind === 'all_docs'
      ? allDocsRows(db, planned, bookmark, request.partition, reader, request.viewer, scanBounds(db, request, visible))
      : await indexRows(
          db,
          views,
          index.index,
          planned,
          bookmark,
          fresh,
          request.partition,
          reader,
          request.viewer,
          judgedByRow,
        );
  // Rows skipped in a range that is the whole selector are counted, not read.
  const unread = exactness?.exact === true ? request.skip : 0;
  // With `limit: 0` nothing is taken, and the request's bookmark is given back.
  if (request.limit > 0) {
    // The rows a page can take, and the one after (examined, not returned).
    const first = Math.min(PAGE, request.skip - unread + request.limit + 1);
    const parse = documentParser(request);
    // Rows come a page at a time: an async step per row was a tenth or more of a scan's CPU.
    // The row a full page stopped at (the one after it), for a source that passes rows over.
    let stoppedAt: string | undefined;
    // How many of the next rows the query returns if they match (none while it skips).
    const taking = () => (skip > 0 ? 0 : request.limit - returned);
    const rows = source.rows(request.conflicts, first, parse, storedParser(request), unread, taking);
    pages: for await (const page of rows) {
      for (const row of page) {
        if (row.unread !== undefined) {
          // Leading rows counted from the index (./exact-range.ts): examined, never returned.
          stats.keys += row.unread;
          stats.docs += row.unread;
          skip -= row.unread;
          last = row;
          continue;
        }
        if (visible !== undefined && !visible(idOf(row))) continue;
        stats.keys++;
        if (row.doc !== undefined || row.matched !== undefined) stats.docs++;
        if (!(row.matched ?? matches(request.selector, row.doc ?? row.covered!))) continue;
        if (returned === request.limit) {
          stoppedAt = idOf(row);
          break pages;
        }
        last = row;
        if (skip > 0) {
          skip--;
          continue;
        }
        returned++;
        // Its text is in the one of the run it belongs to, pushed with the run's first row.
        if (row.inJoined === true) continue;
        if (isAllFields(request.fields)) docs.push(row.text ?? renderedText(db, row, request.viewer));
        else docs.push(stringifyJson(project((row.doc ?? row.covered!) as JsonObject, request.fields)));
      }
    }
    // Documents storage passed over were examined all the same (counted as CouchDB would).
    if (source.examined !== undefined) {
      const examined = await source.examined(stoppedAt);
      if (examined !== undefined) stats.keys = stats.docs = examined;
    }
  }
  const answer: FindAnswer = {
    docs,
    bookmark:
      last === undefined ? (request.bookmark ?? 'nil') : encodeBookmark({ key: keyOf(last), docId: idOf(last) }),
  };
  const examined = stats.docs;
  const warnings = withScanWarning(planned.warnings, examined, returned);
  onRun?.({
    keysExamined: stats.keys,
    docsExamined: stats.docs,
    resultsReturned: returned,
    unindexed: index.kind === 'all_docs',
    tooManyScanned: warnings.length > planned.warnings.length,
    ms: performance.now() - started,
  });
  if (warnings.length > 0) answer.warning = warnings.join('\n');
  if (request.executionStats) {
    answer.stats = {
      total_keys_examined: stats.keys,
      total_docs_examined: quorum ? 0 : stats.docs,
      total_quorum_docs_examined: quorum ? stats.docs : 0,
      results_returned: returned,
      execution_time_ms: performance.now() - started,
    };
  }
  return answer;
}

/** `{"$or": []}` and `{"$and": []}` alone are not run (CouchDB finds an empty range for them). */
function neverRuns(request: FindRequest): boolean {
  const { selector } = request;
  return (selector.kind === 'or' || selector.kind === 'and') && selector.items.length === 0;
}

interface FoundRow {
  /** The row's key, or `entry` holds it (decoded only for the bookmark: `keyOf`). */
  key?: JsonValue;
  /** The row's id, or `entry` holds it (`idOf`). */
  id?: string;
  /** An index row, whose key and id are decoded only if asked. */
  entry?: RowEntry;
  /** The document (undefined when the index covers the query). */
  doc?: JsonValue;
  /** The document rebuilt from the index key (a covering index). */
  covered?: JsonValue;
  /**
   * Whether the selector holds, known from the index row without parsing the document read (left
   * undefined then): the document is unchanged since the index was current, and the index's
   * range is the selector (see `find`).
   */
  matched?: boolean;
  /**
   * The document's JSON text, if read rendered. The first row of a run read as one text (rows
   * judged by their keys whose documents the query returns, see `indexRows`) holds the run's
   * texts, joined by commas; the run's other rows are `inJoined`.
   */
  text?: string;
  /** A row of a run whose text the run's first row holds (`text`). */
  inJoined?: true;
  /** The winner read with its stored body, rendered only if kept (a scan reads many, keeps few). */
  stored?: ChangedDoc;
  /**
   * The last of `unread` leading rows yielded without their documents, which the query skips
   * (counted, as CouchDB, which reads them, counts them examined).
   */
  unread?: number;
}

type StoredParser = ReturnType<typeof storedBodyParser>;

interface RowSource {
  /**
   * The rows in pages: `first`: how many rows the first page holds (a query with a small limit
   * needs few), the others up to PAGE; `parse` reads a document's text as far as the query needs
   * it; `unread`: how many leading rows come without their documents (an index source only;
   * `_all_docs` reads every one); `taking`: how many of the next rows the query returns if they
   * match, asked when a page is read (an index source reads such a run as one text).
   */
  rows(
    conflicts: boolean,
    first: number,
    parse: (text: string) => JsonValue,
    parseStored: StoredParser,
    unread: number,
    taking: () => number,
  ): AsyncGenerator<FoundRow[]>;
  /**
   * Set by a source that passes documents over without yielding them: how many rows its walk
   * examined up to the row `last` (included), or to its end (undefined).
   */
  examined?: (last: string | undefined) => Promise<number | undefined>;
}

/**
 * The number bounds a scan without an index hands storage (./number-bounds.ts), when what storage
 * leaves out is exactly what the query would not match: the stored bodies are what the selector
 * judges (no read rule, no `conflicts`), every document is offered (no reader, no visibility test).
 */
function scanBounds(db: Database, request: FindRequest, visible: ((id: string) => boolean) | undefined): NumberBound[] {
  if (visible !== undefined || db.hasReadRule || request.conflicts || request.bookmark !== undefined) return [];
  return numberBounds(request.selector);
}

/** How much of each document a query reads: what its selector, projection and `conflicts` name. */
function documentParser(request: FindRequest): (text: string) => JsonValue {
  const also = request.fields.paths.map((path) => path[0]!);
  if (request.conflicts) also.push('_conflicts');
  return selectorParser(request.selector, also);
}

/** The same from stored bodies, where the query allows it (./selector-parser.ts). */
function storedParser(request: FindRequest): StoredParser {
  if (request.conflicts) return undefined;
  return storedBodyParser(
    request.selector,
    request.fields.paths.map((path) => path[0]!),
  );
}

/** The key bounds of a JSON index's leading column ranges (inclusive; the selector checks strictness). */
export function indexKeys(ranges: readonly FieldRange[]): { start: JsonValue[]; end: JsonValue[] } {
  const start: JsonValue[] = [];
  for (const range of ranges) {
    if (range.low === undefined) break;
    start.push(range.low.value);
  }
  const end: JsonValue[] = [];
  for (const range of ranges) {
    if (range.high === undefined) break;
    end.push(range.high.value);
  }
  return { start, end };
}

async function indexRows(
  db: Database,
  views: ViewManager,
  index: JsonIndex,
  planned: Plan,
  bookmark: Bookmark | undefined,
  update: boolean,
  partition: string,
  /** A reader of an access-enabled database: the rows of their documents alone (views/query/reader-rows.ts). */
  reader: AccessReader | undefined,
  viewer: Viewer | undefined,
  /** Rows judged by their keys where their documents are unchanged (`FoundRow.matched`). */
  judgedByRow: boolean,
): Promise<RowSource> {
  // Index keys are the stored values: not answered where readers may be shown less (a read rule).
  const covering = planned.covering && !db.hasReadRule;
  const group = await views.groupOf(index.ddoc);
  const state = await views.state(group);
  if (update) await views.refresh(state);
  else await views.catchUp(state);
  const viewNo = viewOf(group, index.name).index;
  // The rows read below are at least this current: a document whose sequence is not above it
  // has the row it is found by.
  const indexSeq = state.index.updateSeq;
  const whole =
    reader === undefined ? state.index.trees[viewNo]! : (await readerView(db, state.index, viewNo, reader)).tree;
  // A partitioned index is read in the partition's rows alone.
  const tree = partition === '' ? whole : partitionRows(whole, partition);
  const { start, end } = indexKeys(planned.ranges);
  const range: RowKeyRange = {};
  // Arrays encode as tag, elements, terminator: [a] is below every [a, ...], and [a] without its
  // terminator followed by 0xFF above them all.
  if (start.length > 0) range.gte = encodeKey(start);
  // A strict end (`$lt`, read inclusively as CouchDB does): the rows from its value's own key on
  // fail it.
  let failsFrom: Buffer | undefined;
  if (end.length > 0) {
    const bytes = encodeKey(end);
    // Without its terminator, [a] is below every [a, ...].
    const open = bytes.subarray(0, bytes.length - 1);
    range.lt = Buffer.concat([open, Buffer.from([0xff])]);
    if (end.length === planned.ranges.length && planned.ranges[end.length - 1]?.high?.inclusive === false) {
      failsFrom = open;
    }
  }
  if (bookmark !== undefined) {
    // The scan restarts at the bookmark's row (which it then skips).
    if (planned.descending) range.lt = rowKeyBound(bookmark.key, bookmark.docId, true);
    else range.gte = rowKeyBound(bookmark.key, bookmark.docId, false);
  }
  const columns = index.fields;
  return {
    async *rows(conflicts, firstPage, parse, _parseStored, unread, taking) {
      let page: RowEntry[] = [];
      let size = firstPage;
      let first = bookmark !== undefined;
      let toSkip = unread;
      // A row judged by its key (`judgedByRow`): in the index's range, below a strict end.
      const keyMatches = (entry: RowEntry): boolean =>
        failsFrom === undefined || Buffer.compare(entry.key, failsFrom) < 0;
      /**
       * The page's rows into `found` with the documents the query returns read as one text
       * (`FoundRow.inJoined`): the leading rows that match by their keys, as many as it takes, when
       * no later row of the page is returned; false (nothing read) when that does not hold, or
       * when some document of the page is not judged by its row (changed since the index was
       * read, deleted) or storage does not write such text.
       */
      const flushJoined = async (found: FoundRow[]): Promise<boolean> => {
        const want = taking();
        let run = 0;
        while (run < page.length && run < want && keyMatches(page[run]!)) run++;
        // One document is no cheaper read so; a matching row after the run would need its own text.
        if (run < 2) return false;
        if (run < want && page.slice(run).some(keyMatches)) return false;
        const ids = page.map((entry) => entry.value[1]);
        const text = await db.plainWinnersText(ids, indexSeq, run);
        if (text === undefined) return false;
        for (const [i, entry] of page.entries()) {
          const row: FoundRow = { entry, id: entry.value[1], matched: i < run || keyMatches(entry) };
          if (i === 0) row.text = text;
          else if (i < run) row.inJoined = true;
          found.push(row);
        }
        return true;
      };
      const flush = async (covering: boolean): Promise<FoundRow[]> => {
        const found: FoundRow[] = [];
        if (covering) {
          for (const entry of page) {
            const key = parseJson(entry.value[0]) as JsonValue[];
            const covered = JsonObject.from([['_id', entry.value[1]]]);
            for (const [c, column] of columns.entries()) setPath(covered, column.path, key[c] ?? null);
            found.push({ key, id: entry.value[1], covered });
          }
        } else if (!(judgedByRow && !conflicts && (await flushJoined(found)))) {
          const winners = await db.winningDocsWithSeqsOf(
            page.map((entry) => entry.value[1]),
            conflicts,
            viewer,
          );
          for (const [i, entry] of page.entries()) {
            const winner = winners[i];
            // A document deleted since the index was read: not there any more.
            if (winner === null || winner === undefined) continue;
            const { text, seq } = winner;
            const judged = judgedByRow && seq <= indexSeq;
            // The key is read only for the bookmark (the last row taken).
            found.push({
              entry,
              id: entry.value[1],
              doc: judged ? undefined : parse(text),
              matched: judged ? keyMatches(entry) : undefined,
              text,
            });
          }
        }
        page = [];
        return found;
      };
      let entries = tree.rows(range, planned.descending);
      if (toSkip > 1 && !first && tree.rowsAfter !== undefined) {
        // All but the last unread row passed over by the tree's counts; the last one stands for
        // them all (its key is the bookmark's if no row follows). A range holding fewer rows
        // than that is read one by one.
        const after = tree.rowsAfter(range, planned.descending, toSkip - 1);
        const lastUnread = after.next();
        if (!lastUnread.done) {
          yield [unreadRow(lastUnread.value, toSkip)];
          toSkip = 0;
          entries = after;
        }
      }
      for (const entry of entries) {
        if (first) {
          first = false;
          continue;
        }
        if (toSkip > 0) {
          toSkip--;
          yield [unreadRow(entry, 1)];
          continue;
        }
        page.push(entry);
        if (page.length === size) {
          yield await flush(covering);
          size = PAGE;
        }
      }
      if (page.length > 0) yield await flush(covering);
    },
  };
}

/** A kept row's text where the source gave none: its stored body rendered, or its value written. */
function renderedText(db: Database, row: FoundRow, viewer: Viewer | undefined): string {
  if (row.stored !== undefined) return db.winningDocFromBody(row.stored, row.stored.body, false, viewer)!;
  return stringifyJson(row.doc ?? row.covered!);
}

/**
 * `count` rows counted without their documents, as the last of them; its key and id are decoded
 * only if asked (for the bookmark).
 */
function unreadRow(entry: RowEntry, count: number): FoundRow {
  return { unread: count, entry };
}

/** A row's key (an index row's decoded now). */
function keyOf(row: FoundRow): JsonValue {
  return row.key ?? parseJson(row.entry!.value[0]);
}

/** A row's document id. */
function idOf(row: FoundRow): string {
  return row.id ?? row.entry!.value[1];
}

/** Sets `value` at `path` in `target`, creating objects on the way (a covering index's document). */
function setPath(target: JsonObject, path: readonly string[], value: JsonValue): void {
  let at = target;
  for (let i = 0; i < path.length - 1; i++) {
    let next = at.get(path[i]!);
    if (!(next instanceof JsonObject)) at.set(path[i]!, (next = new JsonObject()));
    at = next;
  }
  at.set(path[path.length - 1]!, value);
}

/** `_all_docs` as Mango reads it: ids in byte order, design documents left out. */
function allDocsRows(
  db: Database,
  planned: Plan,
  bookmark: Bookmark | undefined,
  partition: string,
  reader: AccessReader | undefined,
  viewer: Viewer | undefined,
  /** Bounds storage may pass documents over by (none with a reader or a bookmark: `scanBounds`). */
  passOver: readonly NumberBound[],
): RowSource {
  const range = planned.ranges[0];
  let low = typeof range?.low?.value === 'string' ? range.low.value : undefined;
  let high = typeof range?.high?.value === 'string' ? range.high.value : undefined;
  if (partition !== '') {
    // A partition's scan reads its id range alone (no id of the partition is its end bound).
    const bounds = partitionIdRange(partition);
    if (low === undefined || compareIds(low, bounds.start) < 0) low = bounds.start;
    if (high === undefined || compareIds(high, bounds.end) > 0) high = bounds.end;
    if (compareIds(low, high) > 0) high = low = bounds.end;
  }
  const descending = planned.descending;
  // The walk's range when it passes documents over (then without a bookmark: `scanBounds`).
  let passedOver: IdRange | undefined;
  return {
    examined: async (last) => {
      if (passedOver === undefined) return undefined;
      const walked: IdRange = last === undefined ? passedOver : { ...passedOver, end: last, inclusiveEnd: true };
      return db.countDocsButDesigns(walked);
    },
    async *rows(conflicts, first, parse, parseStored) {
      let start = descending ? high : low;
      const end = descending ? low : high;
      // A bookmark restarts the scan at its key and skips one row there, whatever that row is
      // (CouchDB's mango_json_bookmark: start_key and skip + 1), so a bookmark from another query
      // continues after its key. A key that is no string sorts before every id (null, booleans,
      // numbers) or after them (arrays, objects), in view collation.
      let skipping = false;
      if (bookmark !== undefined) {
        skipping = true;
        const key = bookmark.key;
        if (typeof key === 'string') start = key;
        else {
          const belowIds =
            key === null || typeof key === 'boolean' || typeof key === 'number' || key instanceof JsonNumber;
          // Before every id: a forward scan starts at the first, a backward one has nothing left.
          if (belowIds === descending) return;
        }
      }
      const range = {
        ...(start === undefined ? {} : { start }),
        ...(end === undefined ? {} : { end }),
        descending,
      };
      // A reader's scan: their documents alone (documents/access-reads.ts); without one, every
      // document (the folds' own default).
      const bodiesOf = (r: IdRange) => (reader === undefined ? undefined : foldReadableBodies(db, reader, r));
      const starts = (): boolean => {
        if (!skipping) return false;
        skipping = false;
        return true;
      };
      // The fold's pages are cut to the query's (its documents are parsed a page at a time).
      let out: FoundRow[] = [];
      let size = first;
      const full = (): boolean => {
        if (out.length < size) return false;
        size = PAGE;
        return true;
      };
      const taken = (): FoundRow[] => {
        const page = out;
        out = [];
        return page;
      };
      if (parseStored !== undefined) {
        // Matched on the stored bodies: only the documents kept are rendered.
        const bounded = passOver.length > 0 && reader === undefined && bookmark === undefined;
        if (bounded) passedOver = range;
        const bodies = bounded ? db.foldBoundedBodies(range, passOver) : bodiesOf(range);
        for await (const page of db.foldWinningBodies(range, bodies, viewer)) {
          for (const winner of page) {
            const { id, rev, body } = winner;
            if (starts() || isDesignId(id)) continue;
            out.push({
              key: id,
              id,
              doc: parseStored(body!, id, rev),
              stored: winner,
            });
            if (full()) yield taken();
          }
        }
        if (out.length > 0) yield out;
        return;
      }
      for await (const page of db.foldWinningDocs(range, conflicts, bodiesOf(range), viewer)) {
        for (const { id, text } of page) {
          if (starts() || isDesignId(id)) continue;
          out.push({ key: id, id, doc: parse(text), text });
          if (full()) yield taken();
        }
      }
      if (out.length > 0) yield out;
    },
  };
}

/** Whether a reader may read a document, by id: an index's rows are checked one by one. */
async function readableTest(db: Database, reader: AccessReader): Promise<(id: string) => boolean> {
  const readable = await readableIdSet(db, reader);
  return (id) => readable.has(id);
}
