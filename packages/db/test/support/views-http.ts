/**
 * Helpers shared by the HTTP view tests (views-http-*.test.ts): building view URLs with JSON
 * params encoded as CouchDB expects, seeding a database, and asserting answers and errors.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { AUTH, type Reply, type RequestOptions, type TestServer } from './server.js';

/** Params whose values are JSON text in a query string. */
const JSON_PARAMS = new Set(['key', 'keys', 'startkey', 'endkey', 'start_key', 'end_key']);

/**
 * Params in the order given: an object (member order) or a list of pairs (for repeated names).
 * JSON-valued params take any value (JSON-encoded); the others are sent as their text. A string
 * value for a JSON param can be sent raw by wrapping it: `{ raw: 'b' }`.
 */
export type Params = Record<string, unknown> | [string, unknown][];

export interface Raw {
  raw: string;
}
export const raw = (text: string): Raw => ({ raw: text });

export function qs(params: Params = {}): string {
  const pairs = Array.isArray(params) ? params : Object.entries(params);
  if (pairs.length === 0) return '';
  const parts = pairs.map(([name, value]) => {
    let text: string;
    if (typeof value === 'object' && value !== null && 'raw' in value && Object.keys(value).length === 1) {
      text = (value as Raw).raw;
    } else if (JSON_PARAMS.has(name)) {
      text = JSON.stringify(value);
    } else {
      text = String(value);
    }
    return `${encodeURIComponent(name)}=${encodeURIComponent(text)}`;
  });
  return `?${parts.join('&')}`;
}

export interface ViewClient {
  path(view: string, params?: Params): string;
  get(view: string, params?: Params, options?: RequestOptions): Promise<Reply>;
  post(view: string, body: unknown, params?: Params, options?: RequestOptions): Promise<Reply>;
  /** GET that must answer 200; the parsed body. */
  ok(view: string, params?: Params): Promise<any>;
  /** POST that must answer 200; the parsed body. */
  postOk(view: string, body: unknown, params?: Params): Promise<any>;
}

export function viewClient(t: TestServer, db: string, ddoc: string): ViewClient {
  const path = (view: string, params?: Params) => `/${db}/_design/${ddoc}/_view/${view}${qs(params)}`;
  const client: ViewClient = {
    path,
    get: (view, params, options) => t.request('GET', path(view, params), options),
    post: (view, body, params, options) => t.request('POST', path(view, params), { ...options, body }),
    async ok(view, params) {
      const r = await client.get(view, params);
      assert.equal(r.status, 200, `GET ${path(view, params)} → ${r.status} ${r.text}`);
      return r.json;
    },
    async postOk(view, body, params) {
      const r = await client.post(view, body, params);
      assert.equal(r.status, 200, `POST ${path(view, params)} ${JSON.stringify(body)} → ${r.status} ${r.text}`);
      return r.json;
    },
  };
  return client;
}

/** Creates `db`, writes `docs` (one _bulk_docs) and the design docs `{name: body}`. */
export async function seed(
  t: TestServer,
  db: string,
  docs: object[],
  ddocs: Record<string, object> = {},
): Promise<void> {
  const created = await t.request('PUT', `/${db}`);
  assert.equal(created.status, 201, created.text);
  if (docs.length > 0) {
    const bulk = await t.request('POST', `/${db}/_bulk_docs`, { body: { docs } });
    assert.equal(bulk.status, 201, bulk.text);
    for (const result of bulk.json) assert.ok(result.ok, JSON.stringify(result));
  }
  for (const [name, body] of Object.entries(ddocs)) await putDdoc(t, db, name, body);
}

export async function putDdoc(t: TestServer, db: string, name: string, body: object): Promise<string> {
  const r = await t.request('PUT', `/${db}/_design/${name}`, { body });
  assert.equal(r.status, 201, `PUT _design/${name}: ${r.text}`);
  return r.json.rev;
}

/** Writes (creates or updates) one document; its new rev. */
export async function putDoc(t: TestServer, db: string, doc: Record<string, unknown>): Promise<string> {
  const id = doc._id as string;
  const current = await t.request('GET', `/${db}/${encodeURIComponent(id)}`);
  const body = current.status === 200 ? { ...doc, _rev: current.json._rev } : doc;
  const r = await t.request('PUT', `/${db}/${encodeURIComponent(id)}`, { body });
  assert.equal(r.status, 201, r.text);
  return r.json.rev;
}

export async function deleteDoc(t: TestServer, db: string, id: string): Promise<void> {
  const current = await t.request('GET', `/${db}/${encodeURIComponent(id)}`);
  assert.equal(current.status, 200, current.text);
  const r = await t.request('DELETE', `/${db}/${encodeURIComponent(id)}?rev=${current.json._rev}`);
  assert.equal(r.status, 200, r.text);
}

export async function dbSeq(t: TestServer, db: string): Promise<number> {
  return (await t.request('GET', `/${db}`)).json.update_seq;
}

export const ids = (answer: { rows: { id?: string }[] }): (string | undefined)[] => answer.rows.map((row) => row.id);
export const keys = (answer: { rows: { key: unknown }[] }): unknown[] => answer.rows.map((row) => row.key);

/** Asserts an error reply: status, `error`, and (when given) the exact `reason`; the body is only those. */
export function assertError(r: Reply, status: number, error: string, reason?: string | RegExp): void {
  const context = `${r.status} ${r.text}`;
  assert.equal(r.status, status, context);
  assert.equal(r.json?.error, error, context);
  assert.equal(typeof r.json?.reason, 'string', context);
  if (typeof reason === 'string') assert.equal(r.json.reason, reason, context);
  else if (reason !== undefined) assert.match(r.json.reason, reason, context);
  assert.deepEqual(
    Object.keys(r.json).filter((k) => k !== 'ref'),
    ['error', 'reason'],
    context,
  );
}

export interface RawReply {
  status: number;
  /** Header names lower-cased, as node:http gives them. */
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * A request through node:http (not fetch): exactly the headers given (no default Accept), and
 * the response's framing headers (Transfer-Encoding, Content-Length) as sent.
 */
export function rawRequest(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(path, base), { method, headers: { authorization: AUTH, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
