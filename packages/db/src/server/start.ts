/**
 * Starts a Divan server: storage engine over the data folder, admins (created on first start),
 * the HTTP listener. `close()` is graceful: it stops accepting connections, lets requests under
 * way finish (writes are synchronous, so a started write is always complete), cuts long-lived
 * feeds after a grace period, then closes storage.
 */
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { loadAdmins } from '../auth/index.js';
import { createListener } from '../http/dispatch.js';
import { openSqliteEngine } from '../storage/sqlite/sqlite-engine.js';
import { CouchServer } from './couch-server.js';

export interface ServerOptions {
  port: number;
  host: string;
  dataDir: string;
  admin?: { name: string; password: string };
  maxBodyBytes?: number;
  durability?: 'normal' | 'full';
  log?: (line: string) => void;
  /** PBKDF2 iterations for newly stored admin hashes (tests lower it; the default is CouchDB's). */
  hashIterations?: number;
}

export interface RunningServer {
  url: string;
  port: number;
  createdAdmin?: { name: string; password: string };
  couch: CouchServer;
  close(): Promise<void>;
}

export const DEFAULT_MAX_BODY = 64 * 1024 * 1024;
const CLOSE_GRACE_MS = 5_000;

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const log = options.log ?? ((line: string) => console.log(line));
  mkdirSync(options.dataDir, { recursive: true });
  const { admins, created } = loadAdmins(
    options.dataDir,
    options.admin,
    options.hashIterations === undefined ? undefined : { iterations: options.hashIterations },
  );
  const engine = openSqliteEngine({ dir: options.dataDir, durability: options.durability });
  const couch = new CouchServer({ engine, admins, maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY, log });
  const http = createServer({ keepAliveTimeout: 5_000 }, createListener(couch));
  const sockets = new Set<Socket>();
  http.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await listen(http, options.port, options.host);
  const port = (http.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`,
    port,
    createdAdmin: created,
    couch,
    close() {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
        http.closeIdleConnections();
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

function listen(http: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
}
