/**
 * Runs a design document's show, list, update and rewrite functions (./render-runtime.ts) in an
 * isolated-vm isolate of its own, with the sandbox's time and memory limits. A list streams: the
 * function's `getRow()` blocks its isolate on the host (`applySyncPromise`) while the host writes
 * the chunks sent so far and reads the next row, so nothing is buffered on either side. Waiting
 * for rows does not count against the time limit, which a list has per row (per message, as couchjs).
 */
import { CouchError } from '../errors.js';
import { checkNodeSnapshotFlag, loadIvm, newIsolate } from './isolated-vm.js';
import { callOf, report, reportCall, reportPrompt, reportStart } from './meter.js';
import { RENDER_RUNTIME } from './render-runtime.js';
import type { SandboxLog } from './session.js';

type Isolate = import('isolated-vm').Isolate;
type Reference = import('isolated-vm').Reference;

export interface RenderRunnerOptions {
  /** Longest a function may run (not counting its waits for rows). Default 5000 ms. */
  timeoutMs?: number;
  /** Heap cap of the isolate. Default 128 MB. */
  memoryLimitMb?: number;
  log?: SandboxLog;
}

/** A response object as the functions return it (`{code, headers, body, json, base64}`), unchecked. */
export type RenderResponse = Record<string, unknown>;

/** What `getRow()` hands over: the chunks `send()` gathered, and the response head the first time. */
export interface ListFlush {
  chunks: string[];
  start?: RenderResponse;
}

/** The host side of a list: takes each flush and answers the next row's JSON text, or null at the end. */
export type ListFeed = (flush: ListFlush) => Promise<string | null>;

export interface RenderRunner {
  /** `shows.{name}` on a document (its JSON text; null: none) → the response object. */
  show(name: string, docJson: string | null, req: unknown): Promise<RenderResponse>;
  /** `updates.{name}` → `[JSON text of the document to save (null: none), response object]`. */
  update(name: string, docJson: string | null, req: unknown): Promise<[string | null, RenderResponse]>;
  /** `lists.{name}` over rows the feed gives → the last chunks. */
  list(name: string, head: unknown, req: unknown, feed: ListFeed): Promise<string[]>;
  /** The `rewrites` function → its result (a path or `{path, query, method, headers, body, code}`), undefined for none. */
  rewrite(req: unknown): Promise<unknown>;
  /** True once disposed, or after a time or memory failure threw the isolate away. */
  readonly disposed: boolean;
  dispose(): void;
}

/** Starts an isolate with the design document (`this` of its functions; JSON text, `_id` and `_rev` included). */
export async function createRenderRunner(ddocJson: string, options: RenderRunnerOptions = {}): Promise<RenderRunner> {
  checkNodeSnapshotFlag();
  const ivm = await loadIvm();
  const timeoutMs = options.timeoutMs ?? 5000;
  const memoryLimitMb = options.memoryLimitMb ?? 128;
  const log = options.log ?? (() => {});
  const spawnedAt = performance.now();
  const isolate: Isolate = newIsolate(ivm, memoryLimitMb);
  let feed: ListFeed | undefined;
  // A failure of the host while the function waits (a view read): rethrown once the call returns.
  let hostFailure: unknown;
  // The isolate's CPU time when the list last got a row (its time limit counts from there).
  let stepStartedAt = 0n;
  const host = new ivm.Reference(async (flushJson: string): Promise<string | null> => {
    if (feed === undefined || hostFailure !== undefined) return null;
    try {
      return await feed(JSON.parse(flushJson) as ListFlush);
    } catch (error) {
      hostFailure = error;
      return null;
    } finally {
      stepStartedAt = isolate.cpuTime;
    }
  });
  let dispatch: Reference;
  try {
    const context = await isolate.createContext();
    const factory = (await context.eval(RENDER_RUNTIME, { reference: true, timeout: timeoutMs })) as Reference;
    dispatch = (await factory.apply(undefined, [host], {
      result: { reference: true },
      timeout: timeoutMs,
    })) as Reference;
    reportStart(spawnedAt);
    report({ kind: 'acquired' });
    const initAt = performance.now();
    await dispatch.apply(undefined, ['init', ddocJson], { timeout: timeoutMs });
    reportCall('ddoc_new', initAt);
  } catch (error) {
    if (!isolate.isDisposed) isolate.dispose();
    throw error;
  }

  /**
   * Runs one method. A list's limit is per step, as couchjs has one per message: the function's
   * own CPU time since it last asked for a row (a watchdog stops it); any other call has one
   * limit for the whole call.
   */
  const call = async (
    method: string,
    inputJson: string,
    what: string,
    perStep = false,
  ): Promise<Record<string, unknown>> => {
    if (isolate.isDisposed) throw new CouchError('os_process_error', 'the design function sandbox was disposed');
    hostFailure = undefined;
    let watchdog: NodeJS.Timeout | undefined;
    let overran = false;
    if (perStep) {
      stepStartedAt = isolate.cpuTime;
      watchdog = setInterval(
        () => {
          if (Number(isolate.cpuTime - stepStartedAt) / 1e6 <= timeoutMs) return;
          overran = true;
          isolate.dispose();
        },
        Math.max(10, Math.min(100, timeoutMs / 4)),
      );
    }
    let out: unknown;
    const startedAt = performance.now();
    try {
      out = await dispatch.apply(undefined, [method, inputJson], perStep ? {} : { timeout: timeoutMs });
      reportPrompt(callOf(method), startedAt);
    } catch (error) {
      report({ kind: 'error' });
      report({ kind: 'error_exit' });
      const message = error instanceof Error ? error.message : String(error);
      const timedOut = overran || /timed out/i.test(message);
      const outOfMemory = !timedOut && (/memory limit/i.test(message) || isolate.isDisposed);
      if (!isolate.isDisposed) isolate.dispose();
      const reason = timedOut
        ? `${what} exceeded the ${timeoutMs} ms time limit`
        : outOfMemory
          ? `${what} exceeded the ${memoryLimitMb} MB memory limit`
          : `${what} failed: ${message}`;
      log(reason, 'error');
      throw new CouchError(timedOut ? 'os_process_timeout' : 'os_process_error', reason);
    } finally {
      clearInterval(watchdog);
    }
    if (hostFailure !== undefined) throw hostFailure;
    const result = JSON.parse(String(out)) as Record<string, unknown> & { l: string[]; error?: [string, string] };
    for (const line of result.l) log(line, 'user');
    if (result.error !== undefined) {
      const [error, reason] = result.error;
      throw new CouchError(error, reason);
    }
    return result;
  };

  return {
    async show(name, docJson, req) {
      return (await call('show', docInput(name, docJson, req), `show function ${name}`)).resp as RenderResponse;
    },
    async update(name, docJson, req) {
      const out = await call('update', docInput(name, docJson, req), `update function ${name}`);
      return out.up as [string | null, RenderResponse];
    },
    async list(name, head, req, listFeed) {
      feed = listFeed;
      try {
        const input = JSON.stringify({ name, head, req });
        return (await call('list', input, `list function ${name}`, true)).end as string[];
      } finally {
        feed = undefined;
      }
    },
    async rewrite(req) {
      const out = await call('rewrite', JSON.stringify({ req }), 'rewrite function');
      return out.none === true ? undefined : out.rewrite;
    },
    get disposed() {
      return isolate.isDisposed;
    },
    dispose() {
      host.release();
      if (!isolate.isDisposed) report({ kind: 'exit' });
      if (!isolate.isDisposed) isolate.dispose();
    },
  };
}

/** The input of a show or update: the document's text as stored, not parsed and written again. */
function docInput(name: string, docJson: string | null, req: unknown): string {
  return `{"name":${JSON.stringify(name)},"doc":${docJson ?? 'null'},"req":${JSON.stringify(req)}}`;
}
