/**
 * Request bodies: read up to the configured limit (413 past it, without buffering the rest),
 * decoded as strict UTF-8 and parsed with the JSON parser that keeps numbers and member order.
 * Both readers fail a body followed by bytes that are no request once it has ended, so a request
 * the client was told failed writes nothing (`checkRequestEnd`).
 */
import { isAscii } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { shorter } from '../documents/attachment-bytes.js';
import { CouchError, invalidJson, tooDeep } from '../errors.js';
import {
  type JsonObject,
  JsonSyntaxError,
  JsonTooDeepError,
  parseJson,
  parseJsonIsolatingDeep,
  type JsonValue,
} from '../json/index.js';
import { POOLED_MIN_BYTES, giveBack, takeBuffer } from './body-buffers.js';
import type { RequestContext } from './context.js';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The largest declared body read into a buffer allocated up front. */
const PREALLOCATE = 8 * 1024 * 1024;

/**
 * The whole body. `allocate` gives the buffer a body with a Content-Length is read into (a
 * pooled one when the caller gives it back once it has decoded it: ./body-buffers.ts).
 */
export async function readBody(
  ctx: RequestContext,
  allocate: (size: number) => Buffer = Buffer.allocUnsafe,
): Promise<Buffer> {
  if (ctx.bufferedBody !== undefined) return ctx.bufferedBody;
  const limit = ctx.server.maxBodyBytes;
  const declared = Number(ctx.req.headers['content-length']);
  if (declared > limit) throw tooLarge();
  // With a Content-Length (up to PREALLOCATE) the chunks are copied straight into one buffer of
  // that size (no chunk list, no concat); without one (chunked), past it, or for a larger body,
  // they are gathered as they come, so memory only grows with the bytes that actually arrive.
  const sized =
    Number.isSafeInteger(declared) && declared > 0 && declared <= PREALLOCATE ? allocate(declared) : undefined;
  if (sized !== undefined && untouched(ctx.req)) {
    const body = await readDeclared(ctx.req, sized);
    checkRequestEnd(ctx);
    return body;
  }
  let chunks: Buffer[] | undefined;
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    const end = size + chunk.length;
    if (end > limit) throw tooLarge();
    if (chunks === undefined && sized !== undefined && end <= sized.length) {
      chunk.copy(sized, size);
    } else {
      chunks ??= sized === undefined ? [] : [sized.subarray(0, size)];
      chunks.push(chunk);
    }
    size = end;
  }
  checkRequestEnd(ctx);
  if (chunks !== undefined) return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
  return sized === undefined ? Buffer.alloc(0) : size === sized.length ? sized : sized.subarray(0, size);
}

/** A request body nothing has read from or listened to yet. */
function untouched(req: IncomingMessage): boolean {
  return !req.readableEnded && !req.destroyed && req.readableFlowing === null && req.listenerCount('data') === 0;
}

/**
 * A body of a declared length (the size of `into`, which Node's parser never lets a message pass),
 * copied into `into` as its chunks come, from the stream's events: an async iterator over them
 * cost more than the copying for a small body. It fails as the iterator did, with the stream's
 * error, or when the stream closes before its end (the client went away).
 */
function readDeclared(req: IncomingMessage, into: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const onData = (chunk: Buffer): void => {
      if (size + chunk.length > into.length) return finish(tooLarge());
      chunk.copy(into, size);
      size += chunk.length;
    };
    const onEnd = (): void => finish(undefined);
    const onClose = (): void => finish(new Error('the request body ended before its declared length'));
    function finish(error: Error | undefined): void {
      req.off('data', onData).off('end', onEnd).off('error', finish).off('close', onClose);
      if (error !== undefined) reject(error);
      else resolve(size === into.length ? into : into.subarray(0, size));
    }
    req.on('data', onData).once('end', onEnd).once('error', finish).once('close', onClose);
  });
}

/**
 * The body as it arrives, for streaming it somewhere (attachments). A body that stops before its
 * end (the client went away, or closed its side early) is the client's mistake: a 400, not a
 * server error, and whatever consumed it sees that error and keeps nothing.
 */
export async function* bodyStream(ctx: RequestContext): AsyncGenerator<Buffer> {
  if (ctx.bufferedBody !== undefined) {
    yield ctx.bufferedBody;
    return;
  }
  try {
    for await (const chunk of ctx.req as AsyncIterable<Buffer>) yield chunk;
  } catch {
    throw shorter();
  }
  checkRequestEnd(ctx);
}

/**
 * Fails the request when Node's parser failed on bytes the client sent right behind it in the
 * same write: behind its body (run once the body has ended, whose end reaches the handler only
 * after the parser is through those bytes), or behind the headers of a request with no body (run
 * by dispatch before any handler). Node then answered a bare 400 and closed the connection: the
 * client was told the request failed, so it must change nothing. Bytes behind a request that
 * make a request of their own are that next request.
 */
export function checkRequestEnd(ctx: RequestContext): void {
  if (isParseError(ctx.req.socket.errored)) {
    throw new CouchError('bad_request', 'The request is followed by bytes that are no request.');
  }
}

/** An error of Node's HTTP parser (llhttp's codes are `HPE_…`). */
function isParseError(error: Error | null): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('HPE_');
}

/** The body parsed as JSON; `requireJsonType` for the POST endpoints that check Content-Type (415). */
export async function readJson(ctx: RequestContext, requireJsonType = false): Promise<JsonValue> {
  if (requireJsonType) checkJsonType(ctx);
  if (ctx.bufferedBody !== undefined) return parseBody(ctx.bufferedBody);
  return readPooled(ctx, parseBody);
}

/**
 * The body read and handed to `parse`: a large one into a reused buffer (./body-buffers.ts),
 * free again as soon as `parse` returns or throws (parsing copies it into a string).
 */
async function readPooled<T>(ctx: RequestContext, parse: (bytes: Buffer) => T): Promise<T> {
  let pooled: Buffer | undefined;
  try {
    return parse(
      await readBody(ctx, (size) =>
        size >= POOLED_MIN_BYTES ? (pooled = takeBuffer(size)) : Buffer.allocUnsafe(size),
      ),
    );
  } finally {
    if (pooled !== undefined) giveBack(pooled);
  }
}

export function parseBody(bytes: Buffer): JsonValue {
  return parseText(bodyText(bytes), parseJson);
}

/**
 * The body parsed as JSON, but an element of its `docs` list (`_bulk_docs`) nested too deep is
 * set apart (json/parse.ts `parseJsonIsolatingDeep`) instead of failing the request, so that
 * document alone can be refused.
 */
export async function readJsonIsolatingDeep(
  ctx: RequestContext,
): Promise<{ value: JsonValue; tooDeep: Map<JsonObject, string> }> {
  checkJsonType(ctx);
  return readPooled(ctx, (bytes) => parseText(bodyText(bytes), (t) => parseJsonIsolatingDeep(t, 'docs')));
}

function parseText<T>(text: string, parse: (text: string) => T): T {
  try {
    return parse(text);
  } catch (error) {
    if (error instanceof JsonTooDeepError) throw tooDeep();
    if (error instanceof JsonSyntaxError) throw invalidJson();
    throw error;
  }
}

function bodyText(bytes: Buffer): string {
  let text: string;
  // Pure ASCII (the common case) is valid UTF-8 as it is: a Latin-1 read gives the same string
  // without the strict decoder's checks.
  if (isAscii(bytes)) text = bytes.toString('latin1');
  else {
    try {
      text = utf8.decode(bytes);
    } catch {
      throw invalidJson();
    }
  }
  return text;
}

/** 415 unless the request says `application/json` (parameters such as charset allowed). */
export function checkJsonType(ctx: RequestContext): void {
  const type = ctx.req.headers['content-type'] ?? '';
  if (type.split(';')[0]!.trim().toLowerCase() !== 'application/json') {
    throw new CouchError('bad_content_type', 'Content-Type must be application/json');
  }
}

const tooLarge = (): CouchError => new CouchError('too_large', 'the request entity is too large');
