/**
 * False when the string holds a lone surrogate (it would not encode as UTF-8). ES2024's
 * `String.prototype.isWellFormed`, native in V8 on Node 20; TypeScript's es2023 lib lacks its type.
 */
export function isWellFormed(text: string): boolean {
  return (text as unknown as { isWellFormed(): boolean }).isWellFormed();
}

/** The string with each lone surrogate replaced by U+FFFD (what its UTF-8 bytes hold). */
export function toWellFormed(text: string): string {
  return (text as unknown as { toWellFormed(): string }).toWellFormed();
}

/**
 * Code point order (= UTF-8 byte order: SQLite's BINARY collation, PostgreSQL's "C") without
 * encoding. JavaScript's own `<` is UTF-16 order, which puts astral characters before U+E000..U+FFFF.
 */
export function compareCodePoints(a: string, b: string): number {
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
