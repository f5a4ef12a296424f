/** @divan/db: a CouchDB-compatible document server, embeddable (`startServer`) or standalone (`divan serve`). */
export { startServer, type ServerOptions, type RunningServer } from './start-server.js';
export { CouchServer } from './server/couch-server.js';
export { Database, SERVER_ADMIN, type WriteResult, type Writer } from './documents/database.js';
export { CouchError } from './errors.js';
export { routes } from './http/routes.js';
export {
  StorageExistsError,
  StorageUnavailableError,
  type Storage,
  type DocumentStore,
  type UpdatePlan,
  type Planner,
  type PurgePlanner,
  type CompactPlanner,
  type AttachmentSweepMark,
} from './storage/contract.js';
export type {
  DocRecord,
  ChangedDoc,
  RevBody,
  DocWrite,
  CompactWrite,
  PurgeWrite,
  PurgeInfo,
  LocalDoc,
  DbMeta,
  IdRange,
  Page,
  Counters,
  AttachmentInfo,
  AttachmentSource,
} from './storage/records.js';
export type {
  ViewIndexStore,
  StoredIndex,
  NodeStore,
  IndexMeta,
  IndexWriter,
  ScratchFile,
} from './storage/view-index-store.js';
export { openDivan, Divan, EmbeddedDb, type EmbeddedOptions, type ViewResult } from './embedded.js';
