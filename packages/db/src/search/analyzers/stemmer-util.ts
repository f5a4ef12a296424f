/**
 * What Lucene's light stemmers share (StemmerUtil): they work on a term's UTF-16 units in place,
 * with a length that shrinks; these are its two helpers and the chain step that runs a stemmer.
 */
import type { Token } from '../tokenizers.js';

/** Whether the first `len` units of `s` end with `suffix`. */
export function endsWith(s: readonly string[], len: number, suffix: string): boolean {
  if (suffix.length > len) return false;
  for (let i = 0; i < suffix.length; i++) if (s[len - suffix.length + i] !== suffix[i]) return false;
  return true;
}

/** Removes the unit at `pos`; the new length. */
export function deleteAt(s: string[], pos: number, len: number): number {
  s.splice(pos, 1);
  return len - 1;
}

/** Each token's text through a stemmer of `(units, length) → new length`. */
export function stemmed(tokens: Token[], stem: (s: string[], len: number) => number): Token[] {
  for (const token of tokens) {
    const units = token.text.split('');
    token.text = units.slice(0, stem(units, units.length)).join('');
  }
  return tokens;
}

/** A single UTF-16 unit that is a letter (Java's Character.isLetter(char)). */
export function isLetter(unit: string | undefined): boolean {
  return unit !== undefined && /^\p{L}$/u.test(unit);
}
