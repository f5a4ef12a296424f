/**
 * The regions Snowball's stemmers mark before they strip suffixes, over a language's vowels:
 * R1 (past the first non-vowel that follows a vowel), R2 (the same again from R1) and the
 * Romance RV. Each is a position in the word; the word's length when the region is empty.
 */

/** Past the first letter at `from` or after that is a vowel (`vowel` true) or is not. */
export function pastNext(word: string, from: number, vowels: ReadonlySet<string>, vowel: boolean): number {
  for (let i = from; i < word.length; i++) if (vowels.has(word[i]!) === vowel) return i + 1;
  return word.length;
}

export function regionsOneTwo(word: string, vowels: ReadonlySet<string>): { r1: number; r2: number } {
  const r1 = pastNext(word, pastNext(word, 0, vowels, true), vowels, false);
  return { r1, r2: pastNext(word, pastNext(word, r1, vowels, true), vowels, false) };
}

/**
 * RV as the Romance stemmers define it: after the next vowel when the second letter is a
 * consonant, after the next consonant when the first two are vowels, else after the third letter.
 */
export function romanceRegionV(word: string, vowels: ReadonlySet<string>): number {
  const n = word.length;
  if (n < 2) return n;
  const first = vowels.has(word[0]!);
  const second = vowels.has(word[1]!);
  if (!second) return pastNext(word, 2, vowels, true);
  if (first) return pastNext(word, 2, vowels, false);
  return Math.min(n, 3);
}
