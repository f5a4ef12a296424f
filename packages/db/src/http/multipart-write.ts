/**
 * The multipart answers, byte for byte as CouchDB writes them (chttpd_db:send_doc_efficiently,
 * send_docs_multipart, _bulk_get): a document with its attachments as `multipart/related`, and
 * several of them in a `multipart/mixed`. Attachment parts go in their stored encoding and are
 * streamed from storage.
 */
import type { Attachment } from '../documents/attachment.js';
import type { OpenedDoc } from '../documents/database.js';

/** Reads an attachment's stored bytes. */
export type BytesOf = (att: Attachment) => AsyncIterable<Uint8Array>;

export interface Related {
  /** Total bytes (the document answer sends a Content-Length). */
  length: number;
  parts: AsyncGenerator<Uint8Array>;
}

/** `--B` JSON part, one part per following attachment, `--B--` (no CRLF around the outside). */
export function relatedParts(boundary: string, doc: OpenedDoc, bytesOf: BytesOf): Related {
  const head = Buffer.from(`--${boundary}\r\nContent-Type: application/json\r\n\r\n${doc.json}`);
  const heads = doc.following.map((att) => {
    let text = `\r\n--${boundary}\r\nContent-Disposition: attachment; filename=${JSON.stringify(att.name)}\r\n`;
    text += `Content-Type: ${att.contentType}\r\nContent-Length: ${storedLength(att)}\r\n`;
    if (att.encodedLength !== undefined) text += 'Content-Encoding: gzip\r\n';
    return Buffer.from(`${text}\r\n`);
  });
  const tail = Buffer.from(`\r\n--${boundary}--`);
  let length = head.length + tail.length;
  doc.following.forEach((att, k) => {
    length += heads[k]!.length + storedLength(att);
  });
  const parts = async function* (): AsyncGenerator<Uint8Array> {
    yield head;
    for (const [k, att] of doc.following.entries()) {
      yield heads[k]!;
      yield* bytesOf(att);
    }
    yield tail;
  };
  return { length, parts: parts() };
}

function storedLength(att: Attachment): number {
  return att.encodedLength ?? att.length;
}

/** One part of a `multipart/mixed` answer: its headers (without the delimiter) and body. */
export interface MixedPart {
  headers: string[];
  body: AsyncIterable<Uint8Array> | Uint8Array;
}

/** The part of one document in a mixed answer: `multipart/related` when attachments follow, else its JSON. */
export function documentPart(doc: OpenedDoc, bytesOf: BytesOf, innerBoundary: string, extra: string[] = []): MixedPart {
  if (doc.following.length === 0) {
    return { headers: ['Content-Type: application/json'], body: Buffer.from(doc.json) };
  }
  return {
    headers: [...extra, `Content-Type: multipart/related; boundary="${innerBoundary}"`],
    body: relatedParts(innerBoundary, doc, bytesOf).parts,
  };
}

/** An error entry of a mixed answer. */
export function errorPart(json: string): MixedPart {
  return { headers: ['Content-Type: application/json; error="true"'], body: Buffer.from(json) };
}

/** `open_revs` as multipart/mixed: `--O`, then `\r\n<headers>\r\n\r\n<body>\r\n--O` per part, then `--`. */
export async function* mixedParts(
  boundary: string,
  parts: AsyncIterable<MixedPart> | Iterable<MixedPart>,
): AsyncGenerator<Uint8Array> {
  yield Buffer.from(`--${boundary}`);
  for await (const part of parts) {
    yield Buffer.from(`\r\n${part.headers.join('\r\n')}\r\n\r\n`);
    if (part.body instanceof Uint8Array) yield part.body;
    else yield* part.body;
    yield Buffer.from(`\r\n--${boundary}`);
  }
  yield Buffer.from('--');
}

/** `_bulk_get` as multipart/mixed: each part `\r\n--B\r\n<headers>\r\n\r\n<body>`, then `\r\n--B--\r\n`. */
export function bulkGetParts(boundary: string, parts: AsyncIterable<MixedPart>): AsyncGenerator<Uint8Array> {
  // A replicator's batch is thousands of small pieces (headers, JSON, a few KB of attachment):
  // written one by one, the socket writes cost more than reading them.
  return gathered(bulkGetPieces(boundary, parts));
}

async function* bulkGetPieces(boundary: string, parts: AsyncIterable<MixedPart>): AsyncGenerator<Uint8Array> {
  for await (const part of parts) {
    yield Buffer.from(`\r\n--${boundary}\r\n${part.headers.join('\r\n')}\r\n\r\n`);
    if (part.body instanceof Uint8Array) yield part.body;
    else yield* part.body;
  }
  yield Buffer.from(`\r\n--${boundary}--\r\n`);
}

/** Bytes per write of a gathered answer. */
const GATHERED_BYTES = 64 * 1024;

/** The same bytes in pieces of at least `size` (but the last): small pieces joined, large ones passed on. */
export async function* gathered(pieces: AsyncIterable<Uint8Array>, size = GATHERED_BYTES): AsyncGenerator<Uint8Array> {
  let pending: Uint8Array[] = [];
  let bytes = 0;
  for await (const piece of pieces) {
    pending.push(piece);
    bytes += piece.length;
    if (bytes < size) continue;
    yield pending.length === 1 ? piece : Buffer.concat(pending, bytes);
    pending = [];
    bytes = 0;
  }
  if (bytes > 0) yield pending.length === 1 ? pending[0]! : Buffer.concat(pending, bytes);
}
