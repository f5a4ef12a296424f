/**
 * What Snowball's Danish, Norwegian and Swedish stemmers share (the versions in Lucene 4's
 * org.tartarus.snowball.ext): R1, the region after the first non-vowel that follows a vowel, but
 * never before the third letter; and `among`, the longest of a list of endings that lies in R1.
 * Each stemmer only cuts or replaces the end of the word, so R1's start never moves.
 */

/** Where R1 starts (the word's length when it has none). */
export function regionOne(word: string, vowels: ReadonlySet<string>): number {
  if (word.length < 3) return word.length;
  let i = 0;
  while (i < word.length && !vowels.has(word[i]!)) i++;
  while (i < word.length && vowels.has(word[i]!)) i++;
  if (i >= word.length) return word.length;
  return Math.max(3, i + 1);
}

/** The longest of `endings` the word ends with inside R1 (starting at `r1` or after). */
export function endingInR1(word: string, r1: number, endings: readonly string[]): string | undefined {
  let found: string | undefined;
  for (const ending of endings) {
    if (
      word.length - ending.length >= r1 &&
      word.endsWith(ending) &&
      (found === undefined || ending.length > found.length)
    )
      found = ending;
  }
  return found;
}

/** The word without its last `n` units. */
export function cut(word: string, n: number): string {
  return word.slice(0, word.length - n);
}
