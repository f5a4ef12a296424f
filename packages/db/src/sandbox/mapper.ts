import { CouchError } from '../errors.js';
import { SandboxSession, type SessionOptions } from './session.js';

/** One view of a design document, as the index builder hands it over. */
export interface ViewSource {
  name: string;
  /** `views.{name}.map`: JavaScript source of `function(doc) { … emit(k, v) … }`. */
  map: string;
  /** `views.{name}.reduce`, if any (not used by the mapper; see createReducer). */
  reduce?: string;
}

/** The part of a design document the map functions depend on. */
export interface MapDesign {
  views: readonly ViewSource[];
  /**
   * `views.lib` of the design document: the CommonJS modules map functions may `require`
   * (paths are relative to the design doc: `require('views/lib/foo')`).
   */
  lib?: unknown;
}

export interface MapperOptions extends SessionOptions {
  /**
   * Upper bound of the doc JSON text (in characters) sent in one sandbox call; a batch is split
   * above it. Default DEFAULT_CALL_CHARS.
   */
  maxCallBytes?: number;
}

/** One emitted row: [key, value], already through JSON (undefined/NaN/Infinity → null, Dates → strings). */
export type Row = [key: unknown, value: unknown];

/** A map function that threw for one doc: that doc's rows for that view are dropped. */
export interface MapError {
  /** Index of the doc in the batch. */
  doc: number;
  /** Index of the view in `MapDesign.views`. */
  view: number;
  viewName: string;
  /** CouchDB's log text: "function raised exception … with doc._id …". */
  message: string;
}

export interface MapBatchResult {
  /** rows[doc][view]: the rows each view emitted for each doc of the batch, in emit order. */
  rows: Row[][][];
  /** Per doc + view failures (already logged); their rows are empty. */
  errors: MapError[];
}

export interface Mapper {
  readonly viewNames: readonly string[];
  /**
   * Maps a batch of docs (each the full JSON text of one doc, as CouchDB passes it to map:
   * `_id`, `_rev`, body, `_attachments` stubs, `_conflicts`…) through every view.
   * Rejects with a CouchError when the batch as a whole fails: `os_process_timeout` (a
   * document's map ran past the time limit, which is per document as CouchDB's is per
   * `map_doc`), `os_process_error` (memory limit, sandbox crash) or the error of a fatal throw
   * (`throw 'fatal_error'` → `map_runtime_error`, `throw ['fatal', name, reason]`). The
   * mapper stays usable after that (it restarts its sandbox).
   */
  mapBatch(docsJson: readonly string[]): Promise<MapBatchResult>;
  dispose(): void;
}

/**
 * A call's text stays below V8's large-object size (128 KB; two-byte strings take 2 bytes a
 * character): a larger string is a memory mapping of its own, on both sides of the sandbox, made
 * and unmapped for each call, whose fresh pages cost more to touch than the extra calls (on a
 * virtual machine with slow page faults, most of an index build's page faults came from here).
 */
const DEFAULT_CALL_CHARS = 60_000;

/**
 * Compiles the map functions of one design document in a fresh sandbox. Rejects with
 * CouchError `compilation_error` (400) naming the view when a function does not compile.
 */
export async function createMapper(design: MapDesign, options: MapperOptions = {}): Promise<Mapper> {
  const session = new SandboxSession(
    {
      maps: design.views.map((v) => v.map),
      reduces: [],
      lib: design.lib ?? null,
      reduceLimit: false,
      threshold: 0,
      ratio: 0,
    },
    options,
  );
  const failure = await session.start();
  if (failure !== undefined) {
    session.dispose();
    const name = design.views[failure.index]?.name ?? '';
    throw new CouchError(
      'compilation_error',
      failure.index < 0
        ? failure.message
        : `Compilation of the map function in the '${name}' view failed: ${failure.message}`,
      400,
    );
  }
  return new SandboxMapper(
    session,
    design.views.map((v) => v.name),
    options.maxCallBytes ?? DEFAULT_CALL_CHARS,
  );
}

class SandboxMapper implements Mapper {
  /**
   * Most documents in one call: none until a call runs past the time limit (a busy machine),
   * then a quarter of that call's, doubling back after each call well within the limit, so a
   * slow stretch does not spend a whole limit on every chunk.
   */
  private docLimit = Number.POSITIVE_INFINITY;

  constructor(
    private readonly session: SandboxSession,
    readonly viewNames: readonly string[],
    private readonly maxCallBytes: number,
  ) {}

  async mapBatch(docsJson: readonly string[]): Promise<MapBatchResult> {
    const rows: Row[][][] = [];
    const errors: MapError[] = [];
    let start = 0;
    while (start < docsJson.length) {
      let end = start;
      let bytes = 0;
      do bytes += docsJson[end++]!.length + 1;
      while (
        end < docsJson.length &&
        end - start < this.docLimit &&
        bytes + docsJson[end]!.length <= this.maxCallBytes
      );
      const startedAt = performance.now();
      try {
        await this.mapChunk(docsJson, start, end, rows, errors);
        if (this.docLimit !== Number.POSITIVE_INFINITY && performance.now() - startedAt < this.session.timeoutMs / 8) {
          this.docLimit = this.docLimit >= 4096 ? Number.POSITIVE_INFINITY : this.docLimit * 2;
        }
      } catch (err) {
        if (!(err instanceof CouchError && err.error === 'os_process_timeout') || end - start === 1) throw err;
        this.docLimit = Math.max(1, Math.ceil((end - start) / 4));
        // CouchDB's limit is per document (one `map_doc` prompt each); a chunk is many. A chunk
        // past the limit in total (a slow map on a busy machine) is mapped again one document a
        // call, each with the whole limit: only a document that alone runs past it fails.
        this.session.log(`mapping those ${end - start} docs again one at a time, each with the time limit`, 'error');
        for (let doc = start; doc < end; doc++) await this.mapChunk(docsJson, doc, doc + 1, rows, errors);
      }
      start = end;
    }
    return { rows, errors };
  }

  private async mapChunk(
    docsJson: readonly string[],
    start: number,
    end: number,
    rows: Row[][][],
    errors: MapError[],
  ): Promise<void> {
    const input = `[${docsJson.slice(start, end).join(',')}]`;
    const what = `map of ${end - start} doc(s)`;
    const out = JSON.parse(await this.session.call('map', input, what)) as {
      r?: Row[][][];
      e?: Array<[number, number, string]>;
      l: string[];
      fatal?: [string, string];
    };
    for (const line of out.l) this.session.log(line, 'user');
    if (out.fatal !== undefined) {
      this.session.log(`${out.fatal[0]}: ${out.fatal[1]}`, 'error');
      throw new CouchError(out.fatal[0], out.fatal[1]);
    }
    for (const doc of out.r!) rows.push(doc);
    for (const [doc, view, message] of out.e!) {
      this.session.log(message, 'error');
      errors.push({ doc: start + doc, view, viewName: this.viewNames[view]!, message });
    }
  }

  dispose(): void {
    this.session.dispose();
  }
}
