/**
 * `_nouveau`, `_nouveau_info` and `/_nouveau_analyze`: a Nouveau index is a search index
 * (./nouveau-design.ts), queried by ./search.ts; this gives the answer Nouveau's shape:
 *
 *   {"bookmark", "counts", "hits": [{"fields", "id", "order"[, "doc"]}], "ranges",
 *    "total_hits", "total_hits_relation"}
 *
 * (keys in the order CouchDB prints an Erlang map's). A hit's `order` is Nouveau's typed sort
 * values, `{"@type": "float"|"double"|"string", "value"}`: what it sorted by (its score when by
 * relevance), then its id. `fields` holds one value per stored field (the last one stored, as
 * CouchDB folds Nouveau's list into an object). Totals are exact: `EQUAL_TO`.
 */
import type { Database } from '../documents/database.js';
import { DESIGN_PREFIX } from '../documents/doc-id.js';
import { CouchError } from '../errors.js';
import type { ViewManager } from '../views/view-manager.js';
import { analyzeRequest } from './analyzers.js';
import { shortestFloat } from './bm25.js';
import { fromDesign } from './design-definitions.js';
import { nouveauIndexOf } from './nouveau-design.js';
import type { NouveauParams } from './nouveau-request.js';
import { type SearchRow, searchIndex } from './search.js';
import { searchGroupOf, DOCS, type SearchIndexDef } from './search-design.js';
import type { SortField } from './search-request.js';

export interface NouveauHit {
  fields: Record<string, unknown>;
  id: string;
  order: { '@type': string; value: unknown }[];
  /** With include_docs: the document's JSON text. */
  doc?: string;
}

export interface NouveauAnswer {
  bookmark: string;
  counts: Record<string, Record<string, number>> | null;
  hits: NouveauHit[];
  ranges: Record<string, Record<string, number>> | null;
  total_hits: number;
  total_hits_relation: 'EQUAL_TO';
}

/** The index definition of `_design/{ddoc}`'s `nouveau.{name}` (the design document's 404s first). */
export async function nouveauDefinition(db: Database, ddoc: string, name: string): Promise<SearchIndexDef> {
  const ddocId = DESIGN_PREFIX + ddoc;
  return fromDesign(db, ddocId, `nouveau:${name}`, (body) => nouveauIndexOf(ddocId, body, name));
}

export async function nouveauSearch(
  db: Database,
  views: ViewManager,
  def: SearchIndexDef,
  params: NouveauParams,
): Promise<NouveauAnswer> {
  const answer = await searchIndex(db, views, def, params.search);
  if ('groups' in answer) throw new Error('a Nouveau search is never grouped');
  const counts =
    answer.counts === undefined
      ? null
      : Object.fromEntries(
          // facetCounts puts the most frequent first: Nouveau's top_n are those.
          Object.entries(answer.counts).map(([field, values]) => [
            field,
            Object.fromEntries(Object.entries(values).slice(0, params.topN)),
          ]),
        );
  return {
    bookmark: answer.bookmark,
    counts,
    hits: answer.rows.map((row) => hitOf(row, params.sort)),
    ranges: answer.ranges ?? null,
    total_hits: answer.total_rows,
    total_hits_relation: 'EQUAL_TO',
  };
}

function hitOf(row: SearchRow, sort: readonly SortField[] | undefined): NouveauHit {
  const fields: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(row.fields)) fields[name] = Array.isArray(value) ? value.at(-1) : value;
  // row.order: one value per sort field (the score alone by relevance), then the index position.
  const types = sort?.map((s) => (s.type === 'score' ? 'float' : s.type === 'number' ? 'double' : 'string')) ?? [
    'float',
  ];
  // Scores are Lucene 9's floats, printed as Java prints one (./bm25.ts).
  const order = types.flatMap((type, i) =>
    // The index order stands for `_id<string>`, which comes last anyway.
    sort?.[i]?.type === 'doc'
      ? []
      : [{ '@type': type, value: type === 'float' ? shortestFloat(row.order[i] as number) : row.order[i] }],
  );
  order.push({ '@type': 'string', value: row.id });
  const hit: NouveauHit = { fields, id: row.id, order };
  if (row.doc !== undefined) hit.doc = row.doc;
  return hit;
}

/** `_nouveau_info`: `{"name", "search_index": {"update_seq", "purge_seq", "num_docs", "disk_size"}}`. */
export async function nouveauInfo(db: Database, views: ViewManager, ddoc: string, name: string) {
  const def = await nouveauDefinition(db, ddoc, name);
  const state = await views.state(searchGroupOf(def));
  await views.catchUp(state);
  return {
    name: `${DESIGN_PREFIX}${ddoc}/${name}`,
    search_index: {
      update_seq: state.index.updateSeq,
      purge_seq: state.index.purgeSeq,
      num_docs: state.index.trees[DOCS]!.total(),
      disk_size: state.index.fileSize(),
    },
  };
}

/** `POST /_nouveau_analyze` (`{"analyzer", "text"}`): Lucene 9's analyzers (`standard` keeps stop words). */
export function nouveauAnalyze(body: Record<string, unknown>): { tokens: string[] } {
  const { analyzer } = body;
  if (typeof analyzer !== 'string' && analyzer !== undefined) {
    throw new CouchError('bad_request', 'analyzer parameter must be a string');
  }
  return analyzeRequest({
    ...body,
    ...(analyzer === 'standard' ? { analyzer: { name: 'standard', stopwords: [] } } : {}),
  });
}
