/**
 * `_explain`'s `selector_hints` (mango_cursor:extract_selector_hints): for each kind of index
 * this server has (JSON, text, nouveau), the selector's fields such an index could serve and the
 * others. CouchDB keeps each list in an Erlang set, so the fields come out in that set's order
 * (erlang-set.ts), not sorted.
 */
import { JsonObject } from '../json/index.js';
import { ErlangSet } from './erlang-set.js';
import type { FindRequest } from './find-request.js';
import { type Plan, selectorFields } from './planner.js';
import { selectorToJson } from './selector.js';
import { indexableFields } from './text-query.js';

export function selectorHints(request: FindRequest, planned: Plan): JsonObject[] {
  // A text index's: its query's fields, their types cut off as CouchDB cuts them.
  const textIndexable = indexableFields(selectorToJson(request.selector)).map((f) => f.split(':')[0]!);
  // The selector's fields; `$text` is a condition on `$default` (mango_selector:fields).
  const all = ErlangSet.from(selectorFields(request.selector));
  const hint = (type: string, indexable: ErlangSet) =>
    JsonObject.from([
      ['type', type],
      ['indexable_fields', indexable.toList()],
      ['unindexable_fields', all.subtract(indexable).toList()],
    ]);
  // mango_idx_view:indexable_fields: lists:usort of the range fields (bytewise, as Erlang sorts binaries).
  const json = [...planned.indexableFields].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const text = ErlangSet.from(textIndexable);
  // A nouveau index reads the same query (mango_idx_nouveau:indexable_fields).
  return [hint('json', ErlangSet.from(json)), hint('text', text), hint('nouveau', text)];
}
