/**
 * Lucene 4's BrazilianAnalyzer: standard tokens → lowercase → Brazilian stop words (Lucene's list)
 * → BrazilianStemFilter, Lucene's own Brazilian Portuguese stemmer: accents and `ç` folded, then
 * a standard suffix in R1/R2, or else a verb ending in RV; when either went, a final `i` after
 * `c`, otherwise a residual vowel; last a final `e`. R1, R2 and RV are taken once, from the
 * folded word, and later steps test those first regions (as Lucene's does), two of its rules
 * (`-logias`, `-ira` in the verb step) end the step without changing the word, and a word of
 * fewer than 3 or more than 29 letters is left as it came.
 */
import { standardTokens, type Token } from '../tokenizers.js';
import { lowercased, withoutStopWords } from './filters.js';
import { isLetter } from './stemmer-util.js';

export const BRAZILIAN_STOP_WORDS: ReadonlySet<string> = new Set(
  `a ainda alem ambas ambos antes ao aonde aos apos aquele aqueles as assim com como contra contudo cuja
  cujas cujo cujos da das de dela dele deles demais depois desde desta deste dispoe dispoem diversa
  diversas diversos do dos durante e ela elas ele eles em entao entre essa essas esse esses esta estas
  este estes ha isso isto logo mais mas mediante menos mesma mesmas mesmo mesmos na nas nao nas nem nesse
  neste nos o os ou outra outras outro outros pelas pelas pelo pelos perante pois por porque portanto
  proprio propios quais qual qualquer quando quanto que quem quer se seja sem sendo seu seus sob sobre sua
  suas tal tambem teu teus toda todas todo todos tua tuas tudo um uma umas uns`.split(/\s+/),
);

export function brazilianAnalyzer(stop: ReadonlySet<string> = BRAZILIAN_STOP_WORDS): (text: string) => Token[] {
  return (text) => {
    const tokens = withoutStopWords(lowercased(standardTokens(text)), stop);
    for (const token of tokens) token.text = brazilianStem(token.text) ?? token.text;
    return tokens;
  };
}

const FOLDED: Readonly<Record<string, string>> = {
  á: 'a',
  â: 'a',
  ã: 'a',
  é: 'e',
  ê: 'e',
  í: 'i',
  ó: 'o',
  ô: 'o',
  õ: 'o',
  ú: 'u',
  ü: 'u',
  ç: 'c',
  ñ: 'n',
};
const LEADING = new Set(['"', "'", '-', ',', ';', '.', '?', '!']);
const isVowel = (c: string | undefined) => c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u';

/** Where a standard suffix must lie: R1, R2, or RV and after an `e`. */
type Place = 'r1' | 'r2' | 'rv-after-e';
/** Replacement `undefined`: the suffix is removed; `null`: the word is kept (the rule still counts). */
type StandardRule = readonly [string, Place, string | null | undefined];
/** Groups of standard suffixes: the least word length for the group, its rules in order. */
const STEP_1: readonly (readonly [number, readonly StandardRule[]])[] = [
  [0, [['uciones', 'r2', 'u']]],
  [
    6,
    [
      ['imentos', 'r2', undefined],
      ['amentos', 'r2', undefined],
      ['adores', 'r2', undefined],
      ['adoras', 'r2', undefined],
      ['logias', 'r2', null],
      ['encias', 'r2', 'ente'],
      ['amente', 'r1', undefined],
      ['idades', 'r2', undefined],
    ],
  ],
  [
    5,
    [
      ['acoes', 'r2', undefined],
      ['imento', 'r2', undefined],
      ['amento', 'r2', undefined],
      ['adora', 'r2', undefined],
      ['ismos', 'r2', undefined],
      ['istas', 'r2', undefined],
      ['logia', 'r2', 'log'],
      ['ucion', 'r2', 'u'],
      ['encia', 'r2', 'ente'],
      ['mente', 'r2', undefined],
      ['idade', 'r2', undefined],
    ],
  ],
  [
    4,
    [
      ...'acao ezas icos icas ismo avel ivel ista osos osas ador ivas ivos'
        .split(' ')
        .map((s) => [s, 'r2', undefined] as const),
      ['iras', 'rv-after-e', 'ir'],
    ],
  ],
  [
    3,
    [
      ...'eza ico ica oso osa iva ivo'.split(' ').map((s) => [s, 'r2', undefined] as const),
      ['ira', 'rv-after-e', 'ir'],
    ],
  ],
];

/** Verb endings by the least RV length; `ira` (first of its group) removes `ava`, as Lucene's does. */
const STEP_2: readonly (readonly [number, readonly (readonly [string, string])[]])[] = [
  [7, 'issemos essemos assemos ariamos eriamos iriamos'],
  [6, 'iremos eremos aremos avamos iramos eramos aramos asseis esseis isseis arieis erieis irieis'],
  [
    5,
    `irmos iamos armos ermos areis ereis ireis asses esses isses astes assem essem issem ardes erdes irdes ariam
    eriam iriam arias erias irias estes istes areis aveis`,
  ],
  [
    4,
    `aria eria iria asse esse isse aste este iste arei erei irei aram eram iram avam arem erem irem ando endo indo
    arao erao irao adas idas aras eras iras avas ares eres ires ados idos amos emos imos iras ieis`,
  ],
  [3, 'ada ida ara era ira:ava iam ado ido ias ais eis ira ear'],
  [2, 'ia ei am em ar er ir as es is eu iu iu ou'],
].map(([length, endings]) => [
  length as number,
  (endings as string).split(/\s+/).map((e) => {
    const [suffix, removed] = e.split(':');
    return [suffix!, removed ?? suffix!] as const;
  }),
]);

/** The stem, or undefined for a word the stemmer leaves alone (fewer than 3 or more than 29 letters). */
export function brazilianStem(term: string): string | undefined {
  let ct = changedTerm(term);
  if (ct.length < 3 || ct.length >= 30) return undefined;
  if (!ct.split('').every((unit) => isLetter(unit))) return ct;
  const r1 = regionOne(ct);
  const r2 = r1 === undefined ? undefined : regionOne(r1);
  const rv = regionV(ct);
  const ends = (region: string | undefined, suffix: string) => region?.endsWith(suffix) ?? false;
  const removed = (word: string, suffix: string) => (word.endsWith(suffix) ? word.slice(0, -suffix.length) : word);

  let altered = false;
  step1: for (const [least, rules] of STEP_1) {
    if (ct.length < least) continue;
    for (const [suffix, place, replacement] of rules) {
      if (!ct.endsWith(suffix)) continue;
      const inPlace =
        place === 'rv-after-e'
          ? ends(rv, suffix) && ct.slice(0, -suffix.length).endsWith('e')
          : ends(place === 'r1' ? r1 : r2, suffix);
      if (!inPlace) continue;
      if (replacement !== null) ct = ct.slice(0, -suffix.length) + (replacement ?? '');
      altered = true;
      break step1;
    }
  }
  if (!altered && rv !== undefined) {
    step2: for (const [least, endings] of STEP_2) {
      if (rv.length < least) continue;
      for (const [suffix, cut] of endings) {
        if (rv.endsWith(suffix)) {
          ct = removed(ct, cut);
          altered = true;
          break step2;
        }
      }
    }
  }
  if (rv !== undefined) {
    if (altered) {
      if (rv.endsWith('ci')) ct = removed(ct, 'i');
    } else {
      for (const residual of ['os', 'a', 'i', 'o']) {
        if (rv.endsWith(residual)) {
          ct = removed(ct, residual);
          break;
        }
      }
    }
    if (rv.endsWith('e')) {
      ct = removed(ct, 'e');
      if (rv.endsWith('gue')) ct = removed(ct, 'u');
      else if (rv.endsWith('cie')) ct = removed(ct, 'i');
    }
  }
  return ct;
}

/** Lowercase, accents and cedilla folded, one leading and one trailing punctuation mark off. */
function changedTerm(term: string): string {
  let ct = [...term.toLowerCase()].map((c) => FOLDED[c] ?? c).join('');
  if (ct.length < 2) return ct;
  if (LEADING.has(ct[0]!)) ct = ct.slice(1);
  if (ct.length < 2) return ct;
  if (LEADING.has(ct[ct.length - 1]!)) ct = ct.slice(0, -1);
  return ct;
}

/** R1 as this stemmer finds it (the last letter is never looked at); undefined when there is none. */
function regionOne(value: string): string | undefined {
  const last = value.length - 1;
  let j = 0;
  while (j < last && !isVowel(value[j])) j++;
  if (j >= last) return undefined;
  while (j < last && isVowel(value[j])) j++;
  if (j >= last) return undefined;
  return value.slice(j + 1);
}

/** RV: after the next vowel when the second letter is a consonant, after the next consonant after two vowels, else after the third letter. */
function regionV(value: string): string | undefined {
  const last = value.length - 1;
  if (last > 0 && !isVowel(value[1])) {
    let j = 2;
    while (j < last && !isVowel(value[j])) j++;
    if (j < last) return value.slice(j + 1);
  }
  if (last > 1 && isVowel(value[0]) && isVowel(value[1])) {
    let j = 2;
    while (j < last && isVowel(value[j])) j++;
    if (j < last) return value.slice(j + 1);
  }
  if (last > 2) return value.slice(3);
  return undefined;
}
