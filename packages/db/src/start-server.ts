/**
 * Starts a Divan server: storage engine over the data folder, admins (created on first start),
 * the HTTP listener. `close()` is graceful: it stops accepting connections, lets requests under
 * way finish (writes are synchronous, so a started write is always complete), cuts long-lived
 * feeds after a grace period, then closes storage.
 */
import { readFileSync } from 'node:fs';
import { answerUnusualRequests } from './http/unusual-requests.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { loadAdmins } from './auth/index.js';
import { loadSessionSecret } from './auth/session-secret.js';
import { USERS_DB } from './documents/users-db.js';
import { ensureAuthDdoc } from './documents/users-auth-ddoc.js';
import { CouchError } from './errors.js';
import type { CorsOptions } from './http/cors.js';
import type { JwtOptions } from './auth/jwt.js';
import { createListener } from './http/dispatch.js';
import { CouchResponse } from './http/couch-response.js';
import { join, resolve } from 'node:path';
import type { Storage } from './storage/contract.js';
import { openSqliteStorage } from './storage/sqlite/sqlite-storage.js';
import { CouchServer } from './server/couch-server.js';
import type { SchedulerSettings } from './replication/scheduler-settings.js';
import { loadConfig } from './server/config.js';
import { boundServerHeap } from './support/server-heap.js';

export interface ServerOptions {
  /** Default 5984; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default `./data`: the SQLite databases, or with `storage` this node's view indexes. */
  dataDir?: string;
  /**
   * A PostgreSQL URL (or URL and schema, default `divan`): the databases live there, shared by
   * every node that uses it.
   */
  storage?: string | { url: string; schema?: string };
  admin?: { name: string; password: string };
  maxBodyBytes?: number;
  /** The largest attachment accepted, in bytes (default 1 GiB, CouchDB's `max_attachment_size`). */
  maxAttachmentBytes?: number;
  durability?: 'normal' | 'full';
  log?: (line: string) => void;
  /** PBKDF2 iterations for newly stored admin and user hashes (tests lower it; the default is CouchDB's). */
  hashIterations?: number;
  /** Session cookie lifetime in seconds (CouchDB's `[chttpd_auth] timeout`, default 600). */
  sessionTimeout?: number;
  /** Allow `PUT /_users/_security` (CouchDB's `[couchdb] users_db_security_editable`, default false). */
  usersDbSecurityEditable?: boolean;
  /** Bearer-token authentication (CouchDB's `jwt` handler and `[jwt_keys]`); off unless given. */
  jwt?: JwtOptions;
  /** CORS (CouchDB's `[chttpd] enable_cors` and `[cors]`); off unless given. */
  cors?: CorsOptions;
  /**
   * HTTPS on `port` with this certificate (chain) and key, PEM; `httpPort` serves plain HTTP
   * too. Without it, the stored config's `[ssl] enable = true` with `cert_file` and `key_file`
   * (CouchDB's names) turns it on.
   */
  tls?: TlsOptions;
  /**
   * The replication scheduler's settings (CouchDB's `[replicator] max_jobs`, `interval`,
   * `max_churn`, `max_history`, `health_threshold`, Divan's `crash_backoff`, `stall_timeout`);
   * the config API's stored `[replicator]` values go over them.
   */
  replicator?: Partial<SchedulerSettings>;
  /** This node's name in `_scheduler` (default CouchDB's `nonode@nohost`); name each of several nodes. */
  nodeName?: string;
  /**
   * Bound V8's heap growth for a server's memory (default true; process-wide, see
   * ./support/server-heap.ts): the old generation grows to 1.5× its live size between full collections
   * (`--heap-growing-percent=50`, unless node was given one). false leaves V8's default alone.
   */
  boundHeap?: boolean;
}

export interface TlsOptions {
  cert: string | Buffer;
  key: string | Buffer;
  httpPort?: number;
}

export interface RunningServer {
  /** `https://…` under TLS. */
  url: string;
  port: number;
  /** The plain HTTP listener beside HTTPS (`tls.httpPort`). */
  httpUrl?: string;
  createdAdmin?: { name: string; password: string };
  couch: CouchServer;
  close(): Promise<void>;
}

export const DEFAULT_MAX_BODY = 64 * 1024 * 1024;
const CLOSE_GRACE_MS = 5_000;

export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  if (options.boundHeap !== false) boundServerHeap();
  const log = options.log ?? ((line: string) => console.log(line));
  const { port: wantedPort = 5984, host = '127.0.0.1', dataDir = './data' } = options;
  const storage = await openStorage(options.storage, dataDir, options.durability);
  let loaded: Awaited<ReturnType<typeof loadAdmins>>;
  let sessionSecret: string;
  try {
    loaded = await loadAdmins(storage, options.admin, {
      deferWrite: true,
      ...(options.hashIterations === undefined ? {} : { iterations: options.hashIterations }),
    });
    sessionSecret = await loadSessionSecret(storage);
  } catch (error) {
    await storage.close();
    throw error;
  }
  const { admins, save } = loaded;
  const couch = new CouchServer({
    storage,
    admins,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY,
    ...(options.maxAttachmentBytes === undefined ? {} : { maxAttachmentBytes: options.maxAttachmentBytes }),
    log,
    sessionSecret,
    ...(options.hashIterations === undefined ? {} : { hashIterations: options.hashIterations }),
    ...(options.sessionTimeout === undefined ? {} : { sessionTimeoutSec: options.sessionTimeout }),
    ...(options.jwt === undefined ? {} : { jwt: options.jwt }),
    ...(options.cors === undefined ? {} : { cors: options.cors }),
    ...(options.usersDbSecurityEditable === undefined
      ? {}
      : { usersDbSecurityEditable: options.usersDbSecurityEditable }),
    databaseDir: resolve(dataDir),
    ...(options.replicator === undefined ? {} : { replicator: options.replicator }),
    ...(options.nodeName === undefined ? {} : { nodeName: options.nodeName }),
  });
  const listener = createListener(couch);
  let tls: TlsOptions | undefined;
  try {
    await couch.loadUuid();
    tls = options.tls ?? tlsFromConfig((await loadConfig(storage)).ssl);
  } catch (error) {
    await couch.close();
    throw error;
  }
  const http =
    tls === undefined
      ? createServer({ keepAliveTimeout: 5_000, ServerResponse: CouchResponse }, listener)
      : // node:https (and TLS with it, ~1.5 MB resident) loads only for a server that uses it.
        (await import('node:https')).createServer(
          { keepAliveTimeout: 5_000, ServerResponse: CouchResponse, cert: tls.cert, key: tls.key },
          listener,
        );
  const plain =
    tls?.httpPort === undefined
      ? undefined
      : createServer({ keepAliveTimeout: 5_000, ServerResponse: CouchResponse }, listener);
  const servers = plain === undefined ? [http] : [http, plain];
  // CONNECT and requests node's parser cannot read get an HTTP answer, not a closed connection.
  for (const server of servers) answerUnusualRequests(server, listener);
  const sockets = new Set<Socket>();
  for (const server of servers) {
    server.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
  }

  let createdAdmin: RunningServer['createdAdmin'];
  try {
    await listen(http, wantedPort, host);
    if (plain !== undefined) await listen(plain, tls?.httpPort ?? 0, host);
    // Only a server that listens keeps a generated admin (its caller prints the password), and
    // only if no other node starting on the same storage stored the first admin before it.
    createdAdmin = await save();
    await ensureUsersDb(couch);
    await couch.watchConfig();
    couch.startReplicator();
  } catch (error) {
    for (const server of servers) server.close();
    await couch.close();
    throw error;
  }
  const port = (http.address() as AddressInfo).port;
  const hostInUrl = host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    url: `${tls === undefined ? 'http' : 'https'}://${hostInUrl}:${port}`,
    port,
    ...(plain === undefined ? {} : { httpUrl: `http://${hostInUrl}:${(plain.address() as AddressInfo).port}` }),
    ...(createdAdmin === undefined ? {} : { createdAdmin }),
    couch,
    close() {
      closing ??= (async () => {
        // Replications first, while the server still answers their requests to itself.
        await couch.stopReplication();
        const stopped = Promise.all(
          servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
        );
        for (const server of servers) server.closeIdleConnections();
        const timer = setTimeout(() => {
          for (const socket of sockets) socket.destroy();
        }, CLOSE_GRACE_MS);
        await stopped;
        clearTimeout(timer);
        await couch.close();
      })();
      return closing;
    },
  };
}

/**
 * `_users` exists from the first start on, admin-only (CouchDB 3 creates it at setup), with its
 * `_design/_auth`.
 */
async function ensureUsersDb(couch: CouchServer): Promise<void> {
  if ((await couch.storage.open(USERS_DB)) === undefined) {
    try {
      await couch.createDb(USERS_DB);
    } catch (error) {
      // Another node on the same storage created it first.
      if (!(error instanceof CouchError && error.error === 'file_exists')) throw error;
    }
  }
  await ensureAuthDdoc(await couch.db(USERS_DB));
}

/**
 * SQLite in the data folder, or PostgreSQL. With PostgreSQL each node keeps a copy of the
 * shared view indexes in its data folder (see storage/postgres/shared-index.ts).
 */
async function openStorage(
  where: ServerOptions['storage'],
  dataDir: string,
  durability: ServerOptions['durability'],
): Promise<Storage> {
  if (where === undefined) return openSqliteStorage({ dir: dataDir, durability });
  // Loaded only when asked for: the pg driver costs a SQLite server ~15 MB of RSS.
  const { openPostgresStorage } = await import('./storage/postgres/postgres-storage.js');
  return openPostgresStorage({
    ...(typeof where === 'string' ? postgresWhere(where) : where),
    cacheDir: join(dataDir, 'views'),
  });
}

/**
 * A storage URL, with the PostgreSQL schema Divan keeps its tables in as a `schema` parameter
 * (default `divan`): several deployments can share one PostgreSQL database.
 */
function postgresWhere(text: string): { url: string; schema?: string } {
  const url = new URL(text);
  const schema = url.searchParams.get('schema');
  if (schema === null) return { url: text };
  url.searchParams.delete('schema');
  return { url: url.toString(), schema };
}

function listen(http: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
}

/** CouchDB's `[ssl]` section: `enable = true` with `cert_file` and `key_file` serves HTTPS. */
function tlsFromConfig(ssl: Record<string, string> | undefined): TlsOptions | undefined {
  if (ssl?.enable !== 'true') return undefined;
  const { cert_file: certFile, key_file: keyFile } = ssl;
  if (certFile === undefined || keyFile === undefined) {
    throw new Error('[ssl] enable is true but cert_file or key_file is not set');
  }
  const read = (file: string, what: string) => {
    try {
      return readFileSync(file);
    } catch (error) {
      throw new Error(`[ssl] ${what} ${file}: ${(error as Error).message}`);
    }
  };
  return { cert: read(certFile, 'cert_file'), key: read(keyFile, 'key_file') };
}
