/**
 * Snowball's `[substring] R1 among(...)` in the stemmers whose endings each have one fixed
 * replacement: the longest listed ending the word has is chosen first, and only then must it lie
 * in the region (a shorter ending is not tried instead).
 */

/** The longest of `endings` that `word` ends with. */
export function longestEnding(word: string, endings: Iterable<string>): string | undefined {
  let best: string | undefined;
  for (const e of endings) if (word.endsWith(e) && (best === undefined || e.length > best.length)) best = e;
  return best;
}

/**
 * The word with its longest ending of `replacements` replaced (by `''`: removed) when that ending
 * starts at `region` or after; otherwise undefined (the word unchanged).
 */
export function replacedEnding(
  word: string,
  region: number,
  replacements: Readonly<Record<string, string>>,
): string | undefined {
  const ending = longestEnding(word, Object.keys(replacements));
  if (ending === undefined || word.length - ending.length < region) return undefined;
  return word.slice(0, word.length - ending.length) + replacements[ending]!;
}

/** A replacement table of endings that are all removed. */
export function removed(endings: string): Record<string, string> {
  return Object.fromEntries(endings.split(/\s+/).map((e) => [e, '']));
}

/**
 * Snowball's `among` inside `setlimit tomark p`: the longest of `endings` that lies wholly at
 * `region` or after (a longer ending reaching before the region is passed over for a shorter one).
 */
export function longestEndingWithin(word: string, region: number, endings: Iterable<string>): string | undefined {
  let best: string | undefined;
  for (const e of endings) {
    if (word.length - e.length >= region && word.endsWith(e) && (best === undefined || e.length > best.length))
      best = e;
  }
  return best;
}

/**
 * A list of endings looked up by a word's last letter, longest first: Snowball's `among` without
 * trying every ending on every word.
 */
export class Endings {
  private readonly byLast = new Map<string, string[]>();

  constructor(endings: Iterable<string>) {
    for (const ending of endings) {
      const last = ending[ending.length - 1]!;
      const bucket = this.byLast.get(last) ?? [];
      if (!bucket.includes(ending)) bucket.push(ending);
      this.byLast.set(last, bucket);
    }
    for (const bucket of this.byLast.values()) bucket.sort((a, b) => b.length - a.length);
  }

  /** The longest ending of the word's first `end` letters that starts at `from` or after. */
  longest(word: string, from = 0, end = word.length): string | undefined {
    const bucket = end > 0 ? this.byLast.get(word[end - 1]!) : undefined;
    if (bucket === undefined) return undefined;
    for (const ending of bucket) {
      const start = end - ending.length;
      if (start >= from && word.startsWith(ending, start)) return ending;
    }
    return undefined;
  }
}
