/**
 * Lucene's ElisionFilter: a term whose part before its first apostrophe (`'` or `’`) is one of
 * the language's elided articles, matched without case, loses that part and the apostrophe
 * (`l'avion` → `avion`, `dell'arte` → `arte`).
 */
import type { Token } from '../tokenizers.js';

export function withoutElision(tokens: Token[], articles: ReadonlySet<string>): Token[] {
  for (const token of tokens) {
    const match = /['\u2019]/.exec(token.text);
    if (match !== null && articles.has(token.text.slice(0, match.index).toLowerCase())) {
      token.text = token.text.slice(match.index + 1);
    }
  }
  return tokens;
}
