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
