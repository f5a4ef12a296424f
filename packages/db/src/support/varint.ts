/** Unsigned LEB128 varints (7 bits a byte, low first), for the index's compact binary records. */

export function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    size++;
  }
  return size;
}

/** Writes `n` at `at`; returns the offset after it. */
export function writeVarint(out: Buffer, at: number, n: number): number {
  while (n >= 0x80) {
    out[at++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 0x80);
  }
  out[at++] = n;
  return at;
}

/** Reads a varint at `at.i`, advancing it. */
export function readVarint(buf: Buffer, at: { i: number }): number {
  let n = 0;
  let scale = 1;
  for (;;) {
    const byte = buf[at.i++]!;
    n += (byte & 0x7f) * scale;
    if (byte < 0x80) return n;
    scale *= 0x80;
  }
}

/** A varint, or -1 when the buffer ends before it does. */
export function tryVarint(buf: Buffer, at: { i: number }): number {
  let n = 0;
  let scale = 1;
  for (;;) {
    if (at.i >= buf.length) return -1;
    const byte = buf[at.i++]!;
    n += (byte & 0x7f) * scale;
    if (byte < 0x80) return n;
    scale *= 0x80;
  }
}
