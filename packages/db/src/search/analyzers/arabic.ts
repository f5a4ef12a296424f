/**
 * Lucene 4's ArabicAnalyzer: standard tokens → lowercase → Arabic stop words (Savoy's list as
 * Lucene ships it, matched before normalization) → ArabicNormalizationFilter (hamza-seated alefs
 * to a bare alef, teh marbuta to heh, alef maksura to yeh, the harakat and tatweel removed) →
 * ArabicStemFilter (Larkey's light stemmer: one prefix of `ال`, `وال`, `بال`, `كال`, `فال`,
 * `لل`, `و` off, then each of the suffixes in turn, leaving at least two letters).
 */
import { standardTokens, type Token } from '../tokenizers.js';
import { lowercased, withoutStopWords } from './filters.js';
import { stemmed } from './stemmer-util.js';

export const ARABIC_STOP_WORDS: ReadonlySet<string> = new Set(
  `من ومن منها منه في وفي فيها فيه و ف ثم او أو ب بها به ا أ اى اي أي أى لا ولا الا ألا إلا لكن ما وما
  كما فما عن مع اذا إذا ان أن إن انها أنها إنها انه أنه إنه بان بأن فان فأن وان وأن وإن التى التي
  الذى الذي الذين الى الي إلى إلي على عليها عليه اما أما إما ايضا أيضا كل وكل لم ولم لن ولن هى هي
  هو وهى وهي وهو فهى فهي فهو انت أنت لك لها له هذه هذا تلك ذلك هناك كانت كان يكون تكون وكانت
  وكان غير بعض قد نحو بين بينما منذ ضمن حيث الان الآن خلال بعد قبل حتى عند عندما لدى جميع`.split(/\s+/),
);

export function arabicAnalyzer(stop: ReadonlySet<string> = ARABIC_STOP_WORDS): (text: string) => Token[] {
  return (text) =>
    stemmed(stemmed(withoutStopWords(lowercased(standardTokens(text)), stop), arabicNormalize), arabicStem);
}

const ALEF = '\u0627';
/** Alef madda, alef with hamza above, below → alef; alef maksura → yeh; teh marbuta → heh. */
const FOLDED: Readonly<Record<string, string>> = {
  '\u0622': ALEF,
  '\u0623': ALEF,
  '\u0625': ALEF,
  '\u0649': '\u064A',
  '\u0629': '\u0647',
};
/** Tatweel and the harakat (fathatan to sukun). */
const REMOVED = /^[\u0640\u064B-\u0652]$/u;

export function arabicNormalize(s: string[], len: number): number {
  for (let i = 0; i < len; i++) {
    const unit = s[i]!;
    const folded = FOLDED[unit];
    if (folded !== undefined) s[i] = folded;
    else if (REMOVED.test(unit)) {
      s.splice(i--, 1);
      len--;
    }
  }
  return len;
}

const PREFIXES = [
  '\u0627\u0644',
  '\u0648\u0627\u0644',
  '\u0628\u0627\u0644',
  '\u0643\u0627\u0644',
  '\u0641\u0627\u0644',
  '\u0644\u0644',
  '\u0648',
];
const SUFFIXES = [
  '\u0647\u0627',
  '\u0627\u0646',
  '\u0627\u062A',
  '\u0648\u0646',
  '\u064A\u0646',
  '\u064A\u0647',
  '\u064A\u0629',
  '\u0647',
  '\u0629',
  '\u064A',
];

export function arabicStem(s: string[], len: number): number {
  for (const prefix of PREFIXES) {
    // `و` needs a word of four letters; the others leave at least two.
    const long = prefix.length === 1 ? len >= 4 : len >= prefix.length + 2;
    if (long && prefix.split('').every((unit, i) => s[i] === unit)) {
      s.splice(0, prefix.length);
      len -= prefix.length;
      break;
    }
  }
  for (const suffix of SUFFIXES) {
    if (len >= suffix.length + 2 && suffix.split('').every((unit, i) => s[len - suffix.length + i] === unit)) {
      len -= suffix.length;
    }
  }
  return len;
}
