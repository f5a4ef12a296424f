/**
 * `_explain`'s `selector_hints` (mango_cursor:extract_selector_hints): for each kind of index
 * this server has (JSON, text, nouveau), the selector's fields such an index could serve and the
 * others.
 */
import { JsonObject } from '../json/index.js';
import type { FindRequest } from './find-request.js';
import type { Plan } from './planner.js';
import { selectorToJson } from './selector.js';
import { indexableFields } from './text-query.js';

export function selectorHints(request: FindRequest, planned: Plan): JsonObject[] {
  // A text index's: its query's fields, their types cut off as CouchDB cuts them.
  const textIndexable = new Set(indexableFields(selectorToJson(request.selector)).map((f) => f.split(':')[0]!));
  // The selector's fields; `$text` is a condition on `$default` (mango_selector:fields).
  const all = new Set([...planned.indexableFields, ...planned.unindexableFields]);
  if (textIndexable.has('$default')) all.add('$default');
  const hint = (type: string, indexable: ReadonlySet<string>) =>
    JsonObject.from([
      ['type', type],
      ['indexable_fields', [...indexable].sort()],
      ['unindexable_fields', [...all].filter((f) => !indexable.has(f)).sort()],
    ]);
  // A nouveau index reads the same query (mango_idx_nouveau:indexable_fields).
  return [hint('json', new Set(planned.indexableFields)), hint('text', textIndexable), hint('nouveau', textIndexable)];
}
