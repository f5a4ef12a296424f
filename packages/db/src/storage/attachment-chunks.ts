/** Attachment bytes cut into the fixed-size chunks both engines store them in. */
import type { AttachmentSource } from './contract.js';

/** The bytes of `source` again, in pieces of exactly `size` bytes (the last one may be shorter). */
export async function* fixedChunks(source: AttachmentSource, size: number): AsyncGenerator<Buffer> {
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
  if (bytes > 0) yield Buffer.concat(pending, bytes);
}
