/**
 * Attachment bytes on their way into storage: compressed as CouchDB compresses them (stock
 * zlib's gzip at `[attachments] compression_level`, default 8, for its compressible types), counted against the size limit as they pass, and checked
 * against a declared length. Every check fails the source stream itself, so storage keeps
 * nothing of a refused attachment (see `DocumentStore.putAttachment`).
 */
import { createHash } from 'node:crypto';
import { CouchError } from '../errors.js';
import { gcPaced } from '../support/gc-pacer.js';
import type { AttachmentSource } from '../storage/records.js';
import type { DocumentStore } from '../storage/contract.js';
import { stockGzip } from './stock-gzip.js';

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
  /** `md5-` digest of the bytes as received (the identity bytes): `digest` unless compressed here. */
  receivedDigest: string;
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
  /** CouchDB's `[attachments] compression_level`: 1..9, 0 stores compressible types as they are. Default 8. */
  compressionLevel?: number;
}

/** CouchDB's default `[attachments] compression_level`. */
export const DEFAULT_COMPRESSION_LEVEL = 8;

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
  const level = options.compressionLevel ?? DEFAULT_COMPRESSION_LEVEL;
  if (options.gzipped || level === 0 || !isCompressible(options.contentType)) {
    const info = await store.putAttachment(counted());
    return options.gzipped
      ? { digest: info.digest, length: info.length, encodedLength: info.length, receivedDigest: info.digest }
      : { digest: info.digest, length: info.length, receivedDigest: info.digest };
  }
  // What was received is hashed too: CouchDB checks a declared digest against those bytes.
  const hash = createHash('md5');
  const hashed = async function* (): AsyncGenerator<Uint8Array> {
    for await (const chunk of counted()) {
      hash.update(chunk);
      yield chunk;
    }
  };
  // A failing source fails the gzip stream the store reads, so the store keeps nothing of it.
  const info = await store.putAttachment(stockGzip(hashed(), level));
  const receivedDigest = `md5-${hash.digest('base64')}`;
  return { digest: info.digest, length: received, encodedLength: info.length, receivedDigest };
}

export const tooLarge = (name: string): CouchError => new CouchError('attachment_too_large', name);
export const shorter = (): CouchError => new CouchError('bad_request', 'attachment shorter than expected');
export const longer = (): CouchError => new CouchError('bad_request', 'attachment longer than expected');
