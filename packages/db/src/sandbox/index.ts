/**
 * Map execution for CouchDB views: user JavaScript in a sandbox with CouchDB's environment.
 *
 * Contract for the index builder:
 * - One {@link Mapper} per design-doc signature (map sources + views.lib), created once with
 *   `createMapper({views, lib}, options)` and reused for the whole build; `dispose()` it when
 *   the build ends or the design doc changes. Creating one costs a few ms (fresh V8 isolate).
 * - Feed it batches: `mapBatch(docsJson)` takes the full JSON text of each doc (≈ 500 per
 *   call is a good size; larger batches are split by bytes internally) and resolves with
 *   `rows[doc][view]` = the `[key, value]` rows that view emitted for that doc, in emit order,
 *   already JSON-normalised exactly as CouchDB does (undefined / NaN / Infinity / functions →
 *   null in arrays, dropped in objects, Dates → ISO strings, toJSON honoured).
 * - A map function that throws for a doc loses all its rows for that doc (also rows emitted
 *   before the throw); other views keep theirs. That is reported in `errors` and logged
 *   ("function raised exception … with doc._id …"); the batch itself succeeds.
 * - The batch as a whole rejects with a CouchError when the sandbox fails: time limit
 *   (`os_process_timeout`, `timeoutMs` per call, default 5000), memory cap (`os_process_error`,
 *   `memoryLimitMb`, default 128), or a fatal throw (`throw 'fatal_error'` → `map_runtime_error`;
 *   `throw ['fatal', error, reason]`). CouchDB fails the index update then; the caller should
 *   too (no rows of that batch were produced). The mapper restarts its sandbox and stays usable.
 * - Calls on one mapper run one at a time (queued); use several mappers for parallelism.
 * - Environment of map functions: emit, log, sum, isArray, toJSON, require('views/lib/…')
 *   (CommonJS modules from `views.lib`, paths relative to the design doc, './' and '../'
 *   relative to the requiring module, cached per mapper), the doc deep-frozen. No getRow/send,
 *   no Node APIs, no host objects: the only things crossing the boundary are JSON strings.
 * - Node ≥ 20: isolated-vm needs node started with `--no-node-snapshot` (command line or
 *   NODE_OPTIONS). Without it creating a mapper rejects with `sandbox_unavailable` and says so.
 *
 * The engine is behind {@link SandboxEngine} (`options.engine`), default isolated-vm.
 */
export {
  createMapper,
  type Mapper,
  type MapperOptions,
  type MapDesign,
  type ViewSource,
  type Row,
  type MapError,
  type MapBatchResult,
} from './mapper.js';
export { createChangesFilter, type ChangesFilterRunner } from './filter.js';
export { SandboxSession, type SessionOptions, type SandboxLog } from './session.js';
export { SandboxFailure, type Sandbox, type SandboxEngine, type SandboxFailureKind } from './engine.js';
export { isolatedVmEngine, hasNoNodeSnapshotFlag, checkNodeSnapshotFlag, ALLOW_SNAPSHOT_ENV } from './isolated-vm.js';
export { SANDBOX_RUNTIME } from './runtime.js';
export {
  createRenderRunner,
  type RenderRunner,
  type RenderRunnerOptions,
  type RenderResponse,
  type ListFlush,
  type ListFeed,
} from './render-runner.js';
