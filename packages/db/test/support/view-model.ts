/**
 * An in-test model of CouchDB view answers, for property tests: map functions run here in plain
 * JS (emit collects rows), rows sorted by (key in CouchDB collation, doc id in raw order) with
 * the package's collation comparator, and queries answered by filtering and folding that list.
 *
 * Deliberately naive (linear scans, comparator calls) so that it shares nothing with the index
 * (byte encodings, B-tree, stored reductions) except the comparator itself, which is held to the
 * CouchDB fixture elsewhere.
 */
import { collate, collateRaw, collateRows, compareUtf8 } from '../../src/collation/index.js';

export interface ModelRow {
  id: string;
  key: unknown;
  value: unknown;
}

export type ReduceKind = 'none' | '_count' | '_sum' | '_stats' | 'js_sum' | 'js_count';

export type Grouping = 'none' | 'exact' | number;

/** A view query as the model understands it (a subset of the HTTP parameters). */
export interface ModelQuery {
  startkey?: unknown;
  endkey?: unknown;
  /** Tie-breaks among rows whose key equals startkey/endkey (ignored without that key). */
  startkeyDocid?: string;
  endkeyDocid?: string;
  keys?: unknown[];
  descending?: boolean;
  inclusiveEnd?: boolean;
  skip?: number;
  limit?: number;
  /** Only for views with a reduce: false = map rows. */
  reduce?: boolean;
  group?: Grouping;
}

export type ModelAnswer =
  | { kind: 'error'; status: number }
  | { kind: 'map'; totalRows: number; offset: number | null; rows: ModelRow[] }
  | { kind: 'reduce'; rows: { key: unknown; value: unknown }[] };

/** Runs a map function source over docs (JSON values), giving the rows in CouchDB order. */
export function mapRows(docs: readonly Record<string, unknown>[], mapSource: string, raw = false): ModelRow[] {
  const rows: ModelRow[] = [];
  let current = '';
  const emit = (key: unknown, value: unknown): void => {
    rows.push({
      id: current,
      key: key === undefined ? null : JSON.parse(JSON.stringify(key)),
      value: value === undefined ? null : JSON.parse(JSON.stringify(value)),
    });
  };
  const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);
  const fn = new Function('emit', 'sum', `return (${mapSource});`)(emit, sum) as (doc: unknown) => void;
  for (const doc of docs) {
    current = doc._id as string;
    const before = rows.length;
    try {
      fn(JSON.parse(JSON.stringify(doc)));
    } catch {
      rows.length = before; // a throwing map function drops that doc's rows
    }
  }
  // Rows equal in (key, id) (one doc, one key) by value in raw (Erlang term) order, as CouchDB
  // sorts a doc's emits; Array.prototype.sort is stable, so equal values stay in emit order.
  return rows.sort((a, b) => collateRows(a.key, a.id, b.key, b.id, raw) || collateRaw(a.value, b.value));
}

export function compareKeys(a: unknown, b: unknown, raw = false): number {
  return raw ? collateRaw(a, b) : collate(a, b);
}

/** The query answer the model expects from a view with these sorted rows. */
export function answer(rows: readonly ModelRow[], reduce: ReduceKind, q: ModelQuery, raw = false): ModelAnswer {
  const cmp = (a: unknown, b: unknown) => compareKeys(a, b, raw);
  const descending = q.descending ?? false;
  const inclusiveEnd = q.inclusiveEnd ?? true;
  const reducing = reduce !== 'none' && q.reduce !== false;
  const group: Grouping = reducing ? (q.group ?? 'none') : 'none';
  if (!reducing && q.group !== undefined && q.group !== 'none') return { kind: 'error', status: 400 };
  if (q.keys !== undefined && q.keys.length > 1 && reducing && group !== 'exact') return { kind: 'error', status: 400 };
  // A one-element keys list is a key= (CouchDB 3.3+).
  let { startkey, endkey, keys } = q;
  if (keys !== undefined && keys.length === 1) {
    startkey = endkey = keys[0];
    keys = undefined;
  }
  const sid = startkey !== undefined ? q.startkeyDocid : undefined;
  const eid = endkey !== undefined ? q.endkeyDocid : undefined;
  if (startkey !== undefined && endkey !== undefined && JSON.stringify(startkey) !== JSON.stringify(endkey)) {
    // (startkey, startkey_docid) must come before (endkey, endkey_docid) in scan order; a missing
    // doc id is the lowest or highest id, whichever keeps every row of that key.
    let c = cmp(startkey, endkey);
    if (c === 0) {
      if (!descending) c = sid === undefined ? -1 : eid === undefined ? -1 : compareUtf8(sid, eid) >= 0 ? 1 : -1;
      else c = sid === undefined ? 1 : eid === undefined ? 1 : compareUtf8(sid, eid) < 0 ? -1 : 1;
    }
    if ((!descending && c > 0) || (descending && c < 0)) return { kind: 'error', status: 400 };
  }
  /** Row vs a (key, docid?) bound: sign of row - bound; with no docid, 0 for every row of that key. */
  const vsBound = (r: ModelRow, key: unknown, id: string | undefined): number =>
    id === undefined ? cmp(r.key, key) : collateRows(r.key, r.id, key, id, raw);
  // Descending: one doc's rows under one key keep their ascending value order (CouchDB expands
  // them from one B-tree entry the same way in both directions).
  const ordered = descending ? reverseKeepingDuplicates(rows) : [...rows];
  let selected: ModelRow[];
  let before = 0;
  if (keys !== undefined) {
    const wanted = descending ? [...keys].reverse() : keys;
    selected = wanted.flatMap((k) => ordered.filter((r) => cmp(r.key, k) === 0));
  } else {
    const inRange = (r: ModelRow): boolean => {
      if (startkey !== undefined) {
        const c = vsBound(r, startkey, sid);
        if (descending ? c > 0 : c < 0) return false;
      }
      if (endkey !== undefined) {
        const c = vsBound(r, endkey, eid);
        if (descending ? c < 0 || (c === 0 && !inclusiveEnd) : c > 0 || (c === 0 && !inclusiveEnd)) return false;
      }
      return true;
    };
    selected = ordered.filter(inRange);
    if (startkey !== undefined) {
      before = ordered.filter((r) => {
        const c = vsBound(r, startkey, sid);
        return descending ? c > 0 : c < 0;
      }).length;
    }
  }
  const skip = q.skip ?? 0;
  const limit = q.limit ?? Infinity;
  /** Rows before the key's place in scan order (after it, by key, when descending). */
  const rowsBeforeKey = (key: unknown): number =>
    ordered.filter((r) => (descending ? cmp(r.key, key) > 0 : cmp(r.key, key) < 0)).length;
  /** The index of the first key in request order that has rows, else the last key's (a key may be null). */
  const firstKeyWithRows = (wanted: readonly unknown[]): number => {
    const found = wanted.findIndex((k) => ordered.some((r) => cmp(r.key, k) === 0));
    return found === -1 ? wanted.length - 1 : found;
  };
  if (!reducing) {
    return {
      kind: 'map',
      totalRows: rows.length,
      // A keys query, as CouchDB 3.5 counts it (couch_mrview:map_fold, fabric_view_map): the rows
      // before (in scan order) the first key in request order that has rows — the last key when
      // none has — plus skip, at most total_rows.
      offset:
        keys !== undefined
          ? keys.length === 0
            ? null
            : Math.min(rows.length, rowsBeforeKey(keys[firstKeyWithRows(keys)]) + skip)
          : Math.min(rows.length, before + skip),
      rows: selected.slice(skip, skip + limit),
    };
  }
  // Groups: runs of rows (in scan order) whose group keys collate equal; named by the first row.
  const groupKey = (key: unknown): unknown => {
    if (group === 'none') return null;
    if (group === 'exact' || !Array.isArray(key)) return key;
    return key.slice(0, group);
  };
  const groups: { key: unknown; rows: ModelRow[] }[] = [];
  // With keys=, each requested key is its own run (groups never merge across requested keys).
  const runs: ModelRow[][] =
    keys !== undefined
      ? keys.map((k) => ordered.filter((r) => cmp(r.key, k) === 0)) // in the order given, even descending
      : [selected];
  for (const run of runs) {
    let last: { key: unknown; rows: ModelRow[] } | undefined;
    for (const row of run) {
      const gk = groupKey(row.key);
      if (last !== undefined && (group === 'none' || cmp(last.key, gk) === 0)) last.rows.push(row);
      else groups.push((last = { key: gk, rows: [row] }));
    }
  }
  return {
    kind: 'reduce',
    rows: groups
      .slice(skip, skip + limit)
      .map((g) => ({ key: group === 'none' ? null : g.key, value: reduceValues(reduce, g.rows) })),
  };
}

export function reduceValues(reduce: ReduceKind, rows: readonly ModelRow[]): unknown {
  const values = rows.map((r) => r.value as number);
  switch (reduce) {
    case '_count':
    case 'js_count':
      return rows.length;
    case '_sum':
    case 'js_sum':
      return values.reduce((a, b) => a + b, 0);
    case '_stats':
      return {
        sum: values.reduce((a, b) => a + b, 0),
        count: values.length,
        min: Math.min(...values),
        max: Math.max(...values),
        sumsqr: values.reduce((a, b) => a + b * b, 0),
      };
    default:
      throw new Error('not a reduce view');
  }
}

/** The query string of a model query (GET), JSON-encoding key parameters. */
export function queryString(q: ModelQuery): string {
  const params: string[] = [];
  const add = (name: string, value: unknown) =>
    params.push(`${name}=${encodeURIComponent(typeof value === 'string' ? value : JSON.stringify(value))}`);
  if (q.startkey !== undefined) add('startkey', JSON.stringify(q.startkey));
  if (q.endkey !== undefined) add('endkey', JSON.stringify(q.endkey));
  if (q.startkeyDocid !== undefined) add('startkey_docid', q.startkeyDocid);
  if (q.endkeyDocid !== undefined) add('endkey_docid', q.endkeyDocid);
  if (q.descending !== undefined) add('descending', q.descending);
  if (q.inclusiveEnd !== undefined) add('inclusive_end', q.inclusiveEnd);
  if (q.skip !== undefined) add('skip', q.skip);
  if (q.limit !== undefined) add('limit', q.limit);
  if (q.reduce !== undefined) add('reduce', q.reduce);
  if (q.group === 'exact') add('group', true);
  else if (typeof q.group === 'number') add('group_level', q.group);
  return params.length ? `?${params.join('&')}` : '';
}

/** The rows in reverse, except that each run of one doc's rows under one key keeps its order. */
function reverseKeepingDuplicates(rows: readonly ModelRow[]): ModelRow[] {
  const runs: ModelRow[][] = [];
  for (const row of rows) {
    const run = runs[runs.length - 1];
    const last = run?.[run.length - 1];
    if (last !== undefined && last.id === row.id && JSON.stringify(last.key) === JSON.stringify(row.key))
      run!.push(row);
    else runs.push([row]);
  }
  return runs.reverse().flat();
}
