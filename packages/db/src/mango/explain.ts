/**
 * `POST /{db}/_explain`: the plan of a `_find` request, with CouchDB's members in CouchDB's
 * order (the index, the normalized selector, the options, the view arguments of the range).
 */
import type { Database } from '../documents/database.js';
import { type JsonValue, JsonObject } from '../json/index.js';
import { planFind, indexKeys } from './find.js';
import type { FindRequest } from './find-request.js';
import { ALL_DOCS_INDEX, describeIndex } from './json-index.js';
import type { Plan } from './planner.js';
import { selectorToJson } from './selector.js';
import { sortToJson } from './sort.js';
import { selectorHints } from './selector-hints.js';
import { textIndexCandidates } from './text-explain.js';
import { isPartial, isUsable, namedBy, textExplain, textPlan } from './text-find.js';

/** How `_explain` writes the top of a range: CouchDB's `<MAX>`. */
const MAX = '<MAX>';

export async function explain(db: Database, request: FindRequest): Promise<JsonObject> {
  const text = await textPlan(db, request, () => planFind(db, request));
  if (text !== undefined) {
    // A text index's plan: the query and sort it runs (mango_cursor_text:explain).
    const { index, limit, tail } = textExplain(request, text);
    // The JSON planner's analysis, for the candidates and hints (it may not have run).
    const json = text.json ?? (await planFind(db, { ...request, allowFallback: true }));
    const selector = selectorToJson(request.selector);
    const candidates = await textIndexCandidates(db, request, {
      chosen: text.index,
      json,
      usable: (i) => isUsable(i, selector),
      partial: isPartial,
      named: namedBy(request.useIndex),
    });
    return JsonObject.from([
      ['dbname', db.name],
      ['index', index],
      ['partitioned', db.partitioned],
      ['selector', selectorToJson(request.selector)],
      ['opts', options(request)],
      ['limit', limit],
      ['skip', request.skip],
      ['fields', [...request.fields.names]],
      ['index_candidates', candidates],
      ['selector_hints', selectorHints(request, json)],
      ...tail,
    ]);
  }
  const planned: Plan = await planFind(db, request);
  const { index } = planned;
  const out = JsonObject.from([
    ['dbname', db.name],
    ['index', index === undefined ? null : index.kind === 'all_docs' ? ALL_DOCS_INDEX() : describeIndex(index.index)],
    ['partitioned', db.partitioned],
    ['selector', selectorToJson(request.selector)],
    ['opts', options(request)],
    ['limit', request.limit],
    ['skip', request.skip],
    ['fields', [...request.fields.names]],
    [
      'index_candidates',
      planned.candidates.map((c) =>
        JsonObject.from([
          ['index', c.index.kind === 'all_docs' ? ALL_DOCS_INDEX() : describeIndex(c.index.index)],
          [
            'analysis',
            JsonObject.from([
              ['usable', c.usable],
              ['reasons', c.reasons.map((name) => JsonObject.from([['name', name]]))],
              ['ranking', c.ranking],
              ['covering', c.covering],
            ]),
          ],
        ]),
      ),
    ],
    ['selector_hints', selectorHints(request, planned)],
  ]);
  if (index === undefined) return out;
  const notRun = planned.empty;
  let startKey: JsonValue = null;
  let endKey: JsonValue = null;
  if (!notRun) {
    if (index.kind === 'all_docs') {
      const range = planned.ranges[0];
      startKey = typeof range?.low?.value === 'string' ? range.low.value : null;
      endKey = typeof range?.high?.value === 'string' ? range.high.value : MAX;
    } else {
      const { start, end } = indexKeys(planned.ranges);
      startKey = start;
      endKey = [...end, MAX];
    }
    if (planned.descending) [startKey, endKey] = [endKey, startKey];
  }
  const quorum = request.r >= 2;
  out.set(
    'mrargs',
    JsonObject.from([
      ['include_docs', !planned.covering && !quorum],
      ['view_type', 'map'],
      ['reduce', false],
      ['partition', request.partition === '' ? null : request.partition],
      ['start_key', startKey],
      ['end_key', endKey],
      ['direction', planned.descending ? 'rev' : 'fwd'],
      ['stable', request.stable || request.stale === 'ok'],
      ['update', request.update && request.stale !== 'ok'],
      ['conflicts', request.conflicts ? true : 'undefined'],
    ]),
  );
  out.set('covering', planned.covering);
  return out;
}

/** The request's options as CouchDB echoes them (`opts`). */
function options(request: FindRequest): JsonObject {
  return JsonObject.from([
    ['use_index', [...request.useIndex]],
    ['bookmark', request.bookmark ?? 'nil'],
    ['limit', request.limit],
    ['skip', request.skip],
    ['sort', sortToJson(request.sort)],
    ['fields', [...request.fields.names]],
    ['partition', request.partition],
    ['r', request.r],
    ['conflicts', request.conflicts],
    ['stale', request.stale],
    ['update', request.update],
    ['stable', request.stable],
    ['execution_stats', request.executionStats],
    ['allow_fallback', request.allowFallback],
  ]);
}
