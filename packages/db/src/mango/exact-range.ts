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
 * CouchDB does, whose `execution_stats` count those rows). With `strictEnd`, a `$lt` on the
 * range's last column is let through too: a row then satisfies the selector if its key is below
 * that value's (find.ts compares the row key's bytes), which holds for no skipped row counted
 * blind, so only a row read may be judged so.
 */
import { collate } from '../collation/index.js';
import type { JsonValue } from '../json/index.js';
import type { JsonIndex } from './json-index.js';
import type { FieldRange } from './planner.js';
import type { Selector } from './selector.js';

export function rangeIsExact(
  selector: Selector,
  index: JsonIndex,
  ranges: readonly FieldRange[],
  strictEnd = false,
): boolean {
  const columns = index.fields.slice(0, ranges.length).map((field) => field.name);
  if (!conditionsWithin(selector, columns, strictEnd)) return false;
  return ranges.every((range, i) => {
    if (range.empty) return false;
    if (range.low?.inclusive === false) return false;
    if (i === ranges.length - 1) {
      return range.high?.inclusive !== false || (strictEnd && exactArgument(range.high.value));
    }
    if (range.high?.inclusive === false) return false;
    return range.low !== undefined && range.high !== undefined && collate(range.low.value, range.high.value) === 0;
  });
}

function conditionsWithin(selector: Selector, columns: readonly string[], strictEnd: boolean): boolean {
  switch (selector.kind) {
    case 'empty':
      return true;
    case 'and':
      return selector.items.every((item) => conditionsWithin(item, columns, strictEnd));
    case 'field': {
      const { field, negated, condition } = selector;
      if (negated || field === '_id' || !columns.includes(field)) return false;
      return (
        (condition.op === '$eq' ||
          condition.op === '$gte' ||
          condition.op === '$lte' ||
          (strictEnd && condition.op === '$lt')) &&
        exactArgument(condition.arg)
      );
    }
    default:
      return false;
  }
}

function exactArgument(arg: JsonValue): boolean {
  return typeof arg === 'string' || typeof arg === 'boolean' || arg === null;
}
