/**
 * SmartCN's word segmenter (Lucene's HHMMSegmenter, WordSegmenter and SegTokenFilter): every
 * dictionary word that can start at each character of a sentence, plus runs of Latin letters and
 * of digits, single punctuation marks and unknown characters, make a graph; each pair of adjacent
 * candidates is weighted by the smoothed probability of the second after the first (word and pair
 * frequencies from the dictionaries); the lightest path through the sentence is its words.
 */
import type { SmartcnDictionaries } from './smartcn-dictionaries.js';

enum CharType {
  Delimiter,
  Letter,
  Digit,
  Hanzi,
  SpaceLike,
  FullwidthLetter,
  FullwidthDigit,
  Other,
  Surrogate,
}

enum WordType {
  SentenceBegin,
  SentenceEnd,
  ChineseWord,
  String,
  Number,
  Delimiter,
  FullwidthString,
  FullwidthNumber,
}

/** The stand-ins the dictionaries hold for a letter run, a number and a sentence's two ends. */
const STRING_WORD = '未##串';
const NUMBER_WORD = '未##数';
const START_WORD = '始##始';
const END_WORD = '末##末';
/** Utility.MAX_FREQUENCE: the largest frequency, used to smooth. */
const MAX_FREQUENCY = 2079997 + 80000;
/** What every punctuation mark becomes (and then a stop word). */
const COMMON_DELIMITER = ',';

/** Utility.getCharType. */
function charType(unit: number): CharType {
  if (unit >= 0xd800 && unit <= 0xdfff) return CharType.Surrogate;
  if (unit >= 0x4e00 && unit <= 0x9fa5) return CharType.Hanzi;
  if ((unit >= 0x41 && unit <= 0x5a) || (unit >= 0x61 && unit <= 0x7a)) return CharType.Letter;
  if (unit >= 0x30 && unit <= 0x39) return CharType.Digit;
  if (unit === 0x20 || unit === 0x09 || unit === 0x0d || unit === 0x0a || unit === 0x3000) return CharType.SpaceLike;
  if ((unit >= 0x21 && unit <= 0xbb) || (unit >= 0x2010 && unit <= 0x2642) || (unit >= 0x3001 && unit <= 0x301e)) {
    return CharType.Delimiter;
  }
  if ((unit >= 0xff21 && unit <= 0xff3a) || (unit >= 0xff41 && unit <= 0xff5a)) return CharType.FullwidthLetter;
  if (unit >= 0xff10 && unit <= 0xff19) return CharType.FullwidthDigit;
  if (unit >= 0xfe30 && unit <= 0xff63) return CharType.Delimiter;
  return CharType.Other;
}

interface SegToken {
  /** The word as the dictionaries know it (a stand-in for letter runs and numbers). */
  word: string;
  start: number;
  end: number;
  type: WordType;
  frequency: number;
  index: number;
}

/** HHMMSegmenter.createSegGraph: the candidate words by start offset, in the order Lucene adds them. */
function candidates(sentence: string, { words }: SmartcnDictionaries): Map<number, SegToken[]> {
  const graph = new Map<number, SegToken[]>();
  const add = (word: string, start: number, end: number, type: WordType, frequency: number) => {
    const token: SegToken = { word, start, end, type, frequency, index: 0 };
    const list = graph.get(start);
    if (list === undefined) graph.set(start, [token]);
    else list.push(token);
  };
  const length = sentence.length;
  const types = Array.from({ length }, (_, i) => charType(sentence.charCodeAt(i)));
  let i = 0;
  while (i < length) {
    const type = types[i]!;
    if (type === CharType.SpaceLike) {
      i++;
    } else if (type === CharType.Hanzi) {
      let word = sentence[i]!;
      let j = i + 1;
      add(word, i, j, WordType.ChineseWord, words.frequency(word));
      let found = words.prefixMatch(word);
      while (j <= length && found !== -1) {
        if (word.length > 1 && words.isEntry(word, found)) {
          add(word, i, j, WordType.ChineseWord, words.frequency(word));
        }
        while (j < length && types[j] === CharType.SpaceLike) j++;
        if (j < length && types[j] === CharType.Hanzi) {
          word += sentence[j];
          found = words.prefixMatch(word, found);
          j++;
        } else {
          break;
        }
      }
      i++;
    } else if (type === CharType.Letter || type === CharType.FullwidthLetter) {
      let fullwidth = type === CharType.FullwidthLetter;
      let j = i + 1;
      while (j < length && (types[j] === CharType.Letter || types[j] === CharType.FullwidthLetter)) {
        if (types[j] === CharType.FullwidthLetter) fullwidth = true;
        j++;
      }
      add(STRING_WORD, i, j, fullwidth ? WordType.FullwidthString : WordType.String, words.frequency(STRING_WORD));
      i = j;
    } else if (type === CharType.Digit || type === CharType.FullwidthDigit) {
      let fullwidth = type === CharType.FullwidthDigit;
      let j = i + 1;
      while (j < length && (types[j] === CharType.Digit || types[j] === CharType.FullwidthDigit)) {
        if (types[j] === CharType.FullwidthDigit) fullwidth = true;
        j++;
      }
      add(NUMBER_WORD, i, j, fullwidth ? WordType.FullwidthNumber : WordType.Number, words.frequency(NUMBER_WORD));
      i = j;
    } else if (type === CharType.Surrogate) {
      // A character past U+FFFF is a word of its own, unknown to the dictionary.
      const units = (sentence.codePointAt(i) ?? 0) > 0xffff ? 2 : 1;
      add(sentence.slice(i, i + units), i, i + units, WordType.ChineseWord, 0);
      i += units;
    } else if (type === CharType.Delimiter) {
      add(sentence[i]!, i, i + 1, WordType.Delimiter, MAX_FREQUENCY);
      i++;
    } else {
      // Any other character (not in GB2312's ranges) is an unknown string of its own.
      add(STRING_WORD, i, i + 1, WordType.String, words.frequency(STRING_WORD));
      i++;
    }
  }
  add(START_WORD, -1, 0, WordType.SentenceBegin, words.frequency(START_WORD));
  add(END_WORD, length, length + 1, WordType.SentenceEnd, words.frequency(END_WORD));
  return graph;
}

interface TokenPair {
  from: number;
  weight: number;
}

/** BiSegGraph: the candidates numbered in start order, and the weighted pairs into each. */
function lightestPath(graph: Map<number, SegToken[]>, { bigrams }: SmartcnDictionaries): SegToken[] {
  const starts = [...graph.keys()].sort((a, b) => a - b);
  const ordered: SegToken[] = [];
  for (const start of starts) {
    for (const token of graph.get(start)!) {
      token.index = ordered.length;
      ordered.push(token);
    }
  }
  const maxStart = starts[starts.length - 1]!;
  const smooth = 0.1;
  const tiny = 1.0 / MAX_FREQUENCY;
  const into = new Map<number, TokenPair[]>();
  for (const start of starts) {
    if (start >= maxStart) break;
    for (const first of graph.get(start)!) {
      let next = first.end;
      let nextTokens: SegToken[] | undefined;
      while (next <= maxStart) {
        nextTokens = graph.get(next);
        if (nextTokens !== undefined) break;
        next++;
      }
      if (nextTokens === undefined) break;
      const oneWordFrequency = first.frequency;
      for (const second of nextTokens) {
        const pairFrequency = bigrams.frequency(`${first.word}@${second.word}`);
        const weight = -Math.log(
          (smooth * (1.0 + oneWordFrequency)) / (MAX_FREQUENCY + 0.0) +
            (1.0 - smooth) * (((1.0 - tiny) * pairFrequency) / (1.0 + oneWordFrequency) + tiny),
        );
        const list = into.get(second.index);
        if (list === undefined) into.set(second.index, [{ from: first.index, weight }]);
        else list.push({ from: first.index, weight });
      }
    }
  }
  // Viterbi over the pairs: node k is candidate k, reached by its lightest pair.
  const nodeCount = into.size;
  const pathWeight = [0];
  const previous = [0];
  for (let current = 1; current <= nodeCount; current++) {
    let minWeight = Number.MAX_VALUE;
    let from = 0;
    for (const edge of into.get(current) ?? []) {
      const weight = pathWeight[edge.from]! + edge.weight;
      if (weight < minWeight) {
        minWeight = weight;
        from = edge.from;
      }
    }
    pathWeight.push(minWeight);
    previous.push(from);
  }
  const path: SegToken[] = [];
  for (let current = nodeCount; ; current = previous[current]!) {
    path.push(ordered[current]!);
    if (current === 0) break;
  }
  return path.reverse();
}

/**
 * WordSegmenter.segmentSentence: a sentence's words, without its two end marks, each as its text
 * (letter runs and numbers as written, full-width folded, ASCII letters lowercased; punctuation
 * as `,`).
 */
export function segmentSentence(sentence: string, dictionaries: SmartcnDictionaries): string[] {
  const path = lightestPath(candidates(sentence, dictionaries), dictionaries);
  if (path.length <= 2) return [];
  return path.slice(1, -1).map((token) => wordText(token, sentence));
}

function wordText(token: SegToken, sentence: string): string {
  switch (token.type) {
    case WordType.String:
      return lowercaseAscii(sentence.slice(token.start, token.end));
    case WordType.Number:
      return sentence.slice(token.start, token.end);
    case WordType.FullwidthString:
    case WordType.FullwidthNumber: {
      let text = '';
      for (let i = token.start; i < token.end; i++) {
        const unit = sentence.charCodeAt(i);
        text += String.fromCharCode(unit >= 0xff10 ? unit - 0xfee0 : unit);
      }
      return lowercaseAscii(text);
    }
    case WordType.Delimiter:
      return COMMON_DELIMITER;
    default:
      return token.word;
  }
}

function lowercaseAscii(text: string): string {
  return text.replace(/[A-Z]+/g, (upper) => upper.toLowerCase());
}
