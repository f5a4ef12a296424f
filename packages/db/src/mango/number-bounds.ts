/**
 * The number comparisons of a selector that every match needs (`NumberBound`s), for a scan without
 * an index to hand to storage: a document whose member fails one cannot match, so the engine may
 * pass it over unread (SQLite judges it in the statement). Only what is certain is given: the
 * conditions of the selector's top-level conjunction on a top-level member with a plain name,
 * `$eq`/`$lt`/`$lte`/`$gt`/`$gte` of a number below 2^53 in size, not negated. A number collates
 * with a number by value, and an integer member compares with such a number alike whether exactly
 * or as a double (`NumberBound`).
 */
import type { NumberBound } from '../storage/records.js';
import type { ComparisonOp, Selector } from './selector.js';

const OPS: Partial<Record<ComparisonOp, NumberBound['op']>> = {
  $eq: '=',
  $lt: '<',
  $lte: '<=',
  $gt: '>',
  $gte: '>=',
};

/** A member name storage can write into a JSON path as it is (and no `_` member: not in the body). */
const PLAIN_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

export function numberBounds(selector: Selector): NumberBound[] {
  const out: NumberBound[] = [];
  collect(selector, out);
  return out;
}

function collect(selector: Selector, out: NumberBound[]): void {
  if (selector.kind === 'and') {
    for (const item of selector.items) collect(item, out);
    return;
  }
  if (selector.kind !== 'field' || selector.negated) return;
  const member = selector.path?.length === 1 ? selector.path[0] : undefined;
  const { condition } = selector;
  const op = OPS[condition.op as ComparisonOp];
  if (member === undefined || op === undefined || !PLAIN_NAME.test(member)) return;
  const value = condition.arg;
  if (typeof value === 'number' && Math.abs(value) < 2 ** 53) out.push({ member, op, value });
}
