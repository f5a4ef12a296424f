/**
 * The token filters every language analyzer chains (Lucene's LowerCaseFilter and StopFilter):
 * a stop word leaves its position empty, so a phrase does not match across it.
 */
import type { Token } from '../tokenizers.js';

export function lowercased(tokens: Token[]): Token[] {
  for (const token of tokens) token.text = token.text.toLowerCase();
  return tokens;
}

export function withoutStopWords(tokens: Token[], stop: ReadonlySet<string>): Token[] {
  return stop.size === 0 ? tokens : tokens.filter((t) => !stop.has(t.text));
}

/** Each token's text replaced by its stem (a Snowball stemmer's, word in, word out). */
export function snowballStemmed(tokens: Token[], stem: (word: string) => string): Token[] {
  for (const token of tokens) token.text = stem(token.text);
  return tokens;
}
