/**
 * A string's UTF-8 bytes written by a loop when it is short ASCII (row keys' and values' JSON,
 * doc ids): cheaper than a call into `Buffer.write`, which was ~5% of an index build's samples
 * at several calls per row (issue #31). Anything else goes through `Buffer.write`.
 */

/** Strings longer than this go to `Buffer.write` at once (the loop's edge is gone by then). */
const SHORT = 64;

/** Writes `text` as UTF-8 at `at` (room for `3 * text.length` bytes is the caller's); returns the byte count. */
export function writeUtf8(buf: Buffer, text: string, at: number): number {
  const n = text.length;
  if (n > SHORT) return buf.write(text, at, 'utf8');
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return buf.write(text, at, 'utf8');
    buf[at + i] = c;
  }
  return n;
}
