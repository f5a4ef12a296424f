/**
 * CouchDB-protocol peers from npm for the replication interop tests: PouchDB 9 in node (memory
 * adapter, plus the http adapter to reach servers) and express-pouchdb 4.2 (a CouchDB-protocol
 * HTTP server over in-memory PouchDB databases) on a loopback port.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The PouchDB packages ship no type declarations: used untyped, as in a plain JS application. */
export type PouchDBClass = any;

let core: PouchDBClass;

/**
 * A PouchDB class whose databases live in memory (names are URLs for remote ones). The plugins
 * change PouchDB's one prototype, so they are added once; the memory adapter keeps databases by
 * name for the whole process, so peers use names of their own.
 */
export function pouchDB(): PouchDBClass {
  core ??= require('pouchdb-core')
    .plugin(require('pouchdb-adapter-memory'))
    .plugin(require('pouchdb-adapter-http'))
    .plugin(require('pouchdb-mapreduce'))
    .plugin(require('pouchdb-replication'));
  return core.defaults({ adapter: 'memory' });
}

export interface PouchServer {
  url: string;
  close(): Promise<void>;
}

/** express-pouchdb in its minimal mode (no auth, config kept in memory) on a loopback port. */
export async function startPouchServer(): Promise<PouchServer> {
  // express-pouchdb's own app (its express 4): it sets `req.query`, which express 5 refuses.
  const app = require('express-pouchdb')(pouchDB(), { mode: 'minimumForPouchDB', inMemoryConfig: true });
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
