/**
 * Document ids sort by raw UTF-8 bytes (= code points), as CouchDB's `_all_docs`: not ICU, and not
 * JavaScript's UTF-16 order, which puts astral characters before U+E000..U+FFFF.
 */
import type { IdRange } from '../storage/records.js';
import { compareCodePoints } from '../support/unicode.js';

export { compareCodePoints as compareIds };

/** Whether `id` is in `range` (its end included unless said otherwise). */
export function inIdRange(id: string, range: IdRange): boolean {
  const sign = range.descending === true ? -1 : 1;
  if (range.start !== undefined && sign * compareCodePoints(id, range.start) < 0) return false;
  if (range.end === undefined) return true;
  const past = sign * compareCodePoints(id, range.end);
  return range.inclusiveEnd === false ? past < 0 : past <= 0;
}
