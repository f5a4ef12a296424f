/** Attachment bytes in the fixed-size chunks both engines store them in. */
import type { AttachmentSource } from './records.js';

/** Bytes per stored chunk: a range read reads at most this much more than it serves. */
export const ATTACHMENT_CHUNK_BYTES = 256 * 1024;

/** The bytes of `source` again, in pieces of exactly `size` bytes (the last one may be shorter). */
export async function* fixedChunks(source: AttachmentSource, size = ATTACHMENT_CHUNK_BYTES): AsyncGenerator<Buffer> {
  let pending: Uint8Array[] = [];
  let bytes = 0;
  for await (const chunk of source) {
    pending.push(chunk);
    bytes += chunk.length;
    if (bytes < size) continue;
    // Joined once per incoming chunk, then sliced: a large chunk is not copied once per piece.
    const all = Buffer.concat(pending, bytes);
    let at = 0;
    for (; all.length - at >= size; at += size) yield all.subarray(at, at + size);
    pending = at < all.length ? [all.subarray(at)] : [];
    bytes = all.length - at;
  }
  // A source that was one piece (inline data) is passed on as it is, not copied.
  if (bytes > 0)
    yield pending.length === 1
      ? Buffer.from(pending[0]!.buffer, pending[0]!.byteOffset, bytes)
      : Buffer.concat(pending, bytes);
}

/**
 * Bytes `start` up to `end` (exclusive, default: to the end) of an attachment of `length` bytes
 * stored as chunks of `size`, reading only the chunks the range needs. Ends early when a chunk is
 * gone (the attachment was deleted meanwhile).
 */
export async function* chunkRange(
  length: number,
  readChunk: (n: number) => Promise<Uint8Array | undefined> | Uint8Array | undefined,
  start = 0,
  end?: number,
  size = ATTACHMENT_CHUNK_BYTES,
): AsyncGenerator<Uint8Array> {
  const stop = Math.min(end ?? length, length);
  for (let at = Math.max(0, start); at < stop; ) {
    const n = Math.floor(at / size);
    const data = await readChunk(n);
    if (data === undefined) return;
    const to = Math.min(data.length, stop - n * size);
    yield data.subarray(at - n * size, to);
    at = n * size + to;
  }
}
