/**
 * Whether every row in a plan's range of a JSON index satisfies the whole selector, so that
 * rows a query skips can be counted from the index alone, without reading their documents (a
 * `skip` of 150 otherwise reads 150 documents only to drop them).
 *
 * Index keys encode in the collation the matcher compares with (`encodeKey`'s bytes have the
 * sign of `collate`), so a row inside inclusive bounds satisfies `$eq`, `$gte` and `$lte` on
 * its column. That holds when:
 * - the selector is only such conditions (through `$and`s), none negated, each on one of the
 *   range's columns (not `_id`, which the matcher compares in Erlang term order);
 * - every column but the last of the range is fixed to one value (a compound range is a box
 *   only when the columns before the last are equal);
 * - the arguments are strings, booleans or null: a number in a document may be more precise
 *   than the double its index key holds.
 * Strict bounds (`$gt`, `$lt`) are left to the matcher, as the range reads them inclusively (as
 * CouchDB does, whose `execution_stats` count those rows). Short of `exact`, a `$lt` on the
 * range's last column is let through as `belowEnd`: a row then satisfies the selector if its key
 * is below that value's (find.ts compares the row key's bytes), which holds for no skipped row
 * counted blind, so only a row read may be judged so.
 */
import { collate } from '../collation/index.js';
import type { JsonValue } from '../json/index.js';
import type { JsonIndex } from './json-index.js';
import type { FieldRange } from './planner.js';
import type { Selector } from './selector.js';

/**
 * Both answers in one walk of the selector: `exact` (every row of the range satisfies the
 * selector, so skipped rows can be counted blind) and `belowEnd` (the same up to a strict end on
 * the last column, judged from a read row's key). `exact` implies `belowEnd`.
 */
export function rangeExactness(
  selector: Selector,
  index: JsonIndex,
  ranges: readonly FieldRange[],
): { exact: boolean; belowEnd: boolean } {
  const no = { exact: false, belowEnd: false };
  const columns = index.fields.slice(0, ranges.length).map((field) => field.name);
  const conditions = conditionsWithin(selector, columns);
  if (conditions === 'outside') return no;
  let endInclusive = true;
  for (const [i, range] of ranges.entries()) {
    if (range.empty || range.low?.inclusive === false) return no;
    if (i === ranges.length - 1) {
      if (range.high?.inclusive === false) {
        if (!exactArgument(range.high.value)) return no;
        endInclusive = false;
      }
    } else if (
      range.high?.inclusive === false ||
      range.low === undefined ||
      range.high === undefined ||
      collate(range.low.value, range.high.value) !== 0
    ) {
      return no;
    }
  }
  return { exact: conditions === 'inclusive' && endInclusive, belowEnd: true };
}

/**
 * Whether the selector is only conditions on `columns` a range can be exact for: `inclusive`
 * (`$eq`, `$gte`, `$lte`), `strictEnd` when a `$lt` is among them too, else `outside`.
 */
function conditionsWithin(selector: Selector, columns: readonly string[]): 'inclusive' | 'strictEnd' | 'outside' {
  switch (selector.kind) {
    case 'empty':
      return 'inclusive';
    case 'and': {
      let out: 'inclusive' | 'strictEnd' = 'inclusive';
      for (const item of selector.items) {
        const each = conditionsWithin(item, columns);
        if (each === 'outside') return 'outside';
        if (each === 'strictEnd') out = each;
      }
      return out;
    }
    case 'field': {
      const { field, negated, condition } = selector;
      if (negated || field === '_id' || !columns.includes(field)) return 'outside';
      if (condition.op === '$eq' || condition.op === '$gte' || condition.op === '$lte') {
        return exactArgument(condition.arg) ? 'inclusive' : 'outside';
      }
      return condition.op === '$lt' && exactArgument(condition.arg) ? 'strictEnd' : 'outside';
    }
    default:
      return 'outside';
  }
}

function exactArgument(arg: JsonValue): boolean {
  return typeof arg === 'string' || typeof arg === 'boolean' || arg === null;
}
