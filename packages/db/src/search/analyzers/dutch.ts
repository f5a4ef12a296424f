/**
 * Lucene 4's DutchAnalyzer: standard tokens → lowercase → Dutch stop words (Snowball's list) →
 * its default stem overrides (`fiets`, `bromfiets` kept; `ei` → `eier`, `kind` → `kinder`) →
 * Snowball's (Porter's) Dutch stemmer: accents off, `i`/`y` between vowels kept as consonants,
 * then in R1/R2 the `-heden`, `-en(e)`, `-s(e)`, `-e`, `-heid`, `-end`/`-ing`/`-ig`, `-lijk`,
 * `-baar`/`-bar` endings, doubled consonants and long vowels undone.
 */
import { standardTokens, type Token } from '../tokenizers.js';
import { lowercased, withoutStopWords } from './filters.js';

export const DUTCH_STOP_WORDS: ReadonlySet<string> = new Set(
  `de en van ik te dat die in een hij het niet zijn is was op aan met als voor had er maar om hem dan zou
  of wat mijn men dit zo door over ze zich bij ook tot je mij uit der daar haar naar heb hoe heeft
  hebben deze u want nog zal me zij nu ge geen omdat iets worden toch al waren veel meer doen toen moet
  ben zonder kan hun dus alles onder ja eens hier wie werd altijd doch wordt wezen kunnen ons zelf
  tegen na reeds wil kon niets uw iemand geweest andere`.split(/\s+/),
);

/** DutchAnalyzer's default stem dictionary (StemmerOverrideFilter: the stemmer leaves these). */
const OVERRIDES: Record<string, string> = { fiets: 'fiets', bromfiets: 'bromfiets', ei: 'eier', kind: 'kinder' };

export function dutchAnalyzer(stop: ReadonlySet<string> = DUTCH_STOP_WORDS): (text: string) => Token[] {
  return (text) => {
    const tokens = withoutStopWords(lowercased(standardTokens(text)), stop);
    for (const token of tokens)
      token.text = Object.hasOwn(OVERRIDES, token.text) ? OVERRIDES[token.text]! : dutchStem(token.text);
    return tokens;
  };
}

const VOWELS = new Set('aeiouyè');
const isVowel = (c: string | undefined) => c !== undefined && VOWELS.has(c);
const ACCENTS: Record<string, string> = {
  ä: 'a',
  á: 'a',
  ë: 'e',
  é: 'e',
  ï: 'i',
  í: 'i',
  ö: 'o',
  ó: 'o',
  ü: 'u',
  ú: 'u',
};

/** Snowball's Dutch stemmer (Porter's, as Lucene 4's DutchStemmer has it). */
export function dutchStem(word: string): string {
  const s = [...word].map((c) => ACCENTS[c] ?? c);
  // Prelude: a `y` first, and an `i` or `y` after a vowel (the `i` also before one), are consonants.
  if (s[0] === 'y') s[0] = 'Y';
  for (let p = 0; p + 1 < s.length; p++) {
    if (!isVowel(s[p])) continue;
    if (s[p + 1] === 'i' && isVowel(s[p + 2])) s[p + 1] = 'I';
    else if (s[p + 1] === 'y') s[p + 1] = 'Y';
  }
  let w = s.join('');
  const { p1, p2 } = regions(w);
  let eFound = false;
  const R1 = (at: number) => at >= p1;
  const R2 = (at: number) => at >= p2;
  const before = (ending: number) => w[w.length - ending - 1];
  const cut = (n: number) => {
    w = w.slice(0, w.length - n);
  };
  const undouble = () => {
    if (/(kk|dd|tt)$/.test(w)) cut(1);
  };
  /** `-e` after a consonant in R1: off (and e_found), then undouble. */
  const eEnding = () => {
    eFound = false;
    if (w.endsWith('e') && R1(w.length - 1) && before(1) !== undefined && !isVowel(before(1))) {
      cut(1);
      eFound = true;
      undouble();
    }
  };
  /** An `-en`-like ending of `n` letters in R1, after a consonant, not after `gem`: off, then undouble. */
  const enEnding = (n: number): boolean => {
    const start = w.length - n;
    const prev = before(n);
    if (!R1(start) || prev === undefined || isVowel(prev) || w.slice(0, start).endsWith('gem')) return false;
    cut(n);
    undouble();
    return true;
  };

  // Step 1: -heden, -en/-ene, -s/-se.
  const first = longest(w, ['heden', 'en', 'ene', 's', 'se']);
  if (first === 'heden') {
    if (R1(w.length - 5)) w = `${w.slice(0, -5)}heid`;
  } else if (first === 'en' || first === 'ene') enEnding(first.length);
  else if (first === 's' || first === 'se') {
    const prev = before(first.length);
    if (R1(w.length - first.length) && prev !== undefined && !isVowel(prev) && prev !== 'j') cut(first.length);
  }
  // Step 2: -e.
  eEnding();
  // Step 3a: -heid (not after c) in R2, then -en.
  if (w.endsWith('heid') && R2(w.length - 4) && before(4) !== 'c') {
    cut(4);
    if (w.endsWith('en')) enEnding(2);
  }
  // Step 3b: derivational endings.
  const third = longest(w, ['end', 'ing', 'ig', 'lijk', 'baar', 'bar']);
  if (third !== undefined && R2(w.length - third.length)) {
    switch (third) {
      case 'end':
      case 'ing':
        cut(3);
        if (w.endsWith('ig') && R2(w.length - 2) && before(2) !== 'e') cut(2);
        else undouble();
        break;
      case 'ig':
        if (before(2) !== 'e') cut(2);
        break;
      case 'lijk':
        cut(4);
        eEnding();
        break;
      case 'baar':
        cut(4);
        break;
      case 'bar':
        if (eFound) cut(3);
        break;
    }
  }
  // Step 4: a long vowel before a final consonant is shortened (`maan` → `man`).
  const last = w[w.length - 1];
  if (last !== undefined && !isVowel(last) && last !== 'I') {
    const pair = w.slice(-3, -1);
    const beforePair = w[w.length - 4];
    if (['aa', 'ee', 'oo', 'uu'].includes(pair) && beforePair !== undefined && !isVowel(beforePair)) {
      w = w.slice(0, -2) + last;
    }
  }
  return w.replaceAll('Y', 'y').replaceAll('I', 'i');
}

/** R1 (at least 3 letters in) and R2. */
function regions(w: string): { p1: number; p2: number } {
  const n = w.length;
  let i = 0;
  const past = (vowel: boolean) => {
    while (i < n && isVowel(w[i]) !== vowel) i++;
    if (i >= n) return false;
    i++;
    return true;
  };
  if (!past(true) || !past(false)) return { p1: n, p2: n };
  const p1 = Math.max(i, 3);
  if (!past(true) || !past(false)) return { p1, p2: n };
  return { p1, p2: i };
}

function longest(w: string, endings: readonly string[]): string | undefined {
  let best: string | undefined;
  for (const e of endings) if (w.endsWith(e) && (best === undefined || e.length > best.length)) best = e;
  return best;
}
