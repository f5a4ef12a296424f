/**
 * Responses. JSON bodies are written as text we already have (stored documents are never parsed
 * again to be sent). Row streams hold status and headers back until the first chunk, so an error
 * before any row still gets a clean error response; a later one cuts the connection.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ServerResponse } from 'node:http';
import type { CouchError } from '../errors.js';
import type { RequestContext } from './context.js';
import { JSONP_END, JSONP_TYPE, jsonpStart } from './jsonp.js';
import { CouchResponse, REQUEST_ID_HEADER } from './couch-response.js';

const JSON_TYPE = 'application/json';
const MUST_REVALIDATE = 'must-revalidate';

export function sendJson(ctx: RequestContext, status: number, value: unknown, headers?: Record<string, string>): void {
  sendText(ctx, status, JSON.stringify(value), headers);
}

/** Sends JSON text as it is (plus the newline CouchDB ends bodies with). */
export function sendText(ctx: RequestContext, status: number, json: string, headers?: Record<string, string>): void {
  sendBytes(ctx, status, `${json}\n`, headers);
}

/** Sends a whole JSON body (newline included), with its length. */
export function sendBytes(
  ctx: RequestContext,
  status: number,
  body: string | Buffer,
  headers?: Record<string, string>,
): void {
  const { res } = ctx;
  if (res instanceof CouchResponse && res.headless && status !== 304 && ctx.jsonp === undefined) {
    const head = headList(res.pendingRequestId!, body, headers);
    if (head !== undefined) {
      res.writeWhole(status, head);
      if (ctx.method === 'HEAD') res.end();
      else res.end(body);
      return;
    }
  }
  res.statusCode = status;
  if (status !== 304) res.setHeader('Content-Type', JSON_TYPE);
  res.setHeader('Cache-Control', MUST_REVALIDATE);
  if (headers !== undefined) for (const name in headers) res.setHeader(name, headers[name]!);
  // A 304 has no body, and says nothing of one.
  if (status === 304) return void res.end();
  if (ctx.jsonp !== undefined && res.getHeader('Content-Type') !== undefined) {
    res.setHeader('Content-Type', JSONP_TYPE);
    const json = body.toString();
    body = `${jsonpStart(ctx.jsonp)}${json.endsWith('\n') ? json.slice(0, -1) : json}${JSONP_END}\n`;
  }
  if (ctx.method === 'HEAD') res.setHeader('Content-Length', Buffer.byteLength(body)).end();
  else res.setHeader('Content-Length', Buffer.byteLength(body)).end(body);
}

/**
 * The head `sendBytes` sends, as one list of names and values in the order its `setHeader` calls
 * would put them: the request id, Content-Type, Cache-Control, `headers`, Content-Length.
 * Undefined when `headers` names one of those (it replaces it in place: `setHeader` does that).
 */
function headList(
  requestId: string,
  body: string | Buffer,
  headers: Record<string, string> | undefined,
): (string | number)[] | undefined {
  const head: (string | number)[] = [
    REQUEST_ID_HEADER,
    requestId,
    'Content-Type',
    JSON_TYPE,
    'Cache-Control',
    MUST_REVALIDATE,
  ];
  if (headers !== undefined) {
    for (const name in headers) {
      if (name.length >= 12 && name.length <= 14 && OWN_HEADERS.has(name.toLowerCase())) return undefined;
      head.push(name, headers[name]!);
    }
  }
  head.push('Content-Length', Buffer.byteLength(body));
  return head;
}

/** The headers sendBytes sets itself, lowercased (all 12 to 14 characters long). */
const OWN_HEADERS = new Set(['content-type', 'cache-control', 'content-length']);

/** An opaque, quoted ETag as CouchDB makes them (base-36 MD5 of what the answer depends on). */
export function opaqueEtag(...parts: readonly (string | number)[]): string {
  const digest = createHash('md5').update(parts.join('\n')).digest('hex');
  return `"${BigInt(`0x${digest}`).toString(36).toUpperCase()}"`;
}

/**
 * Whether the request's `If-None-Match` names `etag` (CouchDB's etag_match): one of a list, in
 * its strong or its weak (`W/`) form.
 */
export function ifNoneMatch(ctx: RequestContext, etag: string): boolean {
  const header = ctx.req.headers['if-none-match'];
  if (header === undefined) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === etag || t === `W/${etag}`;
  });
}

export function sendError(ctx: RequestContext, error: CouchError, headers?: Record<string, string>): void {
  sendJson(ctx, error.status, error.toJSON(), headers);
}

import { rowIterator, type Rows } from '../support/rows.js';

export type { Rows } from '../support/rows.js';

/** Every row, joined with `,` (for answers built whole). */
export async function joinRows(rows: Rows): Promise<string> {
  const all: string[] = [];
  for await (const row of rows) all.push(row);
  return all.join(',');
}

/** Bytes of rows a streamed answer gathers before its first write, then before each next one. */
const FIRST_CHUNK_BYTES = 2048;
const CHUNK_BYTES = 64 * 1024;

/**
 * Streams `head` + rows joined by commas + `tail`, chunked, honouring backpressure and stopping
 * the fold when the client goes away. `rows` is read lazily: nothing is held beyond a chunk.
 */
export async function streamRows(
  ctx: RequestContext,
  status: number,
  head: string,
  rows: Rows,
  tail: () => string | Promise<string>,
  headers?: Record<string, string>,
): Promise<void> {
  const { res } = ctx;
  const iterator = rowIterator(rows);
  // Pull the first row before committing to a status: errors here still become clean responses.
  let next = await iterator.next();
  if (!startRows(ctx, status, headers)) {
    await iterator.return?.();
    return;
  }
  let buffer = ctx.jsonp === undefined ? head : jsonpStart(ctx.jsonp) + head;
  let first = true;
  let written = false;
  while (!next.done) {
    buffer += first ? `\r\n${next.value}` : `,\r\n${next.value}`;
    first = false;
    // A long answer starts going out after its first rows (its first byte need not wait for a
    // whole chunk of rows), then 64 KiB at a time; a short one is still one write.
    if (buffer.length >= (written ? CHUNK_BYTES : FIRST_CHUNK_BYTES)) {
      if (!(await write(res, buffer))) {
        await iterator.return?.();
        return;
      }
      buffer = '';
      // Node corks the socket at a response's first write until the next tick, which rows
      // read in one run of promise jobs would put off: a turn of the event loop sends it now.
      if (!written) await new Promise<void>((resolve) => setImmediate(resolve));
      written = true;
    }
    next = await iterator.next();
  }
  buffer += `${first ? '' : '\r\n'}${await tail()}${ctx.jsonp === undefined ? '' : JSONP_END}\n`;
  // write + end, not end(buffer): a streamed answer is always chunked, however short.
  res.write(buffer);
  res.end();
}

/** Sends a whole row stream kept as its bytes (../views/query/answer-cache.ts), chunked as streamRows sends. */
export function sendRowBytes(
  ctx: RequestContext,
  status: number,
  bytes: Buffer,
  headers?: Record<string, string>,
): void {
  if (!startRows(ctx, status, headers)) return;
  if (ctx.jsonp === undefined) ctx.res.write(bytes);
  else {
    const text = bytes.toString();
    ctx.res.write(`${jsonpStart(ctx.jsonp)}${text.endsWith('\n') ? text.slice(0, -1) : text}${JSONP_END}\n`);
  }
  ctx.res.end();
}

/** Status and headers of a row stream; false (and the response ended) for HEAD. */
function startRows(ctx: RequestContext, status: number, headers: Record<string, string> | undefined): boolean {
  const { res } = ctx;
  res.statusCode = status;
  res.setHeader('Content-Type', JSON_TYPE);
  res.setHeader('Cache-Control', MUST_REVALIDATE);
  if (headers !== undefined) for (const name in headers) res.setHeader(name, headers[name]!);
  if (ctx.jsonp !== undefined) res.setHeader('Content-Type', JSONP_TYPE);
  if (ctx.method !== 'HEAD') return true;
  res.end();
  return false;
}

/** Writes a chunk; resolves false when the client has gone. */
export function write(res: ServerResponse, chunk: string): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  if (res.write(chunk)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(ok);
    };
    const onDrain = () => done(true);
    const onClose = () => done(false);
    res.on('drain', onDrain);
    res.on('close', onClose);
  });
}

/** Whether an If-None-Match header (it may list several ETags, or `*`) names the answer's ETag. */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === etag || t === '*' || t === `W/${etag}`;
  });
}

/** Bodies up to this size are sent in one write (a stream pipeline costs more than the copy). */
const SMALL_BODY_BYTES = 256 * 1024;

/**
 * Streams bytes as the body (status and headers already set; nothing for HEAD), with
 * backpressure; a client that goes away stops the read.
 */
export async function streamBytes(
  ctx: RequestContext,
  bytes: AsyncIterable<Uint8Array>,
  /** The body's size when known: a small one is read whole and sent in one write. */
  size?: number,
): Promise<void> {
  if (ctx.method === 'HEAD') return void ctx.res.end();
  if (size !== undefined && size <= SMALL_BODY_BYTES) {
    const chunks: Uint8Array[] = [];
    for await (const chunk of bytes) chunks.push(chunk);
    return void ctx.res.end(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
  }
  try {
    await pipeline(Readable.from(bytes), ctx.res);
  } catch {
    if (!ctx.res.writableEnded) ctx.res.destroy();
  }
}
