/**
 * Lucene's SmartChineseAnalyzer (as Lucene 4.8 and later build it: HMMChineseTokenizer): the
 * text cut into sentences, each sentence into words by SmartCN's hidden-Markov segmenter over its
 * own dictionaries (read on first use), then Porter's stemmer (it changes only Latin words) and
 * SmartCN's stop words: punctuation, which the segmenter has made `,`.
 */
import { porterStem } from '../porter-stemmer.js';
import type { Token } from '../tokenizers.js';
import { onFirstUse } from './dictionary-files.js';
import { readSmartcnDictionaries } from './smartcn-dictionaries.js';
import { segmentSentence } from './smartcn-segmenter.js';

/** SmartCN's stopwords.txt: ASCII and CJK punctuation, and the ideographic space. */
export const CHINESE_STOP_WORDS: ReadonlySet<string> = new Set([
  ...',.`-_=?\'|"(){}[]<>*#&^$@!~:;+/\\',
  ...'《》—－，。、：；！·？“”）（【】［］●',
  '\u3000',
]);

const dictionaries = onFirstUse(readSmartcnDictionaries);

/** The JDK's sentence breaker stands in for Lucene's (java.text.BreakIterator, root locale). */
const sentences = new Intl.Segmenter('und', { granularity: 'sentence' });

/** SegmentingTokenizerBase reads 1,024 units at a time and cuts after the last line break in them. */
const BUFFER = 1024;
const SAFE_ENDS = /[\r\n\u0085\u2028\u2029]/;

function* bufferfuls(text: string): Generator<string> {
  let at = 0;
  while (text.length - at >= BUFFER) {
    let usable = -1;
    for (let i = at + BUFFER - 1; i >= at; i--) {
      if (SAFE_ENDS.test(text[i]!)) {
        usable = i + 1 - at;
        break;
      }
    }
    if (usable < 0) usable = BUFFER;
    yield text.slice(at, at + usable);
    at += usable;
  }
  if (at < text.length) yield text.slice(at);
}

export function chineseAnalyzer(stop: ReadonlySet<string> = CHINESE_STOP_WORDS): (text: string) => Token[] {
  return (text) => {
    const tokens: Token[] = [];
    let position = 0;
    for (const bufferful of bufferfuls(text)) {
      for (const { segment } of sentences.segment(bufferful)) {
        for (const word of segmentSentence(segment, dictionaries())) {
          const term = porterStem(word);
          if (!stop.has(term)) tokens.push({ text: term, position });
          position++;
        }
      }
    }
    return tokens;
  };
}
