/**
 * Attachment bytes on their way into storage: compressed as CouchDB compresses them (gzip, level
 * 8, for its compressible types), counted against the size limit as they pass, and checked
 * against a declared length. Every check fails the source stream itself, so storage keeps
 * nothing of a refused attachment (see `DocumentStore.putAttachment`).
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { CouchError } from '../errors.js';
import { gcPaced } from '../support/gc-pacer.js';
import type { AttachmentInfo, AttachmentSource } from '../storage/records.js';
import type { DocumentStore } from '../storage/contract.js';

/** CouchDB's `[attachments] compressible_types` defaults, matched case-insensitively with `*` and optional parameters. */
const COMPRESSIBLE = /^(text\/.*|application\/javascript|application\/json|application\/xml)\s*(;.*)?$/is;

export function isCompressible(contentType: string): boolean {
  return COMPRESSIBLE.test(contentType);
}

export interface StoredBytes {
  digest: string;
  /** The identity length (bytes received, when they came gzipped). */
  length: number;
  /** Set when stored as a gzip stream: its length. */
  encodedLength?: number;
}

export interface StoreBytesOptions {
  name: string;
  contentType: string;
  /** The bytes arrive as a gzip stream (`Content-Encoding: gzip`, a multipart part sent gzipped): stored as they are. */
  gzipped?: boolean;
  /** Bytes allowed (identity bytes, or received bytes when gzipped): past it, 413. */
  maxBytes: number;
  /** The bytes the source must give exactly (a multipart part's declared length). */
  expectedLength?: number;
}

/** Stores one attachment's bytes, compressing them when CouchDB would. */
export async function storeAttachmentBytes(
  store: DocumentStore,
  source: AttachmentSource,
  options: StoreBytesOptions,
): Promise<StoredBytes> {
  let received = 0;
  const counted = async function* (): AsyncGenerator<Uint8Array> {
    // Bytes already in memory (inline data) make no garbage worth pacing collections for.
    for await (const chunk of Array.isArray(source) ? source : gcPaced(source)) {
      received += chunk.length;
      if (received > options.maxBytes) throw tooLarge(options.name);
      if (options.expectedLength !== undefined && received > options.expectedLength) throw longer();
      yield chunk;
    }
    if (options.expectedLength !== undefined && received < options.expectedLength) throw shorter();
  };
  if (options.gzipped || !isCompressible(options.contentType)) {
    const info = await store.putAttachment(counted());
    return options.gzipped
      ? { digest: info.digest, length: info.length, encodedLength: info.length }
      : { digest: info.digest, length: info.length };
  }
  const gzip = createGzip({ level: 8 });
  // The pipeline ends the gzip stream with the source's error, so the store's read of it fails too.
  const feeding = pipeline(Readable.from(counted()), gzip).catch(() => {});
  let info: AttachmentInfo;
  try {
    info = await store.putAttachment(gzip);
  } catch (error) {
    gzip.destroy(); // the source is not read on: the request's body stops with it
    throw error;
  }
  await feeding;
  return { digest: info.digest, length: received, encodedLength: info.length };
}

export const tooLarge = (name: string): CouchError => new CouchError('attachment_too_large', name);
export const shorter = (): CouchError => new CouchError('bad_request', 'attachment shorter than expected');
export const longer = (): CouchError => new CouchError('bad_request', 'attachment longer than expected');
