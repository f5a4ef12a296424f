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
  | 'unfavored_type'
  | 'scope_mismatch';

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
  /** The selector's range fields (`_explain`'s `selector_hints`). */
  indexableFields: string[];
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

/** `otherScope`: the indexes of the other scope (partitioned vs global), listed by `_explain` only. */
export function plan(request: PlanRequest, indexes: readonly JsonIndex[], otherScope: readonly JsonIndex[] = []): Plan {
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
  // Only `_explain` reads the candidates: worked out when first asked for, not on every `_find`.
  let listed: Candidate[] | undefined;
  const candidateList = (): Candidate[] => {
    listed ??= candidatesOf(indexes, chosen, {
      named,
      usable,
      allDocsUsable,
      outOfScope: otherScope.filter((index) => index.partialFilter === undefined),
      outOfScopePartial: otherScope.filter((index) => index.partialFilter !== undefined),
      ranges,
      required,
      constant,
      sort,
      text,
      request,
    });
    return listed;
  };
  if (chosen === undefined) {
    return {
      ranges: [],
      empty: false,
      descending,
      covering: false,
      warnings,
      get candidates() {
        return candidateList();
      },
      get indexableFields() {
        return [...ranges.keys()];
      },
    };
  }
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
    get candidates() {
      return candidateList();
    },
    get indexableFields() {
      return [...ranges.keys()];
    },
  };
}

interface Analysis {
  named: (index: JsonIndex) => boolean;
  usable: readonly JsonIndex[];
  allDocsUsable: boolean;
  /** JSON indexes of the other scope (partitioned vs global): without and with a partial filter. */
  outOfScope: readonly JsonIndex[];
  outOfScopePartial: readonly JsonIndex[];
  ranges: ReadonlyMap<string, FieldRange>;
  required: ReadonlySet<string>;
  constant: ReadonlySet<string>;
  sort: readonly SortField[];
  text: boolean;
  request: PlanRequest;
}

/**
 * Each index but the chosen one, and why, as CouchDB 3.5's mango_cursor:extract_candidate_indexes
 * sorts them out: partial (`is_partial`), of the other scope (`scope_mismatch`), not usable (the
 * usability reason), usable but left out by `use_index` (`excluded_by_user`), usable but of
 * another cursor type (`_all_docs` beside a JSON index: `unfavored_type`), and the usable JSON
 * indexes not chosen, ranked by `best`'s order (`less_overlap`, `too_many_fields`,
 * `alphabetically_comes_after`). Each kind ranks one below the last non-empty kind before it;
 * the list is in descending (design doc, name) order with `_all_docs` last (CouchDB folds a map
 * of index records into a list, which reverses their term order).
 */
function candidatesOf(indexes: readonly JsonIndex[], chosen: ChosenIndex | undefined, a: Analysis): Candidate[] {
  const usable = new Set(a.usable);
  const allDocsUsable = a.allDocsUsable;
  // use_index narrows the usable ones when it names any of them (else every usable one stays).
  const named = a.usable.filter(a.named);
  const filtered = new Set(a.request.useIndex.length > 0 && named.length > 0 ? named : a.usable);
  const allDocsFiltered = allDocsUsable && (a.request.useIndex.length === 0 || named.length === 0);
  // The cursor type chosen: JSON indexes when any is left, else `_all_docs`.
  const ofType = [...filtered];
  const ranked: JsonIndex[] = [];
  const left = [...ofType];
  while (left.length > 0) {
    const next = best(left, a.ranges)!;
    ranked.push(next);
    left.splice(left.indexOf(next), 1);
  }
  const partial = indexes.filter((index) => index.partialFilter !== undefined).concat(a.outOfScopePartial);
  const outOfScope = a.outOfScope;
  const notUsable = indexes.filter((index) => index.partialFilter === undefined && !usable.has(index));
  const allDocsNotUsable = !allDocsUsable;
  const excluded = a.usable.filter((index) => !filtered.has(index));
  const allDocsExcluded = allDocsUsable && !allDocsFiltered;
  const allDocsUnfavored = allDocsFiltered && ofType.length > 0;

  const unfavoredRank = Math.max(1, ranked.length);
  const excludedRank = unfavoredRank + (allDocsUnfavored ? 1 : 0);
  const notUsableRank = excludedRank + (excluded.length > 0 || allDocsExcluded ? 1 : 0);
  const outOfScopeRank = notUsableRank + (notUsable.length > 0 || allDocsNotUsable ? 1 : 0);
  const partialRank = outOfScopeRank + (outOfScope.length > 0 ? 1 : 0);

  const chosenIndex = chosen?.kind === 'json' ? chosen.index : undefined;
  const chosenWidth = chosenIndex?.fields.length ?? 0;
  const out: { index: JsonIndex | undefined; candidate: Candidate }[] = [];
  const byIndex = new Map<JsonIndex, Candidate>();
  const json = (index: JsonIndex, isUsable: boolean, reason: CandidateReason, ranking: number) => {
    // An index in two kinds (a partial one `use_index` names) is one entry, combined as
    // CouchDB's enhance_candidates does: usable only if both, the first reason, rankings added.
    const seen = byIndex.get(index);
    if (seen !== undefined) {
      seen.usable = seen.usable && isUsable;
      seen.ranking += ranking;
      return;
    }
    const candidate: Candidate = {
      index: { kind: 'json', index },
      usable: isUsable,
      reasons: [reason],
      ranking,
      // A candidate's covering looks at the requested fields alone (mango_cursor), the chosen
      // index's also at the selector's (mango_cursor_view's required fields).
      covering: coversFields(index, a.request.fields),
    };
    byIndex.set(index, candidate);
    out.push({ index, candidate });
  };
  for (const index of partial) json(index, false, 'is_partial', partialRank);
  for (const index of outOfScope) json(index, false, 'scope_mismatch', outOfScopeRank);
  for (const index of notUsable) json(index, false, notUsableReason(index, a), notUsableRank);
  for (const index of excluded) json(index, true, 'excluded_by_user', excludedRank);
  const fields = rankedFields(a.ranges);
  for (const [position, index] of ranked.entries()) {
    if (chosenIndex === undefined) break;
    if (index === chosenIndex) {
      byIndex.delete(index); // the chosen one is no candidate, whatever else it was
      continue;
    }
    const reason: CandidateReason =
      missedFields(index, fields) > missedFields(chosenIndex, fields)
        ? 'less_overlap'
        : index.fields.length > chosenWidth
          ? 'too_many_fields'
          : 'alphabetically_comes_after';
    json(index, true, reason, position);
  }
  if (chosen?.kind !== 'all_docs') {
    const [isUsable, reason, ranking]: [boolean, CandidateReason, number] = allDocsNotUsable
      ? [false, 'sort_order_mismatch', notUsableRank]
      : allDocsExcluded
        ? [true, 'excluded_by_user', excludedRank]
        : [true, 'unfavored_type', unfavoredRank];
    out.push({
      index: undefined,
      candidate: { index: { kind: 'all_docs' }, usable: isUsable, reasons: [reason], ranking, covering: null },
    });
  }
  // Descending (design doc, name), `_all_docs` (whose record has no design doc) last.
  const listed = out.filter((entry) => entry.index === undefined || byIndex.has(entry.index));
  listed.sort((x, y) => {
    if (x.index === undefined || y.index === undefined) return x.index === undefined ? 1 : -1;
    return (
      Buffer.compare(Buffer.from(y.index.ddoc), Buffer.from(x.index.ddoc)) ||
      Buffer.compare(Buffer.from(y.index.name), Buffer.from(x.index.name))
    );
  });
  return listed.map((entry) => entry.candidate);
}

/** Why a JSON index cannot serve the query (mango_idx_view's usability reasons). */
function notUsableReason(index: JsonIndex, a: Analysis): CandidateReason {
  if (a.text) return 'needs_text_search';
  const columnsMet = index.fields.every(
    (f) => f.name === '_id' || f.name === '_rev' || a.required.has(f.name) || a.sort.some((s) => s.field === f.name),
  );
  return columnsMet ? 'sort_order_mismatch' : 'field_mismatch';
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

/**
 * Every field name a selector's conditions name (the arguments of `$elemMatch` and friends are
 * relative), in the order they first appear (mango_selector:fields).
 */
export function selectorFields(selector: Selector, out = new Set<string>()): Set<string> {
  switch (selector.kind) {
    case 'field':
      out.add(selector.field);
      break;
    case 'text':
      out.add('$default');
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
  if (!coversFields(index, fields)) return false;
  const columns = new Set(['_id', ...index.fields.map((f) => f.name)]);
  return [...selectorFields(selector)].every((f) => columns.has(f));
}

/** The index holds these fields (`_id` and its columns); none asked for (whole documents): no. */
function coversFields(index: JsonIndex, fields: readonly string[]): boolean {
  if (fields.length === 0) return false;
  const columns = new Set(['_id', ...index.fields.map((f) => f.name)]);
  return fields.every((f) => columns.has(f));
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
  // An `$eq`'s one bound is both ends: no collation call (ICU's) to find that it is not empty.
  if (next.low !== undefined && next.high !== undefined && next.low !== next.high) {
    const c = collate(next.low.value, next.high.value);
    if (c > 0 || (c === 0 && !(next.low.inclusive && next.high.inclusive))) next.empty = true;
  }
  return next;
}
