/**
 * Request bodies: read up to the configured limit (413 past it, without buffering the rest),
 * decoded as strict UTF-8 and parsed with the JSON parser that keeps numbers and member order.
 */
import { CouchError, invalidJson } from '../errors.js';
import { JsonSyntaxError, parseJson, type JsonValue } from '../json/index.js';
import type { RequestContext } from './context.js';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export async function readBody(ctx: RequestContext): Promise<Buffer> {
  const limit = ctx.server.maxBodyBytes;
  const declared = Number(ctx.req.headers['content-length']);
  if (declared > limit) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw tooLarge();
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
}

/** The body parsed as JSON; `requireJsonType` for the POST endpoints that check Content-Type (415). */
export async function readJson(ctx: RequestContext, requireJsonType = false): Promise<JsonValue> {
  if (requireJsonType) checkJsonType(ctx);
  return parseBody(await readBody(ctx));
}

export function parseBody(bytes: Buffer): JsonValue {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw invalidJson();
  }
  try {
    return parseJson(text);
  } catch (error) {
    if (error instanceof JsonSyntaxError) throw invalidJson();
    throw error;
  }
}

/** 415 unless the request says `application/json` (parameters such as charset allowed). */
export function checkJsonType(ctx: RequestContext): void {
  const type = ctx.req.headers['content-type'] ?? '';
  if (type.split(';')[0].trim().toLowerCase() !== 'application/json') {
    throw new CouchError('bad_content_type', 'Content-Type must be application/json');
  }
}

const tooLarge = (): CouchError => new CouchError('too_large', 'the request entity is too large');
