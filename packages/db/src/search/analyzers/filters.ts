/**
 * The token filters every language analyzer chains (Lucene's LowerCaseFilter and StopFilter):
 * a stop word leaves its position empty, so a phrase does not match across it.
 */
import type { Token } from '../tokenizers.js';

export function lowercased(tokens: Token[]): Token[] {
  for (const token of tokens) token.text = lowercase(token.text);
  return tokens;
}

/**
 * Lucene lowercases a term one code point at a time (`Character.toLowerCase`), so a final `Σ`
 * is `σ`, not `ς` as `String.prototype.toLowerCase` makes it, and `İ` is `i`, not `i̇`; every
 * other capital lowers the same either way. A scan for those two first keeps the common case
 * as cheap as `toLowerCase` alone (a regex replace per term cost ~6× more).
 */
export function lowercase(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit === 0x03a3 || unit === 0x0130) {
      return text.replace(/[\u03a3\u0130]/g, (capital) => (capital === '\u03a3' ? '\u03c3' : 'i')).toLowerCase();
    }
  }
  return text.toLowerCase();
}

export function withoutStopWords(tokens: Token[], stop: ReadonlySet<string>): Token[] {
  return stop.size === 0 ? tokens : tokens.filter((t) => !stop.has(t.text));
}

/** Each token's text replaced by its stem (a Snowball stemmer's, word in, word out). */
export function snowballStemmed(tokens: Token[], stem: (word: string) => string): Token[] {
  for (const token of tokens) token.text = stem(token.text);
  return tokens;
}
