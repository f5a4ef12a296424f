/** @divan/db: a CouchDB-compatible document server, embeddable (`startServer`) or standalone (`divan serve`). */
export { startServer, type ServerOptions, type RunningServer } from './start-server.js';
export { CouchServer } from './server/couch-server.js';
export { Database, type WriteResult } from './documents/database.js';
export { CouchError } from './errors.js';
export { routes } from './http/routes.js';
export type { StorageEngine, DatabaseStore } from './storage/engine.js';
export { openDivan, Divan, EmbeddedDb, type EmbeddedOptions, type ViewResult } from './embedded.js';
