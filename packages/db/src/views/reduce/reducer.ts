import { CouchError } from '../../errors.js';
import { SandboxSession, type SessionOptions } from '../../sandbox/session.js';
import { builtinFinalize, builtinName, builtinReduce, builtinRereduce, type BuiltinName } from './builtins.js';

/** A row's [key, docId] as a reduce function receives it in `keys`. */
export type KeyAndId = [key: unknown, docId: string];

/** The rows of one group (one reduce call): keys[i] and values[i] belong to one row. */
export interface ReduceGroup {
  keys: readonly KeyAndId[];
  values: readonly unknown[];
}

export interface ReducerOptions extends SessionOptions {
  /** query_server_config reduce_limit: true (overflow → error value), 'log' (log, keep result), false. Default true. */
  reduceLimit?: boolean | 'log';
  /** JavaScript reduce: output longer than this many chars may overflow. Default 4096 (share/server/views.js). */
  jsThreshold?: number;
  /** JavaScript reduce: overflow when output · ratio > input (JSON of [keys, values]). Default 2. */
  jsRatio?: number;
  /** Builtin _sum: reduce_limit_threshold, default 4906 (bytes of the Erlang term). */
  builtinThreshold?: number;
  /** Builtin _sum: reduce_limit_ratio, default 2.0. */
  builtinRatio?: number;
}

/**
 * The reduction a JavaScript reduce gets when its output does not shrink (reduce_limit).
 * It is stored like any reduction; rereducing a set that contains one gives it back unchanged
 * (couch_query_servers get_overflow_error), and a query shows it as the row
 * `{"key": …, "error": "reduce_overflow_error", "reason": …}`.
 */
export interface ReduceOverflowError {
  $error: 'reduce_overflow_error';
  reason: string;
}

export function isReduceOverflowError(value: unknown): value is ReduceOverflowError {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as ReduceOverflowError).$error === 'reduce_overflow_error' &&
    typeof (value as ReduceOverflowError).reason === 'string'
  );
}

/**
 * The reduce functions attached to one index (CouchDB keeps all views with the same map
 * source and options in one index with a list of reduce functions). Every result is an array
 * with one reduction per source, in `sources` order.
 *
 * Reductions are JSON values meant to be stored (B-tree inner nodes) and rereduced later;
 * `finalize` turns them into what a query shows (only `_approx_count_distinct` differs: its
 * reduction is a HyperLogLog filter, its value the rounded estimate).
 *
 * Errors: a throwing JS reduce gives null (logged); `throw 'fatal_error'` rejects with
 * `map_runtime_error`; `_sum` on bad values gives a `builtin_reduce_error` object value;
 * `_stats` on bad values rejects with CouchError `invalid_value` (CouchDB fails the whole index
 * update); sandbox timeouts / memory reject with `os_process_timeout` / `os_process_error`.
 */
export interface Reducer {
  readonly sources: readonly string[];
  /** Whether some function is JavaScript (runs in the sandbox); builtins alone never touch it. */
  readonly hasJavaScript: boolean;
  /** reduce(keys, values, false) of one group. */
  reduce(keys: readonly KeyAndId[], values: readonly unknown[]): Promise<unknown[]>;
  /** rereduce(null, values, true): `reductions` are earlier results of reduce/rereduce (each one per source). */
  rereduce(reductions: ReadonlyArray<readonly unknown[]>): Promise<unknown[]>;
  /** Many groups in one sandbox call (group=true queries, index builds). */
  reduceGroups(groups: readonly ReduceGroup[]): Promise<unknown[][]>;
  rereduceGroups(groups: ReadonlyArray<ReadonlyArray<readonly unknown[]>>): Promise<unknown[][]>;
  /** Resolves when the sandbox (if any) runs, so that the *Sync methods can be called. */
  ready(): Promise<void>;
  /** The same as reduce/rereduce, blocking: for B-tree nodes computed inside a storage transaction. */
  reduceSync(keys: readonly KeyAndId[], values: readonly unknown[]): unknown[];
  rereduceSync(reductions: ReadonlyArray<readonly unknown[]>): unknown[];
  reduceGroupsSync(groups: readonly ReduceGroup[]): unknown[][];
  rereduceGroupsSync(groups: ReadonlyArray<ReadonlyArray<readonly unknown[]>>): unknown[][];
  /** Query values of a reduction array. */
  finalize(reductions: readonly unknown[]): unknown[];
  dispose(): void;
}

/**
 * Builds a reducer for reduce sources (builtins by `_` prefix, else JavaScript). Rejects with
 * `invalid_design_doc` for an unknown builtin and `compilation_error` for JS that does not compile.
 */
export async function createReducer(sources: readonly string[], options: ReducerOptions = {}): Promise<Reducer> {
  const builtins = sources.map((s) => builtinName(s));
  sources.forEach((s, i) => {
    if (s.startsWith('_') && builtins[i] === undefined) {
      throw new CouchError('invalid_design_doc', `\`${s}\` is not a supported reduce function.`);
    }
  });
  const jsPositions = builtins.flatMap((b, i) => (b === undefined ? [i] : []));
  let session: SandboxSession | undefined;
  if (jsPositions.length > 0) {
    session = new SandboxSession(
      {
        maps: [],
        reduces: jsPositions.map((i) => sources[i]!),
        lib: null,
        reduceLimit: options.reduceLimit ?? true,
        threshold: options.jsThreshold ?? 4096,
        ratio: options.jsRatio ?? 2,
      },
      options,
    );
    const failure = await session.start();
    if (failure !== undefined) {
      session.dispose();
      throw new CouchError('compilation_error', `Compilation of the reduce function failed: ${failure.message}`, 400);
    }
  }
  return new ViewReducer(sources, builtins, jsPositions, session, options);
}

class ViewReducer implements Reducer {
  readonly hasJavaScript: boolean;

  constructor(
    readonly sources: readonly string[],
    private readonly builtins: ReadonlyArray<BuiltinName | undefined>,
    private readonly jsPositions: readonly number[],
    private readonly session: SandboxSession | undefined,
    private readonly options: ReducerOptions,
  ) {
    this.hasJavaScript = session !== undefined;
  }

  async reduce(keys: readonly KeyAndId[], values: readonly unknown[]): Promise<unknown[]> {
    return (await this.reduceGroups([{ keys, values }]))[0]!;
  }

  async rereduce(reductions: ReadonlyArray<readonly unknown[]>): Promise<unknown[]> {
    return (await this.rereduceGroups([reductions]))[0]!;
  }

  async reduceGroups(groups: readonly ReduceGroup[]): Promise<unknown[][]> {
    await this.ready();
    return this.reduceGroupsSync(groups);
  }

  async rereduceGroups(groups: ReadonlyArray<ReadonlyArray<readonly unknown[]>>): Promise<unknown[][]> {
    await this.ready();
    return this.rereduceGroupsSync(groups);
  }

  async ready(): Promise<void> {
    await this.session?.ready();
  }

  reduceSync(keys: readonly KeyAndId[], values: readonly unknown[]): unknown[] {
    return this.reduceGroupsSync([{ keys, values }])[0]!;
  }

  rereduceSync(reductions: ReadonlyArray<readonly unknown[]>): unknown[] {
    return this.rereduceGroupsSync([reductions])[0]!;
  }

  reduceGroupsSync(groups: readonly ReduceGroup[]): unknown[][] {
    const results = groups.map(() => new Array<unknown>(this.sources.length));
    const builtinOptions = this.builtinOptions();
    for (let g = 0; g < groups.length; g++) {
      const { keys, values } = groups[g]!;
      let kvs: Array<[KeyAndId, unknown]> | undefined;
      for (let f = 0; f < this.sources.length; f++) {
        const name = this.builtins[f];
        if (name === undefined) continue;
        kvs ??= keys.map((k, i) => [k, values[i]]);
        results[g]![f] = builtinReduce(name, kvs, builtinOptions);
      }
    }
    if (this.session !== undefined && groups.length > 0) {
      const input = JSON.stringify({
        f: this.jsPositions.map((_, i) => i),
        g: groups.map(({ keys, values }) => keys.map((k, i) => [k, values[i]])),
      });
      const out = this.callSandbox('reduce', input, `reduce of ${groups.length} group(s)`);
      for (let g = 0; g < groups.length; g++) {
        const r = out[g] as unknown[] | { overflow: string };
        for (let j = 0; j < this.jsPositions.length; j++) {
          results[g]![this.jsPositions[j]!] = Array.isArray(r) ? r[j] : overflow(r.overflow, this.session);
        }
      }
    }
    return results;
  }

  rereduceGroupsSync(groups: ReadonlyArray<ReadonlyArray<readonly unknown[]>>): unknown[][] {
    const results = groups.map(() => new Array<unknown>(this.sources.length));
    const builtinOptions = this.builtinOptions();
    for (let f = 0; f < this.sources.length; f++) {
      const name = this.builtins[f];
      if (name === undefined) continue;
      for (let g = 0; g < groups.length; g++) {
        results[g]![f] = builtinRereduce(
          name,
          groups[g]!.map((r) => r[f]),
          builtinOptions,
        );
      }
    }
    if (this.session === undefined) return results;
    // os_rereduce runs each JavaScript function on its own.
    for (let j = 0; j < this.jsPositions.length; j++) {
      const f = this.jsPositions[j]!;
      const pending: number[] = [];
      const inputs: unknown[][] = [];
      for (let g = 0; g < groups.length; g++) {
        const values = groups[g]!.map((r) => r[f]);
        const earlier = values.find(isReduceOverflowError);
        if (earlier !== undefined) results[g]![f] = earlier;
        else {
          pending.push(g);
          inputs.push(values);
        }
      }
      if (pending.length === 0) continue;
      const out = this.callSandbox(
        'rereduce',
        JSON.stringify({ f: j, g: inputs }),
        `rereduce of ${pending.length} group(s)`,
      );
      pending.forEach((g, k) => {
        const r = out[k] as unknown[] | { overflow: string };
        results[g]![f] = Array.isArray(r) ? r[0] : overflow(r.overflow, this.session!);
      });
    }
    return results;
  }

  finalize(reductions: readonly unknown[]): unknown[] {
    return reductions.map((r, f) => {
      const name = this.builtins[f];
      return name === undefined ? r : builtinFinalize(name, r);
    });
  }

  dispose(): void {
    this.session?.dispose();
  }

  private builtinOptions() {
    return {
      reduceLimit: this.options.reduceLimit ?? true,
      threshold: this.options.builtinThreshold ?? 4906,
      ratio: this.options.builtinRatio ?? 2.0,
      log: (message: string) => this.options.log?.(message, 'error'),
    };
  }

  private callSandbox(method: string, input: string, what: string): unknown[] {
    const session = this.session!;
    const out = JSON.parse(session.callSync(method, input, what)) as {
      r: unknown[];
      l: string[];
      fatal?: [string, string];
    };
    for (const line of out.l) session.log(line, line.startsWith('function raised') ? 'error' : 'user');
    if (out.fatal !== undefined) throw new CouchError(out.fatal[0], out.fatal[1]);
    return out.r;
  }
}

function overflow(reason: string, session: SandboxSession): ReduceOverflowError {
  session.log(`reduce_overflow_error: ${reason}`, 'error');
  return { $error: 'reduce_overflow_error', reason };
}
