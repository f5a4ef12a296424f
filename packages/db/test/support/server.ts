/**
 * A real server for integration tests: `startServer` on a loopback port over a fresh temporary
 * data folder, with a known admin (hashed with few PBKDF2 iterations so tests stay fast), and
 * `fetch`-based helpers speaking HTTP to it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type RunningServer, type ServerOptions } from '../../src/start-server.js';
import { dropSchema, freshSchema, testPostgresUrl } from './postgres.js';

export const ADMIN = { name: 'admin', password: 'secret' };
export const AUTH = `Basic ${Buffer.from(`${ADMIN.name}:${ADMIN.password}`).toString('base64')}`;

/** The server's URL with the test admin's credentials in it (as clients such as nano take them). */
export function adminUrl(t: { url: string }): string {
  const url = new URL(t.url);
  url.username = ADMIN.name;
  url.password = ADMIN.password;
  return url.toString();
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON (undefined when it is empty or not JSON). */
  json: any;
}

export interface RequestOptions {
  /** A value sent as JSON, or a string/Buffer sent as is. */
  body?: unknown;
  headers?: Record<string, string>;
  /** false: anonymous; a string: that Authorization header. Default: the admin. */
  auth?: false | string;
}

export interface TestServer {
  url: string;
  dataDir: string;
  /** The PostgreSQL schema it runs on; undefined on SQLite (files in `dataDir`). */
  storage: { url: string; schema: string } | undefined;
  server: RunningServer;
  request(method: string, path: string, options?: RequestOptions): Promise<Reply>;
  /** Stops the server (keeping the data folder). */
  stop(): Promise<void>;
  /** Stops the server and removes its data folder. */
  close(): Promise<void>;
}

/**
 * The storage the HTTP suites run on: SQLite in the data folder, or with DIVAN_TEST_STORAGE=postgres
 * (set by `npm test` for its second pass) a fresh schema of the test PostgreSQL, dropped at close.
 */
export function testStorage(): { url: string; schema: string } | undefined {
  if (process.env.DIVAN_TEST_STORAGE !== 'postgres') return undefined;
  const url = testPostgresUrl();
  if (url instanceof Error) throw url;
  return { url, schema: freshSchema('http') };
}

export async function startTestServer(
  options: {
    dataDir?: string;
    /** A fixed port (a server brought back where its peers expect it); default: a free one. */
    port?: number;
    maxBodyBytes?: number;
    maxAttachmentBytes?: number;
    storage?: { url: string; schema: string };
    /** Receives the server's log lines (default: dropped). */
    log?: (line: string) => void;
    /** Settings of the auth suites (CORS, `users_db_security_editable`, session timeout). */
    settings?: Pick<
      ServerOptions,
      'cors' | 'usersDbSecurityEditable' | 'sessionTimeout' | 'hashIterations' | 'jwt' | 'replicator' | 'nodeName'
    >;
  } = {},
): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'divan-test-'));
  const storage = options.storage ?? (options.dataDir === undefined ? testStorage() : undefined);
  const server = await startServer({
    port: options.port ?? 0,
    host: '127.0.0.1',
    dataDir,
    admin: ADMIN,
    hashIterations: 10,
    maxBodyBytes: options.maxBodyBytes,
    maxAttachmentBytes: options.maxAttachmentBytes,
    log: options.log ?? (() => {}),
    ...options.settings,
    ...(storage === undefined ? {} : { storage }),
  });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await server.close();
    if (storage !== undefined && options.storage === undefined) await dropSchema(storage.url, storage.schema);
  };
  return {
    url: server.url,
    dataDir,
    storage,
    server,
    request: (method, path, requestOptions) => request(server.url, method, path, requestOptions),
    stop,
    async close() {
      await stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function request(
  base: string,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.auth !== false) headers.authorization ??= options.auth ?? AUTH;
  let body: string | Buffer | undefined;
  if (options.body !== undefined) {
    if (typeof options.body === 'string' || Buffer.isBuffer(options.body)) body = options.body;
    else body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(base + path, { method, headers, body, redirect: 'manual' });
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}
