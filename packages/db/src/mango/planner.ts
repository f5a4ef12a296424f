/**
 * Which index serves a Mango query, and the range of it to read: CouchDB 3.5's choice
 * (mango_cursor, mango_idx_view), step by step:
 *
 * 1. Candidates: `_all_docs` and every JSON index without a partial filter selector, plus those
 *    `use_index` names (partial or not).
 * 2. Usable: a JSON index whose columns the selector all requires (sort columns and `_id`/`_rev`
 *    aside), with no `$text` in the selector, that can give the sort; `_all_docs` when there is no
 *    sort, or a sort on `_id` with a range condition on `_id`.
 * 3. Choice: any usable JSON index beats `_all_docs`; among them the one whose leading columns
 *    cover most of the selector's range fields, then the fewest columns, then the smallest
 *    (design doc id, name) in bytes. `use_index` wins when usable.
 * 4. Range: per leading column the intersection of its range conditions, as start/end keys.
 */
import { CouchError } from '../errors.js';
import type { JsonValue } from '../json/index.js';
import { collate } from '../collation/index.js';
import type { JsonIndex } from './json-index.js';
import type { FieldSelector, Selector } from './selector.js';
import type { SortField } from './sort.js';

/** One bound of a range: its value, and whether the value itself is in. */
interface Bound {
  value: JsonValue;
  inclusive: boolean;
}

/** A field's range: open ends are undefined; `empty` when its conditions contradict. */
export interface FieldRange {
  low?: Bound;
  high?: Bound;
  empty: boolean;
}

export type ChosenIndex = { kind: 'all_docs' } | { kind: 'json'; index: JsonIndex };

/** Why `_explain` says an index was not the one (CouchDB's reason names). */
export type CandidateReason =
  | 'field_mismatch'
  | 'sort_order_mismatch'
  | 'needs_text_search'
  | 'is_partial'
  | 'excluded_by_user'
  | 'less_overlap'
  | 'too_many_fields'
  | 'alphabetically_comes_after'
  | 'unfavored_type';

export interface Candidate {
  index: ChosenIndex;
  usable: boolean;
  reasons: CandidateReason[];
  /** Position among the usable indexes (1: the best), 0 when not usable. */
  ranking: number;
  covering: boolean | null;
}

export interface Plan {
  /** undefined: no index can give the sort (400 `no_usable_index`; `_explain` shows `index: null`). */
  index?: ChosenIndex;
  /** Key ranges of the index's leading columns (for `_all_docs`: of `_id`). */
  ranges: FieldRange[];
  /** Some range is empty on the chosen index's first column: the query is not run. */
  empty: boolean;
  descending: boolean;
  /** The index holds every field the query reads: no document is read. */
  covering: boolean;
  warnings: string[];
  /** Every index but the chosen one, with why it was not chosen (`_explain`'s `index_candidates`). */
  candidates: Candidate[];
  /** The selector's range fields and the others (`_explain`'s `selector_hints`). */
  indexableFields: string[];
  unindexableFields: string[];
}

export interface PlanRequest {
  selector: Selector;
  sort: readonly SortField[];
  /** `[ddoc]` or `[ddoc, name]`, the ddoc without `_design/`; empty: none. */
  useIndex: readonly string[];
  allowFallback: boolean;
  /** The `fields` projection (empty: whole documents). */
  fields: readonly string[];
}

const MANGO_ALL_DOCS = 'No matching index found, create an index to optimize query time.';

export function plan(request: PlanRequest, indexes: readonly JsonIndex[]): Plan {
  const { selector, sort, useIndex } = request;
  const required = requiredFields(selector);
  const constant = constantFields(selector);
  const ranges = rangeFields(selector);
  const text = hasText(selector);
  const named = (index: JsonIndex): boolean =>
    useIndex.length > 0 &&
    index.ddoc === `_design/${useIndex[0]}` &&
    (useIndex.length === 1 || index.name === useIndex[1]);
  const candidates = indexes.filter((index) => index.partialFilter === undefined || named(index));
  const usable = candidates.filter((index) => !text && jsonUsable(index, required, constant, sort));
  const allDocsUsable = sort.length === 0 || (sort.length === 1 && sort[0]!.field === '_id' && ranges.has('_id'));
  const descending = sort[0]?.direction === 'desc';
  const warnings: string[] = [];

  let chosen: ChosenIndex | undefined;
  if (useIndex.length > 0) {
    const mine = usable.filter(named);
    if (mine.length > 0) chosen = { kind: 'json', index: best(mine, ranges)! };
    else {
      const what = useIndex.length === 1 ? `_design/${useIndex[0]}` : `_design/${useIndex[0]}, ${useIndex[1]}`;
      if (!request.allowFallback) {
        throw new CouchError(
          'invalid_index',
          `${what} specified by \`use_index\` could not be found or it is not suitable.`,
          400,
        );
      }
      warnings.push(
        useIndex.length === 1
          ? `${what} was not used because it does not contain a valid index for this query.`
          : `${what} was not used because it is not a valid index for this query.`,
      );
    }
  }
  if (chosen === undefined) {
    const pick = best(usable, ranges);
    if (pick !== undefined) chosen = { kind: 'json', index: pick };
    else if (allDocsUsable) {
      if (!request.allowFallback && useIndex.length === 0) {
        throw new CouchError('invalid_index', 'You must specify an index with the `use_index` parameter.', 400);
      }
      chosen = { kind: 'all_docs' };
    }
  }
  const analysis = {
    candidates: candidatesOf(indexes, chosen, { named, usable, ranges, required, constant, sort, text, request }),
    indexableFields: [...ranges.keys()].sort(),
    unindexableFields: [...selectorFields(selector)].filter((f) => !ranges.has(f)).sort(),
  };
  if (chosen === undefined) return { ranges: [], empty: false, descending, covering: false, warnings, ...analysis };
  if (chosen.kind === 'all_docs') warnings.push(MANGO_ALL_DOCS);
  const columns = chosen.kind === 'all_docs' ? ['_id'] : chosen.index.fields.map((f) => f.name);
  const prefix: FieldRange[] = [];
  for (const column of columns) {
    const range = ranges.get(column);
    if (range === undefined) break;
    prefix.push(range);
  }
  const emptyField = [...ranges.values()].some((range) => range.empty);
  return {
    index: chosen,
    ranges: prefix,
    empty: emptyField && prefix[0]?.empty === true,
    descending,
    covering: chosen.kind === 'json' && covers(chosen.index, request.fields, selector),
    warnings,
    ...analysis,
  };
}

interface Analysis {
  named: (index: JsonIndex) => boolean;
  usable: readonly JsonIndex[];
  ranges: ReadonlyMap<string, FieldRange>;
  required: ReadonlySet<string>;
  constant: ReadonlySet<string>;
  sort: readonly SortField[];
  text: boolean;
  request: PlanRequest;
}

/** Each index but the chosen one, and why (the ranking is by `best`'s order). */
function candidatesOf(indexes: readonly JsonIndex[], chosen: ChosenIndex | undefined, a: Analysis): Candidate[] {
  const ranked: JsonIndex[] = [];
  const left = [...a.usable];
  while (left.length > 0) {
    const next = best(left, a.ranges)!;
    ranked.push(next);
    left.splice(left.indexOf(next), 1);
  }
  const out: Candidate[] = [];
  const chosenIndex = chosen?.kind === 'json' ? chosen.index : undefined;
  for (const index of indexes) {
    if (index === chosenIndex) continue;
    const reasons: CandidateReason[] = [];
    const rank = ranked.indexOf(index);
    if (a.request.useIndex.length > 0 && !a.named(index)) reasons.push('excluded_by_user');
    if (index.partialFilter !== undefined && !a.named(index)) reasons.push('is_partial');
    if (a.text) reasons.push('needs_text_search');
    if (rank < 0) {
      const columnsMet = index.fields.every(
        (f) =>
          f.name === '_id' || f.name === '_rev' || a.required.has(f.name) || a.sort.some((s) => s.field === f.name),
      );
      reasons.push(columnsMet ? 'sort_order_mismatch' : 'field_mismatch');
    } else if (chosenIndex !== undefined) {
      const fields = rankedFields(a.ranges);
      if (missedFields(index, fields) > missedFields(chosenIndex, fields)) reasons.push('less_overlap');
      else if (index.fields.length > chosenIndex.fields.length) reasons.push('too_many_fields');
      else reasons.push('alphabetically_comes_after');
    }
    out.push({
      index: { kind: 'json', index },
      usable: rank >= 0,
      reasons,
      ranking: rank < 0 ? 0 : rank + 1,
      covering: rank < 0 ? null : covers(index, a.request.fields, a.request.selector),
    });
  }
  if (chosen?.kind !== 'all_docs') {
    out.push({
      index: { kind: 'all_docs' },
      usable: a.sort.length === 0,
      reasons: [a.usable.length > 0 ? 'unfavored_type' : 'sort_order_mismatch'],
      ranking: a.sort.length === 0 ? ranked.length + 1 : 0,
      covering: null,
    });
  }
  return out;
}

/**
 * Among usable indexes, the one CouchDB ranks first: the fewest range fields left out of its
 * leading columns, then the fewest columns, then the smallest (ddoc, name) in bytes. A
 * contradictory range makes its field the only one that counts.
 */
function best(usable: readonly JsonIndex[], ranges: ReadonlyMap<string, FieldRange>): JsonIndex | undefined {
  const fields = rankedFields(ranges);
  let winner: JsonIndex | undefined;
  for (const index of usable) if (winner === undefined || compareRank(index, winner, fields) < 0) winner = index;
  return winner;
}

/** The range fields that rank indexes (a contradictory one alone, when there is one). */
function rankedFields(ranges: ReadonlyMap<string, FieldRange>): string[] {
  const emptyOne = [...ranges.entries()].find(([, range]) => range.empty)?.[0];
  return emptyOne === undefined ? [...ranges.keys()] : [emptyOne];
}

/** Range fields an index's leading columns leave out (fewer is better). */
function missedFields(index: JsonIndex, fields: readonly string[]): number {
  let prefix = 0;
  for (const column of index.fields) {
    if (!fields.includes(column.name)) break;
    prefix++;
  }
  return fields.length - prefix;
}

/** Negative when `a` ranks before `b`. */
function compareRank(a: JsonIndex, b: JsonIndex, fields: readonly string[]): number {
  return missedFields(a, fields) - missedFields(b, fields) || a.fields.length - b.fields.length || byBytes(a, b);
}

function byBytes(a: JsonIndex, b: JsonIndex): number {
  return (
    Buffer.compare(Buffer.from(a.ddoc), Buffer.from(b.ddoc)) || Buffer.compare(Buffer.from(a.name), Buffer.from(b.name))
  );
}

function jsonUsable(
  index: JsonIndex,
  required: ReadonlySet<string>,
  constant: ReadonlySet<string>,
  sort: readonly SortField[],
): boolean {
  const sorted = new Set(sort.map((s) => s.field));
  for (const column of index.fields) {
    if (column.name === '_id' || column.name === '_rev' || sorted.has(column.name)) continue;
    if (!required.has(column.name)) return false;
  }
  if (sort.length === 0) return true;
  // Leading columns the selector fixes to one value are skipped; the sort is a prefix of the rest.
  let at = 0;
  while (at < index.fields.length && constant.has(index.fields[at]!.name) && !sorted.has(index.fields[at]!.name)) at++;
  return sort.every((s, i) => index.fields[at + i]?.name === s.field);
}

/** The field conditions reachable through `$and`s from the top. */
function* andReachable(selector: Selector): Generator<FieldSelector> {
  if (selector.kind === 'field') yield selector;
  else if (selector.kind === 'and') for (const item of selector.items) yield* andReachable(item);
}

/**
 * Fields the selector requires to exist: any condition but `$exists: false`, through `$and`s, or
 * through an `$or` all of whose branches require it.
 */
function requiredFields(selector: Selector): Set<string> {
  switch (selector.kind) {
    case 'field': {
      const { condition, negated } = selector;
      const missingOk = condition.op === '$exists' && condition.arg === false && !negated;
      return new Set(missingOk ? [] : [selector.field]);
    }
    case 'and': {
      const out = new Set<string>();
      for (const item of selector.items) for (const field of requiredFields(item)) out.add(field);
      return out;
    }
    case 'or': {
      const [first, ...rest] = selector.items.map(requiredFields);
      if (first === undefined) return new Set();
      return new Set([...first].filter((field) => rest.every((set) => set.has(field))));
    }
    default:
      return new Set();
  }
}

/** Fields an `$eq` reachable through `$and`s fixes to one value. */
function constantFields(selector: Selector): Set<string> {
  const out = new Set<string>();
  for (const f of andReachable(selector)) if (!f.negated && f.condition.op === '$eq') out.add(f.field);
  return out;
}

function hasText(selector: Selector): boolean {
  switch (selector.kind) {
    case 'text':
      return true;
    case 'and':
    case 'or':
      return selector.items.some(hasText);
    case 'not':
      return hasText(selector.item);
    default:
      return false;
  }
}

/** Every field name a selector's conditions name (the arguments of `$elemMatch` and friends are relative). */
function selectorFields(selector: Selector, out = new Set<string>()): Set<string> {
  switch (selector.kind) {
    case 'field':
      out.add(selector.field);
      break;
    case 'and':
    case 'or':
      for (const item of selector.items) selectorFields(item, out);
      break;
    case 'not':
      selectorFields(selector.item, out);
      break;
  }
  return out;
}

function covers(index: JsonIndex, fields: readonly string[], selector: Selector): boolean {
  if (fields.length === 0) return false;
  const columns = new Set(['_id', ...index.fields.map((f) => f.name)]);
  return fields.every((f) => columns.has(f)) && [...selectorFields(selector)].every((f) => columns.has(f));
}

/**
 * The range of each indexable field: `$lt $lte $eq $gt $gte $beginsWith $exists` reachable
 * through `$and`s, intersected in the view collation.
 */
export function rangeFields(selector: Selector): Map<string, FieldRange> {
  const out = new Map<string, FieldRange>();
  for (const f of andReachable(selector)) {
    if (f.negated) continue;
    const { condition } = f;
    let low: Bound | undefined;
    let high: Bound | undefined;
    switch (condition.op) {
      case '$eq':
        low = high = { value: condition.arg, inclusive: true };
        break;
      case '$gt':
      case '$gte':
        low = { value: condition.arg, inclusive: condition.op === '$gte' };
        break;
      case '$lt':
      case '$lte':
        high = { value: condition.arg, inclusive: condition.op === '$lte' };
        break;
      case '$beginsWith':
        low = { value: condition.arg, inclusive: true };
        high = { value: `${condition.arg}\uffff`, inclusive: true };
        break;
      case '$exists':
        break;
      default:
        continue;
    }
    const range = out.get(f.field) ?? { empty: false };
    out.set(f.field, intersect(range, low, high));
  }
  return out;
}

function intersect(range: FieldRange, low: Bound | undefined, high: Bound | undefined): FieldRange {
  const next: FieldRange = { ...range };
  if (low !== undefined) {
    const c = next.low === undefined ? 1 : collate(low.value, next.low.value);
    if (c > 0 || (c === 0 && !low.inclusive)) next.low = low;
  }
  if (high !== undefined) {
    const c = next.high === undefined ? -1 : collate(high.value, next.high.value);
    if (c < 0 || (c === 0 && !high.inclusive)) next.high = high;
  }
  if (next.low !== undefined && next.high !== undefined) {
    const c = collate(next.low.value, next.high.value);
    if (c > 0 || (c === 0 && !(next.low.inclusive && next.high.inclusive))) next.empty = true;
  }
  return next;
}
