/**
 * `_search` and `_search_info` of one design document's index: the index found in the design
 * document, opened and kept up to date by the view engine (as a view group: ./search-design.ts),
 * the query parsed, built and run (./query-syntax.ts → ./query-build.ts → ./query-eval.ts), the
 * hits sorted and paged, and the answer in CouchDB's shape:
 * `{"total_rows", "bookmark", "rows": [{"id", "order", "fields"[, "doc"]}]}`.
 *
 * `order` is what the hit sorted by (its score, or its sort fields' values) and then its place in
 * the index (Lucene's document number); the bookmark is where the last row stood (its sort values
 * and id), and the next page starts after it.
 */
import type { Database } from '../documents/database.js';
import type { Viewer } from '../documents/replicator-reads.js';
import { DESIGN_PREFIX } from '../documents/doc-id.js';
import { inPartition } from '../documents/partition.js';
import { encodeRowKey } from '../collation/index.js';
import { CouchError } from '../errors.js';
import type { ViewManager } from '../views/view-manager.js';
import type { GroupState } from '../views/group-state.js';
import { fieldAnalyzers } from './analyzers.js';
import { drillDown, facetCounts, facetRanges } from './facets.js';
import { buildQuery } from './query-build.js';
import type { Postings } from './postings.js';
import { fuzzyExpansion, type Hits, IndexReader, type Scored, scoredOf } from './query-eval.js';
import { inPartitionBm25 } from './query-bm25.js';
import { highlight, queryMatchers } from './highlights.js';
import { scoreHits, topOfQuery } from './query-top.js';
import { TopHits } from './top-hits.js';
import { fromDesign } from './design-definitions.js';
import { parseQuerySyntax } from './query-syntax.js';
import { DOCS, searchGroupOf, searchIndexOf, type SearchIndexDef } from './search-design.js';
import { compareTerms } from './search-mapper.js';
import type { SearchParams, SortField } from './search-request.js';
import type { DocValue } from './search-rows.js';

export interface SearchRow {
  id: string;
  order: unknown[];
  fields: Record<string, unknown>;
  /** With highlight_fields: per field, the fragments where the query matched. */
  highlights?: Record<string, string[]>;
  /** With include_docs: the document's JSON text (`null` when gone). */
  doc?: string;
}

export interface SearchAnswer {
  total_rows: number;
  bookmark: string;
  rows: SearchRow[];
  counts?: Record<string, Record<string, number>>;
  ranges?: Record<string, Record<string, number>>;
}

/** One group of a grouped search (`group_field`): its value, its hits, its first rows. */
export interface SearchGroup {
  by: string | null;
  total_rows: number;
  rows: SearchRow[];
}

export interface GroupedAnswer {
  total_rows: number;
  groups: SearchGroup[];
}

interface Entry {
  id: string;
  values: unknown[];
  /** Its number in the postings, when known (a page by relevance): no lookup of its id. */
  doc?: number;
}

export interface SearchIndexInfo {
  name: string;
  search_index: {
    pending_seq: number;
    doc_del_count: number;
    doc_count: number;
    disk_size: number;
    committed_seq: number;
  };
}

/**
 * The index definition of `_design/{ddoc}`'s `indexes.{name}` (404s as CouchDB has them: the
 * design document is opened before the request's parameters are looked at).
 */
export async function searchDefinition(db: Database, ddoc: string, name: string): Promise<SearchIndexDef> {
  const ddocId = DESIGN_PREFIX + ddoc;
  return fromDesign(db, ddocId, `search:${name}`, (body) => searchIndexOf(ddocId, body, name));
}

/**
 * The index opened in the view engine: brought up to date first (`now`), or taken as it is
 * (what other nodes stored included), then updated in the background (`after`) or not.
 */
async function openState(views: ViewManager, def: SearchIndexDef, update: SearchParams['update']): Promise<GroupState> {
  const state = await views.state(searchGroupOf(def));
  if (update === 'now') {
    await views.refresh(state);
    return state;
  }
  await views.catchUp(state);
  // A failure of that update is the next query's to report (it runs the update again).
  if (update === 'after') void views.refresh(state).catch(() => {});
  return state;
}

export async function searchIndex(
  db: Database,
  views: ViewManager,
  def: SearchIndexDef,
  params: SearchParams,
): Promise<SearchAnswer | GroupedAnswer> {
  const syntax = parseQuerySyntax(params.query);
  const analyzers = fieldAnalyzers(def.analyzer);
  const after = params.bookmark === undefined ? undefined : decodeBookmark(params.bookmark);
  const state = await openState(views, def, params.update);
  const trees = state.index.trees;
  const reader = await IndexReader.open(trees, def.similarity ?? 'classic');
  const query = buildQuery(syntax, analyzers);
  const { partition } = params;
  /** Every hit scored (what the page by relevance alone does without: ./query-top.ts). */
  const scoreAll = (): Scored => {
    const scored = query === undefined ? scoredOf(0) : scoreHits(reader, query);
    // A partition's query keeps its documents' hits (./search-partition.ts); Nouveau's scores its partition too.
    if (partition !== undefined && reader.similarity === 'bm25')
      inPartitionBm25(reader, scored, partition, db.partitioned);
    else if (partition !== undefined) {
      let kept = 0;
      for (let i = 0; i < scored.length; i++) {
        if (!inPartition(reader.index.idOf(scored.docs[i]!), partition)) continue;
        scored.docs[kept] = scored.docs[i]!;
        scored.scores[kept++] = scored.scores[i]!;
      }
      scored.length = kept;
    }
    return scored;
  };

  const docsTree = trees[DOCS]!;
  const docRows = new Map<string, DocValue | undefined>();
  const docRow = (id: string, doc = reader.index.docOf(id)): DocValue | undefined => {
    const kept = doc === undefined ? undefined : reader.index.valueOf(doc);
    if (kept !== undefined) return kept;
    if (docRows.has(id)) return docRows.get(id);
    const key = encodeRowKey(null, id, true);
    const next = docsTree.rows({ gte: key, lt: Buffer.concat([key, HIGH]) }, false).next();
    const value = next.done ? undefined : (JSON.parse(next.value.value[2]) as DocValue);
    docRows.set(id, value);
    return value;
  };
  const { counts, ranges, drilldown } = params.facets;
  const matchers =
    params.highlight === undefined
      ? undefined
      : queryMatchers(query, (q) => {
          const expanded = fuzzyExpansion(reader, q as Extract<typeof q, { type: 'fuzzy' }>);
          return expanded.type === 'bool' ? expanded.clauses.map((c) => (c.query as { term: string }).term) : [];
        });
  const highlightsOf = (stored: Record<string, unknown>): Record<string, string[]> => {
    const out: Record<string, string[]> = {};
    for (const field of params.highlight!.fields) {
      const value = stored[field];
      const texts = (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
      out[field] = texts
        .flatMap((text) => highlight(text, analyzers.forField(field), matchers!.get(field), params.highlight!))
        .slice(0, params.highlight!.number);
    }
    return out;
  };
  const rank = (id: string, doc = reader.index.docOf(id)): number => {
    return doc === undefined ? docsTree.countBelow(encodeRowKey(null, id, true)) : reader.index.rankOf(doc);
  };
  const rowOf = async (entry: Entry): Promise<SearchRow> => {
    const stored = docRow(entry.id, entry.doc)?.s ?? {};
    const fields: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(stored)) {
      if (params.includeFields === undefined || params.includeFields.includes(field)) fields[field] = value;
    }
    const row: SearchRow = { id: entry.id, order: [...entry.values, rank(entry.id, entry.doc)], fields };
    if (params.highlight !== undefined) row.highlights = highlightsOf(stored);
    if (params.includeDocs) row.doc = await docJson(db, entry.id, params.conflicts, params.viewer);
    return row;
  };
  const pageOf = async (page: readonly Entry[], total: number): Promise<SearchAnswer> => {
    const rows: SearchRow[] = [];
    for (const entry of page) rows.push(await rowOf(entry));
    const last = page[page.length - 1];
    const bookmark =
      last !== undefined ? encodeBookmark(last.values, last.id) : (params.bookmark ?? encodeBookmark([], ''));
    return { total_rows: total, bookmark, rows };
  };
  if (params.sort === undefined && params.group === undefined && drilldown === undefined) {
    // By relevance, no hit needs its row: the page is picked from the scores as they are.
    if (after !== undefined && after.values.length !== RELEVANCE.length) {
      throw new CouchError('bad_request', 'Invalid bookmark for this sort');
    }
    const top = new TopHits(
      reader.index,
      params.limit,
      after === undefined ? undefined : { score: after.values[0] as number, id: after.id },
    );
    if (partition === undefined && counts === undefined && ranges === undefined && query !== undefined) {
      const total = topOfQuery(reader, query, top);
      return pageOf(pageEntries(reader.index, top), total);
    }
    const scored = scoreAll();
    for (let i = 0; i < scored.length; i++) top.offer(scored.docs[i]!, scored.scores[i]!);
    const answer = await pageOf(pageEntries(reader.index, top), scored.length);
    if (counts === undefined && ranges === undefined) return answer;
    const ids = Array.from(scored.docs.subarray(0, scored.length), (doc) => reader.index.idOf(doc));
    if (counts !== undefined) answer.counts = facetCounts(ids, docRow, counts);
    if (ranges !== undefined) answer.ranges = facetRanges(ids, docRow, ranges);
    return answer;
  }
  const scored = scoreAll();
  let hits: Hits = new Map();
  for (let i = 0; i < scored.length; i++) hits.set(reader.index.idOf(scored.docs[i]!), scored.scores[i]!);
  if (drilldown !== undefined) {
    const kept = new Set(drillDown([...hits.keys()], docRow, drilldown));
    hits = new Map([...hits].filter(([id]) => kept.has(id)));
  }
  const ordered = (sort: readonly SortField[] | undefined, sorted = true) =>
    orderHits(hits, sort, docRow, rank, sorted);

  if (params.group !== undefined) {
    const { field, limit: groupLimit, sort: groupSort } = params.group;
    const buckets = new Map<string | null, Entry[]>();
    for (const entry of ordered(params.sort).entries) {
      const by = docRow(entry.id)?.t[field] ?? null;
      let bucket = buckets.get(by);
      if (bucket === undefined) buckets.set(by, (bucket = []));
      bucket.push(entry);
    }
    // Groups in the order of their first document under group_sort.
    const position = new Map<string, number>();
    for (const [i, entry] of ordered(groupSort).entries.entries()) position.set(entry.id, i);
    const head = (bucket: Entry[]) => Math.min(...bucket.map((e) => position.get(e.id)!));
    const sortedGroups = [...buckets].sort((a, b) => head(a[1]) - head(b[1])).slice(0, groupLimit);
    const groups: SearchGroup[] = [];
    for (const [by, bucket] of sortedGroups) {
      const rows: SearchRow[] = [];
      for (const entry of bucket.slice(0, params.limit)) rows.push(await rowOf(entry));
      groups.push({ by, total_rows: bucket.length, rows });
    }
    return { total_rows: hits.size, groups };
  }

  // Only the page is put in order: the first `limit` hits after the bookmark.
  const { entries, compare, sort } = ordered(params.sort, false);
  if (after !== undefined && after.values.length !== sort.length) {
    throw new CouchError('bad_request', 'Invalid bookmark for this sort');
  }
  const page = smallest(
    after === undefined ? entries : entries.filter((entry) => compare(entry, after) > 0),
    params.limit,
    compare,
  );
  const answer = await pageOf(page, hits.size);
  if (counts !== undefined) answer.counts = facetCounts([...hits.keys()], docRow, counts);
  if (ranges !== undefined) answer.ranges = facetRanges([...hits.keys()], docRow, ranges);
  return answer;
}

export async function searchInfo(
  db: Database,
  views: ViewManager,
  ddoc: string,
  name: string,
): Promise<SearchIndexInfo> {
  const state = await openState(views, await searchDefinition(db, ddoc, name), 'never');
  return {
    name: `${DESIGN_PREFIX}${ddoc}/${name}`,
    search_index: {
      pending_seq: await db.updateSeq(),
      doc_del_count: 0,
      doc_count: state.index.trees[DOCS]!.total(),
      disk_size: state.index.fileSize(),
      committed_seq: state.index.updateSeq,
    },
  };
}

const HIGH = Buffer.from([0xff]);

const RELEVANCE: readonly SortField[] = [{ field: '<score>', type: 'score', descending: false }];

/** The hits in a sort's order (relevance when undefined); ties in index order (ids' UTF-8 order). */
function orderHits(
  hits: ReadonlyMap<string, number>,
  given: readonly SortField[] | undefined,
  docRow: (id: string) => DocValue | undefined,
  rank: (id: string) => number,
  sorted: boolean,
): { entries: Entry[]; compare: (a: Entry, b: Entry) => number; sort: readonly SortField[] } {
  const sort = given ?? RELEVANCE;
  const needsValues = sort.some((s) => s.type === 'number' || s.type === 'string');
  const entries = [...hits].map(([id, score]) => {
    const value = needsValues ? docRow(id) : undefined;
    return { id, values: sort.map((s) => sortValue(s, score, id, value, rank)) };
  });
  const byRelevance = given === undefined;
  const compare = (a: Entry, b: Entry) =>
    (byRelevance ? (b.values[0] as number) - (a.values[0] as number) : compareSorted(sort, a.values, b.values)) ||
    compareTerms(a.id, b.id);
  if (sorted) entries.sort(compare);
  return { entries, compare, sort };
}

/** The page of a relevance sort as entries: its hits' ids and scores. */
function pageEntries(index: Postings, top: TopHits): Entry[] {
  return top.page().map(({ doc, score }) => ({ id: index.idOf(doc), values: [score], doc }));
}

/** The `k` first entries in order, through a bounded max-heap (a page of many hits sorts k, not all). */
function smallest<T>(entries: Iterable<T>, k: number, compare: (a: T, b: T) => number): T[] {
  if (k <= 0) return [];
  const heap: T[] = [];
  const up = (i: number) => {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (compare(heap[i]!, heap[parent]!) <= 0) return;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  };
  const down = (i: number) => {
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let top = i;
      if (left < heap.length && compare(heap[left]!, heap[top]!) > 0) top = left;
      if (right < heap.length && compare(heap[right]!, heap[top]!) > 0) top = right;
      if (top === i) return;
      [heap[i], heap[top]] = [heap[top]!, heap[i]!];
      i = top;
    }
  };
  for (const entry of entries) {
    if (heap.length < k) {
      heap.push(entry);
      up(heap.length - 1);
    } else if (compare(entry, heap[0]!) < 0) {
      heap[0] = entry;
      down(0);
    }
  }
  return heap.sort(compare);
}

function sortValue(
  s: SortField,
  score: number,
  id: string,
  doc: DocValue | undefined,
  rank: (id: string) => number,
): unknown {
  switch (s.type) {
    case 'score':
      return score;
    case 'doc':
      return rank(id);
    case 'number':
      // Lucene's field cache reads a document without the field as 0.
      return doc?.n[s.field] ?? 0;
    case 'string':
      return doc?.t[s.field] ?? null;
  }
}

/** Relevance sorts the highest score first (`-<score>` the lowest); fields ascend unless `-`. */
function compareSorted(sort: readonly SortField[], a: readonly unknown[], b: readonly unknown[]): number {
  for (let i = 0; i < sort.length; i++) {
    const s = sort[i]!;
    let c: number;
    const x = a[i];
    const y = b[i];
    if (s.type === 'string') {
      // A document without the field sorts first (Lucene 4's missing string).
      c = x === y ? 0 : x === null ? -1 : y === null ? 1 : compareTerms(x as string, y as string);
    } else c = (x as number) - (y as number);
    if (s.type === 'score') c = -c;
    if (s.descending) c = -c;
    if (c !== 0) return c;
  }
  return 0;
}

function encodeBookmark(values: readonly unknown[], id: string): string {
  return Buffer.from(JSON.stringify([values, id])).toString('base64url');
}

function decodeBookmark(bookmark: string): { values: unknown[]; id: string } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(bookmark, 'base64url').toString('utf8'));
  } catch {
    throw new CouchError('bad_request', 'Invalid bookmark');
  }
  if (!Array.isArray(parsed) || parsed.length !== 2 || !Array.isArray(parsed[0]) || typeof parsed[1] !== 'string') {
    throw new CouchError('bad_request', 'Invalid bookmark');
  }
  // The bookmark of an empty page: from the start.
  if (parsed[0].length === 0) return undefined;
  return { values: parsed[0] as unknown[], id: parsed[1] };
}

async function docJson(db: Database, id: string, conflicts: boolean, viewer: Viewer | undefined): Promise<string> {
  const record = await db.record(id);
  if (record === undefined) return 'null';
  return (await db.winningDoc(record, conflicts, { data: false, encodingInfo: false }, viewer)) ?? 'null';
}
