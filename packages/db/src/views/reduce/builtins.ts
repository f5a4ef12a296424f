import { CouchError } from '../../errors.js';
import { encodeTerm } from '../../json/term.js';
import { fromPlain } from '../../json/plain.js';
import { formatErlangTerm, formatProplist } from './erlang-format.js';
import { Hll, isHllState, type HllState } from './hll.js';
import {
  edgeFinalize,
  edgeReduce,
  edgeRereduce,
  looksLikeRank,
  rankReduce,
  rankRereduce,
  rankSpec,
} from './rank-builtins.js';

/**
 * CouchDB's builtin reduce functions (couch_query_servers.erl), run in-process. Names match by
 * prefix, as in CouchDB ("_sum\n" and "_statsorama" are _sum and _stats), except CouchDB 3.5's
 * `_top_N` / `_bottom_N`, whose N is read whole (1 to 100; see rank-builtins.ts).
 */
export type BuiltinName =
  | '_sum'
  | '_count'
  | '_stats'
  | '_approx_count_distinct'
  | '_first'
  | '_last'
  | `_top_${number}`
  | `_bottom_${number}`;
type PrefixBuiltin = '_sum' | '_count' | '_stats' | '_approx_count_distinct' | '_first' | '_last';
const BUILTINS: readonly PrefixBuiltin[] = ['_approx_count_distinct', '_count', '_first', '_last', '_stats', '_sum'];

/** The builtin a reduce source names, or undefined for a JavaScript function or an unknown `_xxx`. */
export function builtinName(source: string): BuiltinName | undefined {
  if (!source.startsWith('_')) return undefined;
  if (looksLikeRank(source)) {
    const spec = rankSpec(source);
    return spec === undefined ? undefined : spec.top ? `_top_${spec.n}` : `_bottom_${spec.n}`;
  }
  return BUILTINS.find((name) => source.startsWith(name));
}

/**
 * Throws CouchDB's design-doc error for an unknown `_xxx` reduce
 * (400 invalid_design_doc "`_xxx` is not a supported reduce function.").
 */
export function validateReduceSource(source: string): void {
  if (source.startsWith('_') && builtinName(source) === undefined) {
    throw new CouchError('invalid_design_doc', `\`${source}\` is not a supported reduce function.`);
  }
}

export interface BuiltinOptions {
  /** query_server_config reduce_limit: true (error value), 'log' (log only), false. */
  reduceLimit?: boolean | 'log';
  /** reduce_limit_threshold, default 4906 (bytes of the output term). */
  threshold?: number;
  /** reduce_limit_ratio, default 2.0. */
  ratio?: number;
  log?: (message: string) => void;
}

export const SUM_ERROR =
  'The _sum function requires that map values be numbers, arrays of numbers, or objects. ' +
  'Objects cannot be mixed with other data structures. Objects can be arbitrarily nested, provided that the values ' +
  'for all fields are themselves numbers, arrays of numbers, or objects.';

/** Reduce phase: kvs are the rows, [[key, docId], value]. */
export function builtinReduce(
  name: BuiltinName,
  kvs: ReadonlyArray<readonly [unknown, unknown]>,
  options: BuiltinOptions = {},
): unknown {
  const rank = rankSpec(name);
  if (rank !== undefined)
    return rankReduce(
      rank,
      kvs.map((kv) => kv[1]),
    );
  switch (name) {
    case '_first':
    case '_last':
      return edgeReduce(name === '_first', kvs);
    case '_count':
      return kvs.length;
    case '_sum':
      return checkSumOverflow(kvs, sumRows(kvs), options);
    case '_stats':
      return packStats(statsRows(kvs.map((kv) => kv[1])));
    case '_approx_count_distinct': {
      const h = new Hll();
      for (const [keyAndId] of kvs) h.insertKey((keyAndId as readonly unknown[])[0]);
      return h.toState();
    }
  }
}

/** Rereduce phase: values are earlier reductions of the same function. */
export function builtinRereduce(name: BuiltinName, values: readonly unknown[], options: BuiltinOptions = {}): unknown {
  const rank = rankSpec(name);
  if (rank !== undefined) return rankRereduce(rank, values);
  switch (name) {
    case '_first':
    case '_last':
      return edgeRereduce(name === '_first', values);
    case '_count':
    case '_sum': {
      const kvs = values.map((v) => [[], v] as const);
      const sum = sumRows(kvs);
      return name === '_sum' ? checkSumOverflow(kvs, sum, options) : sum;
    }
    case '_stats':
      return packStats(statsRows(values));
    case '_approx_count_distinct': {
      const h = new Hll();
      for (const v of values) if (isHllState(v)) h.merge(Hll.from(v));
      return h.toState();
    }
  }
}

/** The value a query answers for a stored reduction (couch_query_servers:finalize). */
export function builtinFinalize(name: BuiltinName, reduction: unknown): unknown {
  if (name === '_first' || name === '_last') return edgeFinalize(reduction);
  if (name === '_approx_count_distinct' && isHllState(reduction)) {
    return Math.round(Hll.from(reduction as HllState).cardinality());
  }
  return reduction;
}

// --- _sum -------------------------------------------------------------------------------

class SumError {
  constructor(readonly value: unknown) {}
}

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function sumRows(kvs: ReadonlyArray<readonly [unknown, unknown]>): unknown {
  let acc: unknown = 0;
  for (const kv of kvs) {
    try {
      acc = sumValues(kv[1], acc);
    } catch (err) {
      if (err instanceof SumError) return { error: 'builtin_reduce_error', reason: SUM_ERROR, caused_by: err.value };
      if (err instanceof PassThrough) return err.value;
      throw err;
    }
  }
  return acc;
}

/** An earlier builtin_reduce_error object met again: the result is that object, unchanged. */
class PassThrough {
  constructor(readonly value: Obj) {}
}

function sumValues(value: unknown, acc: unknown): unknown {
  if (typeof value === 'number') {
    if (typeof acc === 'number') return acc + value;
    if (Array.isArray(acc)) return sumArrays(acc, [value]);
    throw new SumError(value);
  }
  if (Array.isArray(value)) {
    if (Array.isArray(acc)) return sumArrays(acc, value);
    if (typeof acc === 'number') return sumArrays([acc], value);
    throw new SumError(value);
  }
  if (isObject(value)) {
    if (value.error === 'builtin_reduce_error') throw new PassThrough(value);
    if (acc === 0) return value;
    if (isObject(acc)) return sumObjects(value, acc);
    // Erlang: no case clause for a non-zero number / list accumulator.
    throw new SumError(value);
  }
  throw new SumError(value);
}

/** Member-wise, keys in sorted order (lists:sort of the proplists), members on one side copied. */
function sumObjects(a: Obj, b: Obj): Obj {
  const out: Obj = {};
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  let i = 0;
  let j = 0;
  while (i < ka.length && j < kb.length) {
    if (ka[i] === kb[j]) {
      out[ka[i]!] = sumValues(a[ka[i]!], b[kb[j]!]);
      i++;
      j++;
    } else if (ka[i]! < kb[j]!) {
      out[ka[i]!] = a[ka[i]!];
      i++;
    } else {
      out[kb[j]!] = b[kb[j]!];
      j++;
    }
  }
  for (; i < ka.length; i++) out[ka[i]!] = a[ka[i]!];
  for (; j < kb.length; j++) out[kb[j]!] = b[kb[j]!];
  return out;
}

function sumArrays(xs: readonly unknown[], ys: readonly unknown[]): unknown[] {
  const out: unknown[] = [];
  let i = 0;
  for (; i < xs.length && i < ys.length; i++) {
    const x = xs[i];
    const y = ys[i];
    // sum_arrays(Else, _) -> throw_sum_error(Else): the cause is the rest of the first list.
    if (typeof x !== 'number' || typeof y !== 'number') throw new SumError(xs.slice(i));
    out.push(x + y);
  }
  for (; i < xs.length; i++) out.push(xs[i]);
  for (; i < ys.length; i++) out.push(ys[i]);
  return out;
}

/** reduce_limit for _sum: output term > threshold bytes and output · ratio > input term size. */
function checkSumOverflow(
  kvs: ReadonlyArray<readonly [unknown, unknown]>,
  sum: unknown,
  options: BuiltinOptions,
): unknown {
  const limit = options.reduceLimit ?? true;
  if (limit === false || typeof sum !== 'object' || sum === null) return sum;
  const threshold = options.threshold ?? 4906;
  const outSize = termSize(sum);
  if (outSize <= threshold) return sum;
  const inSize = termSize(kvs);
  if (outSize * (options.ratio ?? 2.0) <= inSize) return sum;
  const message = `Reduce output must shrink more rapidly: input size: ${inSize} output size: ${outSize}`;
  options.log?.(message);
  if (limit === 'log') return sum;
  return { error: 'builtin_reduce_error', reason: message };
}

/** erlang:external_size/1 of the EJSON term: 131 + the encoding. */
function termSize(value: unknown): number {
  return 1 + encodeTerm(fromPlain(value)).length;
}

// --- _stats -----------------------------------------------------------------------------

/** Erlang's {Sum, Count, Min, Max, SumSqr} accumulator. */
class Stats {
  constructor(
    readonly sum: number,
    readonly count: number,
    readonly min: number,
    readonly max: number,
    readonly sumsqr: number,
  ) {}
  static of(n: number): Stats {
    return new Stats(n, 1, n, n, n * n);
  }
}
type StatsAcc = Stats | StatsAcc[];

const statError = (value: unknown): CouchError =>
  new CouchError(
    'invalid_value',
    `The _stats function requires that map values be numbers or arrays of numbers, not '${formatErlangTerm(value)}'`,
  );

function statsRows(values: readonly unknown[]): StatsAcc {
  if (values.length === 0) return new Stats(0, 0, 0, 0, 0);
  let acc = initialStats(values[0]);
  for (let i = 1; i < values.length; i++) acc = statValues(values[i], acc);
  return acc;
}

function initialStats(value: unknown): StatsAcc {
  if (Array.isArray(value)) return value.map(initialStats);
  if (typeof value === 'number') return Stats.of(value);
  if (isObject(value)) return unpackStats(value);
  throw new CouchError('invalid_value', `non-numeric _stats input: ${formatErlangTerm(value)}`);
}

function statValues(value: unknown, acc: StatsAcc): StatsAcc {
  if (Array.isArray(value) && Array.isArray(acc)) {
    // lists:zipwith: both lists must be as long.
    if (value.length !== acc.length) throw statError(value);
    return value.map((v, i) => statValues(v, acc[i]!));
  }
  if (isObject(value)) return combine(unpackStats(value), acc, value);
  if (typeof value === 'number') return combine(Stats.of(value), acc, value);
  throw statError(value);
}

function combine(a: Stats, acc: StatsAcc, value: unknown): Stats {
  if (Array.isArray(acc)) throw statError(value);
  return new Stats(
    a.sum + acc.sum,
    a.count + acc.count,
    Math.min(a.min, acc.min),
    Math.max(a.max, acc.max),
    a.sumsqr + acc.sumsqr,
  );
}

function unpackStats(props: Obj): Stats {
  const get = (key: string): number => {
    const v = props[key];
    if (typeof v === 'number') return v;
    if (v === undefined) {
      throw new CouchError(
        'invalid_value',
        `user _stats input missing required field ${key} (${formatProplist(props)})`,
      );
    }
    throw new CouchError('invalid_value', `non-numeric _stats input received for ${key}: ${formatErlangTerm(v)}`);
  };
  return new Stats(get('sum'), get('count'), get('min'), get('max'), get('sumsqr'));
}

/** finalize: {"sum","count","min","max","sumsqr"} in that order, element-wise for arrays. */
function packStats(acc: StatsAcc): unknown {
  if (Array.isArray(acc)) return acc.map(packStats);
  return { sum: acc.sum, count: acc.count, min: acc.min, max: acc.max, sumsqr: acc.sumsqr };
}
