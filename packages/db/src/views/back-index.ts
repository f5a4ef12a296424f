/**
 * The back-index: for each document, the row keys it put in each view, so that an update or a
 * deletion removes exactly the rows the document emitted before (CouchDB's id B-tree).
 * Stored compactly: per row, the view number and the key length as varints, then the key.
 */

export type BackEntry = [view: number, rowKey: Buffer];

export function encodeBackIndex(entries: readonly BackEntry[]): Buffer {
  let size = 0;
  for (const [view, key] of entries) size += varintSize(view) + varintSize(key.length) + key.length;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const [view, key] of entries) {
    at = writeVarint(out, at, view);
    at = writeVarint(out, at, key.length);
    at += key.copy(out, at);
  }
  return out;
}

export function decodeBackIndex(bytes: Uint8Array): BackEntry[] {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: BackEntry[] = [];
  const at = { i: 0 };
  while (at.i < buf.length) {
    const view = readVarint(buf, at);
    const length = readVarint(buf, at);
    out.push([view, Buffer.from(buf.subarray(at.i, at.i + length))]);
    at.i += length;
  }
  return out;
}

function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    size++;
  }
  return size;
}

function writeVarint(out: Buffer, at: number, n: number): number {
  while (n >= 0x80) {
    out[at++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 0x80);
  }
  out[at++] = n;
  return at;
}

function readVarint(buf: Buffer, at: { i: number }): number {
  let n = 0;
  let scale = 1;
  for (;;) {
    const byte = buf[at.i++];
    n += (byte & 0x7f) * scale;
    if (byte < 0x80) return n;
    scale *= 0x80;
  }
}
