import { CouchError } from '../errors.js';
import { report } from './meter.js';
import { SandboxSession, type SessionOptions } from './session.js';

/** A design document's `filters.{name}` function, ready to judge `_changes` rows. */
export interface ChangesFilterRunner {
  /**
   * Calls the filter on each doc (the JSON text of each revision, as `_changes` passes it) with
   * the request object `req` (JSON text): which pass. Rejects with a 400 `filter_error` naming
   * the document when the function throws (CouchDB answers 500), or with the sandbox's failure.
   */
  filterBatch(docsJson: readonly string[], reqJson: string): Promise<boolean[]>;
  dispose(): void;
}

/**
 * Compiles a filter function in a fresh sandbox, `this` bound to the design document (its JSON
 * text). Rejects with 400 `compilation_error` when the source is not a function.
 */
export async function createChangesFilter(
  filter: { name: string; source: string; ddocJson: string },
  options: SessionOptions = {},
): Promise<ChangesFilterRunner> {
  const session = new SandboxSession(
    {
      maps: [],
      reduces: [],
      lib: null,
      reduceLimit: false,
      threshold: 0,
      ratio: 0,
      filter: filter.source,
      ddoc: JSON.parse(filter.ddocJson),
    },
    options,
  );
  const failure = await session.start();
  if (failure !== undefined) {
    session.dispose();
    throw new CouchError(
      'compilation_error',
      `Compilation of the filter function '${filter.name}' failed: ${failure.message}`,
      400,
    );
  }
  return {
    async filterBatch(docsJson: readonly string[], reqJson: string): Promise<boolean[]> {
      if (docsJson.length === 0) return [];
      const what = `filter ${filter.name} of ${docsJson.length} doc(s)`;
      let out: { r?: boolean[]; error?: [string, string | null]; l: string[] };
      try {
        out = JSON.parse(await session.call('filter', `{"docs":[${docsJson.join(',')}],"req":${reqJson}}`, what));
      } catch (error) {
        report({ kind: 'js_filter', docs: docsJson.length, failed: true });
        throw error;
      }
      report({ kind: 'js_filter', docs: docsJson.length, failed: out.error !== undefined });
      for (const line of out.l) session.log(line, 'user');
      if (out.error !== undefined) {
        const [message, id] = out.error;
        session.log(`filter ${filter.name} raised exception ${message} with doc._id ${id}`, 'error');
        throw new CouchError(
          'filter_error',
          `The filter function ${filter.name} raised an exception for doc._id ${id}: ${message}`,
          400,
        );
      }
      return out.r!;
    },
    dispose: () => session.dispose(),
  };
}
