/**
 * Lucene 8's JapaneseAnalyzer (Kuromoji), which Clouseau builds for `japanese`: JapaneseTokenizer
 * in search mode over IPADIC (./kuromoji-tokenizer.ts; compounds kept beside their parts,
 * punctuation dropped), then
 * - JapaneseBaseFormFilter: an inflected word as its dictionary form (`落ち` → `落ちる`);
 * - JapanesePartOfSpeechStopFilter: particles, auxiliaries, symbols… by IPADIC part of speech
 *   (Lucene's stoptags.txt);
 * - CJKWidthFilter; StopFilter (Lucene's Japanese stopwords.txt, or the index's own);
 * - JapaneseKatakanaStemFilter: a katakana term of 4 or more characters loses a final `ー`;
 * - LowerCaseFilter.
 * A dropped token leaves its position empty, as Lucene's filters do.
 */
import type { Token } from '../tokenizers.js';
import { cjkWidthFolded } from './cjk-width.js';
import { onFirstUse } from './dictionary-files.js';
import { lowercase } from './filters.js';
import { readKuromojiDictionary } from './kuromoji-dictionary.js';
import { kuromojiTokens } from './kuromoji-tokenizer.js';

const dictionary = onFirstUse(readKuromojiDictionary);

const PROLONGED_SOUND_MARK = 0x30fc;
const KATAKANA_STEM_MINIMUM = 4;

/** JapaneseKatakanaStemFilter: a trailing `ー` off a katakana word (every unit in the Katakana block). */
function katakanaStemmed(term: string): string {
  if (term.length < KATAKANA_STEM_MINIMUM) return term;
  for (let i = 0; i < term.length; i++) {
    const unit = term.charCodeAt(i);
    if (unit < 0x30a0 || unit > 0x30ff) return term;
  }
  return term.charCodeAt(term.length - 1) === PROLONGED_SOUND_MARK ? term.slice(0, -1) : term;
}

export function japaneseAnalyzer(stop?: ReadonlySet<string>): (text: string) => Token[] {
  return (text) => {
    const ipadic = dictionary();
    const stopWords = stop ?? ipadic.stopWords;
    const tokens: Token[] = [];
    let position = -1;
    for (const { token, increment } of kuromojiTokens(text, ipadic)) {
      position += increment;
      if (ipadic.stopTags.has(ipadic.partOfSpeech(token.entry))) continue;
      const surface = ipadic.baseForm(token.entry) ?? text.slice(token.start, token.start + token.length);
      const folded = cjkWidthFolded(surface);
      if (stopWords.has(folded)) continue;
      tokens.push({ text: lowercase(katakanaStemmed(folded)), position });
    }
    return tokens;
  };
}
