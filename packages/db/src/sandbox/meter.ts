/**
 * What the JavaScript sandboxes did, for the node's `couchdb.query_server.*` statistics under
 * CouchDB's names: a sandbox is CouchDB's query server process (couchjs), so its start is a
 * `process_starts` and a `spawn_proc` call, each answered call a `process_prompts`, and every
 * request is counted by kind in `calls.*` with its microseconds in `time.*` (couch_os_process).
 * The server listens while it runs (server/stats.ts); the sandboxes only report.
 */

/** CouchDB's request kinds (couch_query_servers' `calls` and `time` groups). */
export type QueryServerCall =
  | 'spawn_proc'
  | 'map'
  | 'reduce'
  | 'reset'
  | 'add_fun'
  | 'ddoc_new'
  | 'ddoc_vdu'
  | 'ddoc_filter'
  | 'ddoc_other'
  | 'other';

export type QueryServerEvent =
  | { kind: 'call'; call: QueryServerCall; micros: number }
  | { kind: 'acquired' | 'start' | 'exit' | 'error_exit' | 'error' | 'prompt' }
  | { kind: 'js_filter'; docs: number; failed: boolean };

export type QueryServerMeter = (event: QueryServerEvent) => void;

const meters = new Set<QueryServerMeter>();

/** Listens to every sandbox of the process; returns the function that stops it. */
export function addQueryServerMeter(meter: QueryServerMeter): () => void {
  meters.add(meter);
  return () => meters.delete(meter);
}

export function report(event: QueryServerEvent): void {
  for (const meter of meters) meter(event);
}

/** Reports one request of `call` kind that started at `startedAt` (performance.now()). */
export function reportCall(call: QueryServerCall, startedAt: number): void {
  if (meters.size === 0) return;
  report({ kind: 'call', call, micros: Math.round((performance.now() - startedAt) * 1000) });
}

/** A request answered: counted by kind and as a successful prompt. */
export function reportPrompt(call: QueryServerCall, startedAt: number): void {
  if (meters.size === 0) return;
  reportCall(call, startedAt);
  report({ kind: 'prompt' });
}

/** A sandbox started (a query server process spawned), `startedAt` when its creation began. */
export function reportStart(startedAt: number): void {
  if (meters.size === 0) return;
  report({ kind: 'start' });
  reportCall('spawn_proc', startedAt);
}

/** The request kind of a sandbox runtime method. */
export function callOf(method: string): QueryServerCall {
  switch (method) {
    case 'map':
      return 'map';
    case 'reduce':
    case 'rereduce':
      return 'reduce';
    case 'filter':
      return 'ddoc_filter';
    case 'validate':
      return 'ddoc_vdu';
    case 'show':
    case 'list':
    case 'update':
    case 'rewrite':
      return 'ddoc_other';
    default:
      return 'other';
  }
}
