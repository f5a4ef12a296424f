/**
 * Document ids sort by raw UTF-8 bytes (= code points), as CouchDB's `_all_docs`: not ICU, and not
 * JavaScript's UTF-16 order, which puts astral characters before U+E000..U+FFFF.
 */
export function compareIds(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (astral code points) sort above every other BMP unit in code point order.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}
