/**
 * A design document's full-text indexes (`indexes.{name}`: `index`, the JavaScript function that
 * calls `index(field, value, options)`, and `analyzer`), and the view group each is kept as.
 *
 * Why a view group. A search index here is an inverted index kept in the view engine's B-trees
 * (../views): its rows are postings, built from the database's changes by the view updater
 * (incremental, single-flight, purges, `_active_tasks`), stored through storage's
 * `ViewIndexStore` on both engines alike (a SQLite file; PostgreSQL shared by the nodes, as view
 * indexes are). SQLite's FTS5 and PostgreSQL's tsvector were the other choice; neither gives
 * Lucene's meaning: their own tokenizers and stemmers instead of Lucene's analyzers, BM25 or
 * ts_rank instead of Lucene's TF-IDF scores, no ordered term dictionary to run prefix, wildcard,
 * fuzzy and range queries over, and two different engines where one contract is wanted. Here the
 * analyzers run in the server (./analyzers.ts) and every query reads the same rows on both.
 *
 * The group's two "views" (row layouts in ./search-rows.ts): the numbers (`[field, number]`),
 * and one row per document (its postings, stored fields and sort values); the inverted postings
 * are made of the documents' rows in memory and kept in step with them (./postings.ts). Their `map` is not JavaScript: the group's language tells the
 * server's native mappers to use ./search-mapper.ts.
 */
import { createHash } from 'node:crypto';
import { CouchError } from '../errors.js';
import type { ViewDef, ViewGroup } from '../views/design.js';

/** The view-group language of a search index (never a design document's own). */
export const SEARCH_LANGUAGE = 'divan-search';

export interface SearchIndexDef {
  ddocId: string;
  name: string;
  /** `indexes.{name}.index`: JavaScript source. */
  source: string;
  /** `indexes.{name}.analyzer` as written (a name or an object); undefined: `standard`. */
  analyzer: unknown;
  signature: string;
  /** How hits are scored: Lucene 4's TF-IDF (`_search`, Clouseau), or Lucene 9's BM25 (`_nouveau`: ./bm25.ts). */
  similarity?: 'bm25';
}

/** The search indexes a design document defines (those with an `index` string). */
export function searchIndexesOf(ddocId: string, body: Record<string, unknown>): SearchIndexDef[] {
  const indexes = body.indexes;
  if (typeof indexes !== 'object' || indexes === null || Array.isArray(indexes)) return [];
  const out: SearchIndexDef[] = [];
  for (const [name, def] of Object.entries(indexes as Record<string, unknown>)) {
    if (typeof def !== 'object' || def === null) continue;
    const source = (def as Record<string, unknown>).index;
    if (typeof source !== 'string') continue;
    const analyzer = (def as Record<string, unknown>).analyzer;
    const signature = createHash('md5')
      // Row format 3 (postings in the documents' rows); the ddoc id, so that two design
      // documents never share one index's state.
      .update(JSON.stringify({ search: 3, ddocId, source, analyzer: analyzer ?? null }))
      .digest('hex');
    out.push({ ddocId, name, source, analyzer, signature });
  }
  return out;
}

/** One index by name: 404 when the design document has none of that name. */
export function searchIndexOf(ddocId: string, body: Record<string, unknown>, name: string): SearchIndexDef {
  const def = searchIndexesOf(ddocId, body).find((d) => d.name === name);
  if (def === undefined)
    throw new CouchError('not_found', `Search index ${name} not found in design document ${ddocId}`);
  return def;
}

/** The signatures of a design document's search indexes (in use while it is). */
export function searchSignatures(ddocId: string, body: Record<string, unknown>): string[] {
  return searchIndexesOf(ddocId, body).map((d) => d.signature);
}

/** Which of the group's trees holds what. */
export const NUMBERS = 0;
export const DOCS = 1;

/** The view group the view engine keeps a search index as (see the header). */
export function searchGroupOf(def: SearchIndexDef): ViewGroup {
  // Global trees, no partition prefix: a partition's search keeps its hits (./search-partition.ts).
  const view = (name: string): ViewDef => ({ name, map: '', options: {}, raw: true, partitioned: false });
  return {
    ddocId: def.ddocId,
    language: SEARCH_LANGUAGE,
    views: [view('numbers'), view('docs')],
    options: { search: { name: def.name, index: def.source, analyzer: def.analyzer ?? null } },
    includeDesign: false,
    localSeq: false,
    partitioned: false,
    lib: {},
    signature: def.signature,
    task: { type: 'search_indexer', index: def.name },
  };
}

/** The index definition a search group was made from. */
export function defOfGroup(group: ViewGroup): SearchIndexDef {
  const search = group.options.search as { name: string; index: string; analyzer: unknown };
  return {
    ddocId: group.ddocId,
    name: search.name,
    source: search.index,
    analyzer: search.analyzer ?? undefined,
    signature: group.signature,
  };
}
