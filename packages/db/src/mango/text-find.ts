/**
 * `_find` and `_explain` through a Mango text index (CouchDB's mango_cursor_text):
 *
 * - which: a usable JSON index still wins (CouchDB tries view indexes first), then a usable text
 *   index, then `_all_docs`. A text index is usable when the selector is not empty and, for an
 *   index with a fields list, every field its query reads is in the list (./text-query.ts
 *   `indexableFields`). `use_index` naming one picks it; two usable and none named is 400
 *   `multiple_text_indexes`. A text index with a partial filter is used only when named.
 * - how: the selector as a Lucene query (./text-query.ts) on the index (a search index,
 *   ../search), `sort` by the fields' typed names (`age_3anumber<number>`), relevance when
 *   none; pages of as many hits as the request still needs (at most 200), each hit's document
 *   tested against the selector, `skip` and `limit` (at most 200) applied; the bookmark is the
 *   search's, where the last page ended.
 */
import type { Database } from '../documents/database.js';
import { CouchError } from '../errors.js';
import { withScanWarning } from './scan-warning.js';
import { type JsonValue, JsonObject, parseJson, stringifyJson } from '../json/index.js';
import { searchIndex } from '../search/search.js';
import type { SearchParams, SortField as SearchSortField } from '../search/search-request.js';
import type { ViewManager } from '../views/view-manager.js';
import type { FindAnswer, FindRun } from './find.js';
import type { FindRequest } from './find-request.js';
import { matches } from './match.js';
import type { Plan } from './planner.js';
import { isAllFields, project } from './projection.js';
import { selectorToJson } from './selector.js';
import { describeTextIndex, type TextIndex, textIndexes, textSearchDef } from './text-index.js';
import { indexableFields, sortFieldOf, textQuery } from './text-query.js';

export interface TextPlan {
  index: TextIndex;
  /** Warnings of the JSON planner that still apply (a `use_index` that was not used). */
  warnings: string[];
  /** The JSON planner's analysis, when it ran (`_explain`'s candidates). */
  json: Plan | undefined;
}

/** CouchDB's `[dreyfus] max_limit`: the most hits one search, and one text `_find`, gives. */
const MAX_LIMIT = 200;
const MANGO_ALL_DOCS = 'No matching index found, create an index to optimize query time.';

export function isPartial(index: TextIndex): boolean {
  return ['partial_filter_selector', 'selector'].some((key) => {
    const selector = index.def.get(key);
    return selector instanceof JsonObject && selector.size > 0;
  });
}

/** mango_idx_text:is_usable. */
export function isUsable(index: TextIndex, selector: JsonValue): boolean {
  if (selector instanceof JsonObject && selector.size === 0) return false;
  if (index.columns === undefined) return true;
  const columns = new Set([...(index.defaultField ? ['$default'] : []), ...index.columns]);
  return indexableFields(selector).every((field) => columns.has(field));
}

/**
 * The text index a query runs on, or undefined when a JSON index or `_all_docs` serves it.
 * `planJson` is the JSON planner's choice (./find.ts planFind), asked only when it matters.
 */
export async function textPlan(
  db: Database,
  request: FindRequest,
  planJson: () => Promise<Plan>,
): Promise<TextPlan | undefined> {
  // A partition's query reads partitioned indexes only, any other query global ones (as ./find.ts).
  const scoped = request.partition !== '';
  const all = (await textIndexes(db)).filter((index) => index.partitioned === scoped);
  if (all.length === 0) return undefined;
  const selector = selectorToJson(request.selector);
  const { useIndex } = request;
  const named = namedBy(useIndex);
  const usable = all.filter((index) => (!isPartial(index) || named(index)) && isUsable(index, selector));
  const mine = usable.filter(named);
  if (mine.length > 0) return { index: only(mine), warnings: [], json: undefined };
  if (usable.length === 0) return undefined;
  let json: Plan | undefined;
  try {
    json = await planJson();
  } catch (error) {
    // No JSON index gives the sort, or only `_all_docs` could and fallback is off: the text index
    // serves it. A `use_index` that names nothing usable stays refused.
    const unserved =
      error instanceof CouchError &&
      (error.error === 'no_usable_index' || (error.error === 'invalid_index' && useIndex.length === 0));
    if (!unserved) throw error;
  }
  if (json?.index?.kind === 'json') return undefined;
  // Text indexes before nouveau ones (mango_cursor's cursor order: the first kind that has one).
  const kind = usable.some((index) => index.type === 'text') ? 'text' : 'nouveau';
  return {
    index: only(usable.filter((index) => index.type === kind)),
    warnings: (json?.warnings ?? []).filter((w) => w !== MANGO_ALL_DOCS),
    json,
  };
}

/** Whether `use_index` (`[ddoc]` or `[ddoc, name]`) names an index. */
export function namedBy(useIndex: readonly string[]): (index: { ddoc: string; name: string }) => boolean {
  return (index) =>
    useIndex.length > 0 &&
    index.ddoc === `_design/${useIndex[0]}` &&
    (useIndex.length === 1 || index.name === useIndex[1]);
}

function only(indexes: TextIndex[]): TextIndex {
  if (indexes.length > 1) {
    throw new CouchError('multiple_text_indexes', 'You must specify an index with the `use_index` parameter.', 400);
  }
  return indexes[0]!;
}

/** The query CouchDB runs, and the one this server's parser runs (no regular expressions: `*` for `/.* /`). */
function queries(request: FindRequest): { shown: string; run: string } {
  const shown = textQuery(selectorToJson(request.selector));
  return { shown, run: shown.replaceAll('($fieldnames:/.*/ ', '($fieldnames:* ') };
}

function sortOf(request: FindRequest): SearchSortField[] | undefined {
  if (request.sort.length === 0) return undefined;
  const selector = selectorToJson(request.selector);
  return request.sort.map(({ field, direction }) => {
    const typed = sortFieldOf(field, selector);
    return { field: typed.field, type: typed.type, descending: direction === 'desc' };
  });
}

export async function textFind(
  db: Database,
  views: ViewManager,
  request: FindRequest,
  planned: TextPlan,
  onRun?: (run: FindRun) => void,
  visible?: (id: string) => boolean,
): Promise<FindAnswer> {
  const started = performance.now();
  const def = textSearchDef(planned.index);
  const { run } = queries(request);
  const sort = sortOf(request);
  let limit = Math.min(MAX_LIMIT, request.limit);
  let skip = request.skip;
  let bookmark = request.bookmark;
  let examined = 0;
  const docs: string[] = [];
  while (run !== '') {
    const page = Math.min(MAX_LIMIT, limit + skip);
    if (page === 0) break;
    const params: SearchParams = {
      query: run,
      limit: page,
      bookmark,
      sort,
      includeDocs: false,
      conflicts: false,
      includeFields: [],
      update: request.update && request.stale !== 'ok' ? 'now' : 'never',
      facets: { counts: undefined, ranges: undefined, drilldown: undefined },
      group: undefined,
      highlight: undefined,
      ...(request.partition === '' ? {} : { partition: request.partition }),
    };
    const answer = await searchIndex(db, views, def, params).catch((error: unknown) => {
      if (error instanceof CouchError && error.reason.startsWith('Invalid bookmark')) {
        throw new CouchError('invalid_bookmark', `Invalid bookmark value: ${JSON.stringify(bookmark)}`, 400);
      }
      throw error;
    });
    if ('groups' in answer) throw new Error('a text index search is never grouped');
    bookmark = answer.bookmark;
    if (answer.rows.length === 0) break;
    const ids = answer.rows.map((row) => row.id);
    const texts = await db.winningDocsOf(ids, request.conflicts, request.viewer);
    for (const [i, id] of ids.entries()) {
      const text = texts[i];
      if (text === null || text === undefined || (visible !== undefined && !visible(id))) continue;
      examined++;
      const doc = parseJson(text);
      if (!matches(request.selector, doc)) continue;
      if (skip > 0) {
        skip--;
        continue;
      }
      docs.push(isAllFields(request.fields) ? text : stringifyJson(project(doc as JsonObject, request.fields)));
      limit--;
    }
    // Every hit wanted, or none left after this page.
    if (limit === 0 || answer.rows.length < page) break;
  }
  const answer: FindAnswer = { docs, bookmark: bookmark ?? 'nil' };
  const warnings = withScanWarning(planned.warnings, examined, docs.length);
  if (warnings.length > 0) answer.warning = warnings.join('\n');
  onRun?.({
    keysExamined: 0,
    docsExamined: examined,
    resultsReturned: docs.length,
    unindexed: false,
    tooManyScanned: warnings.length > planned.warnings.length,
    ms: performance.now() - started,
  });
  if (request.executionStats) {
    const quorum = request.r >= 2;
    answer.stats = {
      total_keys_examined: 0,
      total_docs_examined: quorum ? 0 : examined,
      total_quorum_docs_examined: quorum ? examined : 0,
      results_returned: docs.length,
      execution_time_ms: performance.now() - started,
    };
  }
  return answer;
}

/** `_explain`'s members for a text index: the index, then (after the common ones) `query`, `partition` and `sort`. */
export function textExplain(
  request: FindRequest,
  planned: TextPlan,
): { index: JsonObject; limit: number; tail: [string, JsonValue][] } {
  const sort = sortOf(request);
  return {
    index: describeTextIndex(planned.index),
    limit: Math.min(MAX_LIMIT, request.limit),
    tail: [
      ['query', queries(request).shown],
      ['partition', request.partition === '' ? null : request.partition],
      // mango_cursor_nouveau writes no sort as `null`, mango_cursor_text as `relevance`.
      [
        'sort',
        sort === undefined
          ? planned.index.type === 'nouveau'
            ? null
            : 'relevance'
          : sort.map((s) => `${s.descending ? '-' : ''}${s.field}<${s.type}>`),
      ],
    ],
  };
}
