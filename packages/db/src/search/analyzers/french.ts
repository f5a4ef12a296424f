/**
 * Lucene 4's FrenchAnalyzer: standard tokens → elision (`l'`, `qu'`, `jusqu'`, ...) → lowercase →
 * French stop words (Snowball's list) → FrenchLightStemFilter (Savoy's "UniNE" light stemmer:
 * plural and feminine endings, a few derivational suffixes, accents folded, doubled letters
 * collapsed).
 */
import { standardTokens, type Token } from '../tokenizers.js';
import { withoutElision } from './elision.js';
import { lowercased, withoutStopWords } from './filters.js';
import { deleteAt, endsWith, isLetter, stemmed } from './stemmer-util.js';

export const FRENCH_STOP_WORDS: ReadonlySet<string> = new Set(
  `au aux avec ce ces dans de des du elle en et eux il je la le leur lui ma mais me même mes moi mon ne
  nos notre nous on ou par pas pour qu que qui sa se ses sur ta te tes toi ton tu un une vos votre vous
  c d j l à m n s t y étée étées étant suis es êtes sont serai seras sera serons serez seront serais
  serait serions seriez seraient étais était étions étiez étaient fus fut fûmes fûtes furent sois soit
  soyons soyez soient fusse fusses fussions fussiez fussent ayant eu eue eues eus ai avons avez ont
  aurai aurons aurez auront aurais aurait aurions auriez auraient avais avait aviez avaient eut eûmes
  eûtes eurent aie aies ait ayons ayez aient eusse eusses eût eussions eussiez eussent ceci cela celà
  cet cette ici ils les leurs quel quels quelle quelles sans soi`.split(/\s+/),
);

/** FrenchAnalyzer.DEFAULT_ARTICLES. */
const ARTICLES = new Set(['l', 'm', 't', 'qu', 'n', 's', 'j', 'd', 'c', 'jusqu', 'quoiqu', 'lorsqu', 'puisqu']);

export function frenchAnalyzer(stop: ReadonlySet<string> = FRENCH_STOP_WORDS): (text: string) => Token[] {
  return (text) =>
    stemmed(withoutStopWords(lowercased(withoutElision(standardTokens(text), ARTICLES)), stop), frenchLightStem);
}

/** FrenchLightStemmer.stem. */
export function frenchLightStem(s: string[], len: number): number {
  const at = (i: number) => s[i];
  if (len > 5 && at(len - 1) === 'x') {
    if (at(len - 3) === 'a' && at(len - 2) === 'u' && at(len - 4) !== 'e') s[len - 2] = 'l';
    len--;
  }
  if (len > 3 && at(len - 1) === 'x') len--;
  if (len > 3 && at(len - 1) === 's') len--;
  if (len > 9 && endsWith(s, len, 'issement')) {
    len -= 6;
    s[len - 1] = 'r';
    return norm(s, len);
  }
  if (len > 8 && endsWith(s, len, 'issant')) {
    len -= 4;
    s[len - 1] = 'r';
    return norm(s, len);
  }
  if (len > 6 && endsWith(s, len, 'ement')) {
    len -= 4;
    if (len > 3 && endsWith(s, len, 'ive')) {
      len--;
      s[len - 1] = 'f';
    }
    return norm(s, len);
  }
  if (len > 11 && endsWith(s, len, 'ficatrice')) {
    len -= 5;
    s[len - 2] = 'e';
    s[len - 1] = 'r';
    return norm(s, len);
  }
  if (len > 10 && endsWith(s, len, 'ficateur')) {
    len -= 4;
    s[len - 2] = 'e';
    s[len - 1] = 'r';
    return norm(s, len);
  }
  if (len > 9 && endsWith(s, len, 'catrice')) {
    len -= 3;
    s[len - 4] = 'q';
    s[len - 3] = 'u';
    s[len - 2] = 'e';
    return norm(s, len);
  }
  if (len > 8 && endsWith(s, len, 'cateur')) {
    len -= 2;
    s[len - 4] = 'q';
    s[len - 3] = 'u';
    s[len - 2] = 'e';
    s[len - 1] = 'r';
    return norm(s, len);
  }
  if (len > 8 && endsWith(s, len, 'atrice')) {
    len -= 4;
    s[len - 2] = 'e';
    s[len - 1] = 'r';
    return norm(s, len);
  }
  if (len > 7 && endsWith(s, len, 'ateur')) {
    len -= 3;
    s[len - 2] = 'e';
    s[len - 1] = 'r';
    return norm(s, len);
  }
  if (len > 6 && endsWith(s, len, 'trice')) {
    len--;
    s[len - 3] = 'e';
    s[len - 2] = 'u';
    s[len - 1] = 'r';
  }
  if (len > 5 && endsWith(s, len, 'ième')) return norm(s, len - 4);
  if (len > 7 && endsWith(s, len, 'teuse')) {
    len -= 2;
    s[len - 1] = 'r';
    return norm(s, len);
  }
  if (len > 6 && endsWith(s, len, 'teur')) {
    len--;
    s[len - 1] = 'r';
    return norm(s, len);
  }
  if (len > 5 && endsWith(s, len, 'euse')) return norm(s, len - 2);
  if (len > 8 && endsWith(s, len, 'ère')) {
    len--;
    s[len - 2] = 'e';
    return norm(s, len);
  }
  if (len > 7 && endsWith(s, len, 'ive')) {
    len--;
    s[len - 1] = 'f';
    return norm(s, len);
  }
  if (len > 4 && (endsWith(s, len, 'folle') || endsWith(s, len, 'molle'))) {
    len -= 2;
    s[len - 1] = 'u';
    return norm(s, len);
  }
  if (len > 9 && endsWith(s, len, 'nnelle')) return norm(s, len - 5);
  if (len > 9 && endsWith(s, len, 'nnel')) return norm(s, len - 3);
  if (len > 4 && endsWith(s, len, 'ète')) {
    len--;
    s[len - 2] = 'e';
  }
  if (len > 8 && endsWith(s, len, 'ique')) len -= 4;
  if (len > 8 && endsWith(s, len, 'esse')) return norm(s, len - 3);
  if (len > 7 && endsWith(s, len, 'inage')) return norm(s, len - 3);
  if (len > 9 && endsWith(s, len, 'isation')) {
    len -= 7;
    if (len > 5 && endsWith(s, len, 'ual')) s[len - 2] = 'e';
    return norm(s, len);
  }
  if (len > 9 && endsWith(s, len, 'isateur')) return norm(s, len - 7);
  if (len > 8 && endsWith(s, len, 'ation')) return norm(s, len - 5);
  if (len > 8 && endsWith(s, len, 'ition')) return norm(s, len - 5);
  return norm(s, len);
}

const FOLDED: Record<string, string> = {
  à: 'a',
  á: 'a',
  â: 'a',
  ô: 'o',
  è: 'e',
  é: 'e',
  ê: 'e',
  ù: 'u',
  û: 'u',
  î: 'i',
  ç: 'c',
};

function norm(s: string[], len: number): number {
  if (len > 4) {
    for (let i = 0; i < len; i++) s[i] = FOLDED[s[i]!] ?? s[i]!;
    let ch = s[0];
    for (let i = 1; i < len; i++) {
      if (s[i] === ch && isLetter(ch)) len = deleteAt(s, i--, len);
      else ch = s[i];
    }
  }
  if (len > 4 && endsWith(s, len, 'ie')) len -= 2;
  if (len > 4) {
    if (s[len - 1] === 'r') len--;
    if (s[len - 1] === 'e') len--;
    if (s[len - 1] === 'e') len--;
    if (s[len - 1] === s[len - 2] && isLetter(s[len - 1])) len--;
  }
  return len;
}
