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
 * The group's mapper run here, or undefined when one of its map functions is not of the shape
 * (`compile`: how a view's function is compiled here; search's index functions have their own).
 */
export function nativeJsMapper(
  design: MapDesign,
  options: MapperOptions,
  compile: (view: ViewSource) => CompiledShape | undefined = (view) => compileShape(view.map),
): Mapper | undefined {
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

class NativeJsMapper implements Mapper {
  readonly viewNames: readonly string[];
  private sandbox: Promise<Mapper> | undefined;
  private disposed = false;

  constructor(
    private readonly maps: readonly NativeMap[],
    /** What of each document the functions read (undefined: all of it). */
    private readonly members: readonly string[] | undefined,
    private readonly design: MapDesign,
    private readonly options: MapperOptions,
  ) {
    this.viewNames = design.views.map((v) => v.name);
  }

  async mapBatch(docsJson: readonly string[]): Promise<MapBatchResult> {
    const { maps, members } = this;
    const rows: Row[][][] = new Array(docsJson.length);
    let inSandbox: number[] | undefined;
    for (let d = 0; d < docsJson.length; d++) {
      const perView: Row[][] = new Array(maps.length);
      try {
        const text = docsJson[d]!;
        const doc: unknown = (members !== undefined && readDocMembers(text, members)) || JSON.parse(text);
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
    const mapped = await (await this.sandboxMapper()).mapBatch(inSandbox.map((d) => docsJson[d]!));
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
