/**
 * A view group's JavaScript map functions run on this thread when every one of them is of the
 * shape ./map-shape.ts compiles (issue #31: the index build and the 1% update were mostly the
 * sandbox's boundary). A document one of them would throw on is mapped by the sandbox instead,
 * all views at once, so its rows, error and log line are the sandbox's; the sandbox starts on
 * the first such document.
 */
import {
  createMapper,
  type MapBatchResult,
  type MapDesign,
  type Mapper,
  type MapperOptions,
  type Row,
  type ViewSource,
} from '../../sandbox/index.js';
import { readDocMembers } from './doc-members.js';
import { type CompiledShape, compileShape, type EmittedRows, type NativeMap } from './map-shape.js';

/**
 * A document to map as storage holds it: the body without `_id` and `_rev` (attachment stubs
 * first), and the meta members CouchDB adds for a map function (`_conflicts`, `_local_seq`).
 */
export interface StoredDoc {
  id: string;
  rev: string;
  body: string;
  extras: [string, unknown][] | undefined;
}

/** A mapper that also maps documents as stored, without rendering each one's text first. */
export interface StoredDocMapper extends Mapper {
  /** As `mapBatch` of the documents' texts; `render` makes a document's text where it is needed. */
  mapStored(docs: readonly StoredDoc[], render: (doc: StoredDoc) => string): Promise<MapBatchResult>;
  /** One document into the caller's per-view arrays, on this thread; false: map it with `mapStored`. */
  mapInto?(doc: StoredDoc, render: (doc: StoredDoc) => string, perView: EmittedRows[]): boolean;
}

/**
 * The group's mapper run here, or undefined when one of its map functions is not of the shape
 * (`compile`: how a view's function is compiled here; search's index functions have their own).
 */
export function nativeJsMapper(
  design: MapDesign,
  options: MapperOptions,
  compile: (view: ViewSource) => CompiledShape | undefined = (view) => compileShape(view.map),
): StoredDocMapper | undefined {
  const maps: NativeMap[] = [];
  // The document's members any of the functions reads (undefined: one reads the whole document).
  let members: Set<string> | undefined = new Set();
  for (const view of design.views) {
    const shape = compile(view);
    if (shape === undefined) return undefined;
    maps.push(shape.map);
    if (shape.members === undefined) members = undefined;
    else for (const name of shape.members) members?.add(name);
  }
  return new NativeJsMapper(maps, members === undefined ? undefined : [...members], design, options);
}

class NativeJsMapper implements StoredDocMapper {
  readonly viewNames: readonly string[];
  private sandbox: Promise<Mapper> | undefined;
  private disposed = false;
  /**
   * Whether the members the functions read are all in a stored body: none starts with `_` (the
   * stored body has no `_id` or `_rev`, and its attachment stubs and meta members are not the
   * map function's view of them).
   */
  private readonly bodyOnly: boolean;

  constructor(
    private readonly maps: readonly NativeMap[],
    /** What of each document the functions read (undefined: all of it). */
    private readonly members: readonly string[] | undefined,
    private readonly design: MapDesign,
    private readonly options: MapperOptions,
  ) {
    this.viewNames = design.views.map((v) => v.name);
    this.bodyOnly = members?.every((name) => !name.startsWith('_')) === true;
  }

  /**
   * Issue #31: rendering each document's text (`_id`, `_rev`, the body spliced in) only to read
   * a few members out of it was a copy of every document, and another when the reader flattened
   * the spliced string. When the functions read only body members, they are read from the
   * stored body itself; a document is rendered only where the whole text is needed (a member
   * written with an escape, a document the sandbox maps).
   */
  async mapStored(docs: readonly StoredDoc[], render: (doc: StoredDoc) => string): Promise<MapBatchResult> {
    if (!this.bodyOnly) return this.mapBatch(docs.map(render));
    return this.mapEach(
      docs.length,
      (d) => this.asRead(docs[d]!, render),
      (d) => render(docs[d]!),
    );
  }

  /** A stored document as the functions read it: its members, from the body alone where they are all there. */
  private asRead(doc: StoredDoc, render: (doc: StoredDoc) => string): unknown {
    const { members } = this;
    if (this.bodyOnly) return readDocMembers(doc.body, members!) ?? JSON.parse(render(doc));
    const text = render(doc);
    return (members !== undefined && readDocMembers(text, members)) || JSON.parse(text);
  }

  /**
   * One document as stored through every view, into `perView` (one array per view, emptied
   * first and reused by the caller from document to document: an index build reads them before
   * the next call, so a build makes no batch, row list or per-view array per document). False
   * where a function throws: the sandbox maps that document (`mapStored`).
   */
  mapInto(doc: StoredDoc, render: (doc: StoredDoc) => string, perView: EmittedRows[]): boolean {
    const { maps } = this;
    try {
      const value = this.asRead(doc, render);
      for (let v = 0; v < maps.length; v++) {
        const out = perView[v]!;
        out.length = 0;
        maps[v]!(value, out);
      }
      return true;
    } catch {
      return false;
    }
  }

  mapBatch(docsJson: readonly string[]): Promise<MapBatchResult> {
    const { members } = this;
    return this.mapEach(
      docsJson.length,
      (d) => (members !== undefined && readDocMembers(docsJson[d]!, members)) || JSON.parse(docsJson[d]!),
      (d) => docsJson[d]!,
    );
  }

  /** Documents 0..n-1 (`docOf`: as the functions read it) through every view; `textOf` for the sandbox. */
  private async mapEach(
    n: number,
    docOf: (d: number) => unknown,
    textOf: (d: number) => string,
  ): Promise<MapBatchResult> {
    const { maps } = this;
    const rows: Row[][][] = new Array(n);
    let inSandbox: number[] | undefined;
    for (let d = 0; d < n; d++) {
      const perView: Row[][] = new Array(maps.length);
      try {
        const doc = docOf(d);
        for (let v = 0; v < maps.length; v++) {
          const out: EmittedRows = [];
          maps[v]!(doc, out);
          perView[v] = out;
        }
        rows[d] = perView;
      } catch {
        // Where the sandbox throws (a member of null or undefined): its own answer, below.
        (inSandbox ??= []).push(d);
      }
    }
    if (inSandbox === undefined) return { rows, errors: [] };
    const mapped = await (await this.sandboxMapper()).mapBatch(inSandbox.map(textOf));
    inSandbox.forEach((d, k) => {
      rows[d] = mapped.rows[k]!;
    });
    return { rows, errors: mapped.errors.map((error) => ({ ...error, doc: inSandbox[error.doc]! })) };
  }

  private sandboxMapper(): Promise<Mapper> {
    if (this.sandbox === undefined) {
      const started = createMapper(this.design, this.options);
      this.sandbox = started;
      // A failed start is tried again by the next document that needs it.
      started.catch(() => {
        if (this.sandbox === started) this.sandbox = undefined;
      });
    }
    return this.sandbox;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    void this.sandbox?.then(
      (mapper) => mapper.dispose(),
      () => {},
    );
  }
}
