import { collate, collateRows } from '../../collation/index.js';

/**
 * CouchDB 3.5's ranking builtins (couch_query_servers builtin_rank_n, builtin_first_last):
 *
 * - `_top_N` / `_bottom_N` (N from 1 to 100): the N highest / lowest values in view collation,
 *   highest / lowest first. Lists are merged with `lists:umerge`, so values that collate equal
 *   count once (the one met first stays).
 * - `_first` / `_last`: the value of the row with the lowest / highest (key, doc id), keys in
 *   view collation and ids by their bytes (couch_ejson_compare:less_json_ids), whatever the
 *   query's direction. The stored reduction is `[key, id, value]` (CouchDB's `{K, Id, V}`);
 *   a query shows only the value.
 */

/** `_top_N` and `_bottom_N` exactly as CouchDB takes them: digits after the prefix, 1 to 100. */
const RANK = /^_(top|bottom)_(\d+)$/;

export interface RankSpec {
  top: boolean;
  n: number;
}

/** The rank builtin a reduce source names, or undefined (also for an N out of range). */
export function rankSpec(source: string): RankSpec | undefined {
  const match = RANK.exec(source);
  if (match === null) return undefined;
  const n = Number(match[2]);
  return n >= 1 && n <= 100 ? { top: match[1] === 'top', n } : undefined;
}

/** Whether a source looks like a rank builtin (valid or not): its own prefix, never `_sum`'s etc. */
export function looksLikeRank(source: string): boolean {
  return source.startsWith('_top_') || source.startsWith('_bottom_');
}

function rankOrder(top: boolean): (a: unknown, b: unknown) => number {
  return top ? (a, b) => collate(b, a) : collate;
}

/** lists:umerge(Fun, Acc, More): both ordered and without equals; an equal in `more` is dropped. */
function umerge(
  acc: readonly unknown[],
  more: readonly unknown[],
  order: (a: unknown, b: unknown) => number,
): unknown[] {
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < acc.length && j < more.length) {
    const c = order(acc[i], more[j]);
    if (c < 0) out.push(acc[i++]);
    else if (c > 0) out.push(more[j++]);
    else {
      out.push(acc[i++]);
      j++;
    }
  }
  while (i < acc.length) out.push(acc[i++]);
  while (j < more.length) out.push(more[j++]);
  return out;
}

export function rankReduce(spec: RankSpec, values: readonly unknown[]): unknown[] {
  const order = rankOrder(spec.top);
  let acc: unknown[] = [];
  for (const value of values) acc = umerge(acc, [value], order);
  return acc.slice(0, spec.n);
}

export function rankRereduce(spec: RankSpec, reductions: readonly unknown[]): unknown[] {
  const order = rankOrder(spec.top);
  const lists = reductions.filter(Array.isArray);
  if (lists.length === 0) return [];
  let acc: unknown[] = lists[0]!;
  for (let i = 1; i < lists.length; i++) acc = umerge(acc, lists[i]!, order);
  return acc.slice(0, spec.n);
}

/** The stored `_first`/`_last` reduction: CouchDB's `{K, Id, V}`, or `[]` for no rows. */
type Edge = [key: unknown, id: string, value: unknown];

const isEdge = (r: unknown): r is Edge => Array.isArray(r) && r.length === 3 && typeof r[1] === 'string';

/** `_first` keeps a row only when it is strictly lower; `_last` when it is not lower (ties: the later). */
function better(first: boolean, candidate: Edge, held: Edge): boolean {
  const lower = collateRows(candidate[0], candidate[1], held[0], held[1]) < 0;
  return first ? lower : !lower;
}

export function edgeReduce(first: boolean, kvs: ReadonlyArray<readonly [unknown, unknown]>): Edge | [] {
  let held: Edge | undefined;
  for (const [keyAndId, value] of kvs) {
    const [key, id] = keyAndId as readonly [unknown, string];
    const row: Edge = [key, id, value];
    if (held === undefined || better(first, row, held)) held = row;
  }
  return held ?? [];
}

export function edgeRereduce(first: boolean, reductions: readonly unknown[]): Edge | [] {
  let held: Edge | undefined;
  for (const r of reductions) {
    if (!isEdge(r)) continue;
    if (held === undefined || better(first, r, held)) held = r;
  }
  return held ?? [];
}

/** couch_query_servers:finalize: the value of the row kept; `[]` stays `[]`. */
export function edgeFinalize(reduction: unknown): unknown {
  return isEdge(reduction) ? reduction[2] : reduction;
}
