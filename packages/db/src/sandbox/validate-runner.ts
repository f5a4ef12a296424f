/**
 * Runs a database's `validate_doc_update` functions (all of them, in design-document id order)
 * in one isolated-vm isolate of their own. Only JSON text crosses the boundary: the four
 * arguments go in, one outcome comes out. After a timeout or the memory cap the isolate is
 * thrown away and the next call starts a fresh one.
 */
import { CouchError } from '../errors.js';
import { checkNodeSnapshotFlag, loadIvm, newIsolate } from './isolated-vm.js';
import { report, reportCall, reportPrompt, reportStart } from './meter.js';

type Isolate = import('isolated-vm').Isolate;
type Reference = import('isolated-vm').Reference;

export interface ValidateFunction {
  /** The design document it comes from (`_design/x`). */
  ddocId: string;
  source: string;
}

/** What the functions made of a write. */
export type ValidateOutcome =
  | { ok: true }
  | { ok: false; status: 401 | 403; error: 'unauthorized' | 'forbidden'; reason: unknown }
  | { ok: false; status: 400 | 404; error: string; reason: string };

export interface ValidateRunnerOptions {
  timeoutMs?: number;
  memoryLimitMb?: number;
}

// Evaluated in the isolate: compiles each function once and answers `validate(json)`.
const RUNTIME = String.raw`
(function () {
  'use strict';
  var fns = [];
  function compile(list) {
    fns = JSON.parse(list).map(function (f) {
      if (f.source === '') return { id: f.ddocId, missing: true };
      try {
        var fn = (0, eval)('(' + f.source + '\n)');
        if (typeof fn !== 'function') return { id: f.ddocId, failure: 'TypeError: the validate_doc_update of ' + f.ddocId + ' is not a function' };
        return { id: f.ddocId, fn: fn };
      } catch (e) {
        return { id: f.ddocId, failure: String(e && e.name || 'Error') + ': ' + String(e && e.message || e) + ' (' + f.source + ')' };
      }
    });
    return 'ok';
  }
  function describe(e) {
    if (e instanceof Error) return { error: e.name || 'Error', reason: String(e.message) };
    if (typeof e === 'object' && e !== null) {
      var keys = Object.keys(e);
      if (keys.length === 1 && (keys[0] === 'forbidden' || keys[0] === 'unauthorized')) {
        return { denied: keys[0], reason: e[keys[0]] === undefined ? null : e[keys[0]] };
      }
      var text;
      try { text = JSON.stringify(e); } catch (x) { text = String(e); }
      return { error: 'invalid_validation_result', reason: 'validate_doc_update threw ' + text };
    }
    return { error: 'unknown_error', reason: String(e) };
  }
  function validate(input) {
    var args = JSON.parse(input);
    for (var i = 0; i < fns.length; i++) {
      var f = fns[i];
      if (f.missing) return JSON.stringify({ missing: f.id });
      if (f.failure !== undefined) return JSON.stringify({ compile: f.failure });
      try {
        f.fn(args[0], args[1], args[2], args[3]);
      } catch (e) {
        var d = describe(e);
        d.ddoc = f.id;
        try { return JSON.stringify(d); } catch (x) { return JSON.stringify({ error: 'unknown_error', reason: String(d.reason), ddoc: f.id }); }
      }
    }
    return '{"ok":true}';
  }
  return function (method, input) { return method === 'compile' ? compile(input) : validate(input); };
})()
`;

export class ValidateRunner {
  readonly #functions: readonly ValidateFunction[];
  readonly #timeoutMs: number;
  readonly #memoryLimitMb: number;
  #isolate: Isolate | undefined;
  #dispatch: Promise<Reference> | undefined;

  constructor(functions: readonly ValidateFunction[], options: ValidateRunnerOptions = {}) {
    this.#functions = functions;
    this.#timeoutMs = options.timeoutMs ?? 5000;
    this.#memoryLimitMb = options.memoryLimitMb ?? 128;
  }

  get size(): number {
    return this.#functions.length;
  }

  /** Runs every function on one write; the first that throws decides. */
  async validate(newDoc: unknown, oldDoc: unknown, userCtx: unknown, secObj: unknown): Promise<ValidateOutcome> {
    if (this.#functions.length === 0) return { ok: true };
    const input = JSON.stringify([newDoc, oldDoc, userCtx, secObj]);
    let out: string;
    try {
      const dispatch = await this.#start();
      const startedAt = performance.now();
      out = (await dispatch.apply(undefined, ['validate', input], { timeout: this.#timeoutMs })) as string;
      reportPrompt('ddoc_vdu', startedAt);
    } catch (error) {
      report({ kind: 'error' });
      if (this.#isolate !== undefined && !this.#isolate.isDisposed) report({ kind: 'error_exit' });
      this.#discard(); // a fresh isolate next time: nothing of a failed run survives
      if (error instanceof CouchError) throw error;
      const message = error instanceof Error ? error.message : String(error);
      const why = /timed out/i.test(message) ? `ran longer than ${this.#timeoutMs} ms` : message;
      return { ok: false, status: 400, error: 'validate_failed', reason: `validate_doc_update ${why}` };
    }
    return outcomeOf(JSON.parse(out) as Record<string, unknown>);
  }

  dispose(): void {
    if (this.#isolate !== undefined && !this.#isolate.isDisposed) report({ kind: 'exit' });
    this.#discard();
  }

  #discard(): void {
    if (this.#isolate !== undefined && !this.#isolate.isDisposed) this.#isolate.dispose();
    this.#isolate = undefined;
    this.#dispatch = undefined;
  }

  #start(): Promise<Reference> {
    this.#dispatch ??= (async () => {
      checkNodeSnapshotFlag();
      const ivm = await loadIvm();
      const spawnedAt = performance.now();
      const isolate = newIsolate(ivm, this.#memoryLimitMb);
      this.#isolate = isolate;
      const context = await isolate.createContext();
      const dispatch = (await context.eval(RUNTIME, { reference: true, timeout: this.#timeoutMs })) as Reference;
      reportStart(spawnedAt);
      report({ kind: 'acquired' });
      // The validate functions come with their design documents: CouchDB's `ddoc new`.
      const compiledAt = performance.now();
      await dispatch.apply(undefined, ['compile', JSON.stringify(this.#functions)], { timeout: this.#timeoutMs });
      reportCall('ddoc_new', compiledAt);
      return dispatch;
    })();
    return this.#dispatch;
  }
}

function outcomeOf(result: Record<string, unknown>): ValidateOutcome {
  if (result.ok === true) return { ok: true };
  if (typeof result.missing === 'string') {
    const reason = `missing validate_doc_update function validate_doc_update on design doc ${result.missing}`;
    return { ok: false, status: 404, error: 'not_found', reason };
  }
  if (typeof result.compile === 'string') {
    return { ok: false, status: 400, error: 'compilation_error', reason: result.compile };
  }
  if (result.denied === 'forbidden') return { ok: false, status: 403, error: 'forbidden', reason: result.reason };
  if (result.denied === 'unauthorized') return { ok: false, status: 401, error: 'unauthorized', reason: result.reason };
  // CouchDB answers a function that throws anything else with a 500; it is the function's fault.
  const where = typeof result.ddoc === 'string' ? ` (validate_doc_update of ${result.ddoc})` : '';
  return { ok: false, status: 400, error: String(result.error), reason: `${String(result.reason)}${where}` };
}
