/**
 * The back-index: for each document, the row keys it put in each view, so that an update or a
 * deletion removes exactly the rows the document emitted before (CouchDB's id B-tree).
 * Stored compactly: per row, the view number (1 byte), the key length (2 bytes), the key.
 */

export type BackEntry = [view: number, rowKey: Buffer];

export function encodeBackIndex(entries: readonly BackEntry[]): Buffer {
  let size = 0;
  for (const [, key] of entries) size += 3 + key.length;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const [view, key] of entries) {
    out[at] = view;
    out.writeUInt16BE(key.length, at + 1);
    key.copy(out, at + 3);
    at += 3 + key.length;
  }
  return out;
}

export function decodeBackIndex(bytes: Uint8Array): BackEntry[] {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: BackEntry[] = [];
  for (let at = 0; at < buf.length; ) {
    const length = buf.readUInt16BE(at + 1);
    out.push([buf[at], Buffer.from(buf.subarray(at + 3, at + 3 + length))]);
    at += 3 + length;
  }
  return out;
}
