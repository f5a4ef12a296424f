/**
 * Lucene 4's FinnishAnalyzer: standard tokens → lowercase → Finnish stop words (Snowball's list,
 * as Lucene ships it) → Snowball's Finnish stemmer (the version in Lucene 4's
 * org.tartarus.snowball.ext): in R1 a particle (`-kin`, `-han`, ...; `-sti` in R2), a possessive
 * (`-ni`, `-si`, `-nsa`, ...), a case ending (illative, genitive, partitive, locative cases, ...),
 * in R2 a comparative or superlative; then a plural `i`/`j` (after a case ending) or `t`, and a
 * tidy-up: a long vowel halved, a final `a`/`ä`/`e`/`i` after a consonant dropped, a doubled last
 * consonant undone.
 */
import { standardTokens, type Token } from '../tokenizers.js';
import { lowercased, snowballStemmed, withoutStopWords } from './filters.js';
import { cut } from './scandinavian-snowball.js';

export const FINNISH_STOP_WORDS: ReadonlySet<string> = new Set(
  `olla olen olet on olemme olette ovat ole oli olisi olisit olisin olisimme olisitte olisivat olit olin olimme
  olitte olivat ollut olleet en et ei emme ette eivät
  minä minun minut minua minussa minusta minuun minulla minulta minulle
  sinä sinun sinut sinua sinussa sinusta sinuun sinulla sinulta sinulle
  hän hänen hänet häntä hänessä hänestä häneen hänellä häneltä hänelle
  me meidän meidät meitä meissä meistä meihin meillä meiltä meille
  te teidän teidät teitä teissä teistä teihin teillä teiltä teille
  he heidän heidät heitä heissä heistä heihin heillä heiltä heille
  tämä tämän tätä tässä tästä tähän tällä tältä tälle tänä täksi
  tuo tuon tuota tuossa tuosta tuohon tuolla tuolta tuolle tuona tuoksi
  se sen sitä siinä siitä siihen sillä siltä sille sinä siksi
  nämä näiden näitä näissä näistä näihin näillä näiltä näille näinä näiksi
  nuo noiden noita noissa noista noihin noilla noilta noille noina noiksi
  ne niiden niitä niissä niistä niihin niillä niiltä niille niinä niiksi
  kuka kenen kenet ketä kenessä kenestä keneen kenellä keneltä kenelle kenenä keneksi
  ketkä keiden ketkä keitä keissä keistä keihin keillä keiltä keille keinä keiksi
  mikä minkä minkä mitä missä mistä mihin millä miltä mille minä miksi mitkä
  joka jonka jota jossa josta johon jolla jolta jolle jona joksi
  jotka joiden joita joissa joista joihin joilla joilta joille joina joiksi
  että ja jos koska kuin mutta niin sekä sillä tai vaan vai vaikka
  kanssa mukaan noin poikki yli kun nyt itse`.split(/\s+/),
);

export function finnishAnalyzer(stop: ReadonlySet<string> = FINNISH_STOP_WORDS): (text: string) => Token[] {
  return (text) => snowballStemmed(withoutStopWords(lowercased(standardTokens(text)), stop), finnishStem);
}

/** Snowball's `v` (with `y`), and `V` (without it, for the `i` + vowel of an illative). */
const VOWELS = new Set('aeiouyäö');
const VOWELS_NO_Y = new Set('aeiouäö');
const PARTICLE_END = new Set('aeiouyäönt');
const AEI = new Set('aäei');
const LONG_VOWELS = ['aa', 'ee', 'ii', 'oo', 'uu', 'ää', 'öö'];

const isVowel = (c: string | undefined) => c !== undefined && VOWELS.has(c);
const endsLong = (w: string) => LONG_VOWELS.some((pair) => w.endsWith(pair));

/** The longest of `endings` that `w` ends with, starting at `from` or after. */
function longestFrom(w: string, from: number, endings: readonly string[]): string | undefined {
  let best: string | undefined;
  for (const e of endings) {
    if (w.length - e.length >= from && w.endsWith(e) && (best === undefined || e.length > best.length)) best = e;
  }
  return best;
}

const PARTICLES = ['kin', 'kaan', 'kään', 'ko', 'kö', 'han', 'hän', 'pa', 'pä', 'sti'];
const POSSESSIVES = ['si', 'ni', 'nsa', 'nsä', 'mme', 'nne', 'an', 'än', 'en'];
/** The case endings, each with the test that the word before it must pass (none: always). */
const CASES: Record<string, ((stem: string) => boolean) | undefined> = {
  han: (s) => s.endsWith('a'),
  hen: (s) => s.endsWith('e'),
  hin: (s) => s.endsWith('i'),
  hon: (s) => s.endsWith('o'),
  hän: (s) => s.endsWith('ä'),
  hön: (s) => s.endsWith('ö'),
  siin: undefined,
  seen: undefined,
  den: undefined,
  tten: undefined,
  n: undefined,
  a: (s) => isVowel(s[s.length - 1]) && s.length >= 2 && !isVowel(s[s.length - 2]),
  ä: (s) => isVowel(s[s.length - 1]) && s.length >= 2 && !isVowel(s[s.length - 2]),
  tta: (s) => s.endsWith('e'),
  ttä: (s) => s.endsWith('e'),
  ta: undefined,
  tä: undefined,
  ssa: undefined,
  ssä: undefined,
  sta: undefined,
  stä: undefined,
  lla: undefined,
  llä: undefined,
  lta: undefined,
  ltä: undefined,
  lle: undefined,
  na: undefined,
  nä: undefined,
  ksi: undefined,
  ine: undefined,
};
const CASE_ENDINGS = Object.keys(CASES);
const LONGER_N_ENDINGS: Record<string, (stem: string) => boolean> = {
  siin: (s) => endsVI(s),
  seen: (s) => endsLong(s),
  den: (s) => endsVI(s),
  tten: (s) => endsVI(s),
};
const OTHER_ENDINGS = 'mpi mpa mpä mmi mma mmä impi impa impä immi imma immä eja ejä'.split(' ');

/** `i` after a vowel other than `y` (Snowball's VI). */
function endsVI(s: string): boolean {
  return s.endsWith('i') && s.length >= 2 && VOWELS_NO_Y.has(s[s.length - 2]!);
}

export function finnishStem(word: string): string {
  const { p1, p2 } = regions(word);
  let w = word;

  // Particles and the adverb ending `-sti`.
  const particle = longestFrom(w, p1, PARTICLES);
  if (particle !== undefined) {
    const stem = cut(w, particle.length);
    const allowed = particle === 'sti' ? stem.length >= p2 : PARTICLE_END.has(stem[stem.length - 1] ?? '');
    if (allowed) w = stem;
  }

  // Possessive suffixes; a `-Vn` one only after a case ending.
  const possessive = longestFrom(w, p1, POSSESSIVES);
  if (possessive !== undefined) {
    const stem = cut(w, possessive.length);
    if (possessive === 'si') {
      if (!stem.endsWith('k')) w = stem;
    } else if (possessive === 'ni') {
      // `kseni` is `ksi` + `ni`.
      w = stem.endsWith('kse') ? `${cut(stem, 1)}i` : stem;
    } else if (possessive === 'an') {
      if (['ta', 'ssa', 'sta', 'lla', 'lta', 'na'].some((e) => stem.endsWith(e))) w = stem;
    } else if (possessive === 'än') {
      if (['tä', 'ssä', 'stä', 'llä', 'ltä', 'nä'].some((e) => stem.endsWith(e))) w = stem;
    } else if (possessive === 'en') {
      if (stem.endsWith('lle') || stem.endsWith('ine')) w = stem;
    } else w = stem;
  }

  // Case endings.
  let endingRemoved = false;
  let caseEnding = longestFrom(w, p1, CASE_ENDINGS);
  // These four must follow an `i` + vowel (`-seen`: a long vowel) inside R1, or only their `-n` goes.
  if (caseEnding !== undefined && caseEnding in LONGER_N_ENDINGS) {
    const before = cut(w, caseEnding.length);
    const fits = LONGER_N_ENDINGS[caseEnding]!(before) && before.length - 2 >= p1;
    if (!fits) caseEnding = 'n';
  }
  if (caseEnding !== undefined) {
    const stem = cut(w, caseEnding.length);
    const test = CASES[caseEnding];
    if (test === undefined || test(stem)) {
      // A genitive or illative `-n` after a long vowel or `ie` takes that vowel's last letter too.
      w = caseEnding === 'n' && (endsLong(stem) || stem.endsWith('ie')) ? cut(stem, 1) : stem;
      endingRemoved = true;
    }
  }

  // Comparatives, superlatives and the agent ending, in R2.
  const other = longestFrom(w, p2, OTHER_ENDINGS);
  if (other !== undefined) {
    const stem = cut(w, other.length);
    if (!(other.length === 3 && other.startsWith('m') && stem.endsWith('po'))) w = stem;
  }

  // Plurals.
  if (endingRemoved) {
    if (longestFrom(w, p1, ['i', 'j']) !== undefined) w = cut(w, 1);
  } else if (w.endsWith('t') && w.length - 2 >= p1 && isVowel(w[w.length - 2])) {
    w = cut(w, 1);
    const superlative = longestFrom(w, p2, ['mma', 'imma']);
    if (superlative !== undefined) {
      const stem = cut(w, superlative.length);
      if (superlative === 'imma' || !stem.endsWith('po')) w = stem;
    }
  }

  return tidied(w, p1);
}

function tidied(word: string, p1: number): string {
  let w = word;
  if (w.length < p1) return w;
  const inR1 = (from: number) => w.length - from >= p1;
  if (inR1(2) && endsLong(w)) w = cut(w, 1);
  if (inR1(2) && AEI.has(w[w.length - 1]!) && !isVowel(w[w.length - 2])) w = cut(w, 1);
  if (inR1(2) && w.endsWith('j') && (w[w.length - 2] === 'o' || w[w.length - 2] === 'u')) w = cut(w, 1);
  if (inR1(2) && w.endsWith('o') && w[w.length - 2] === 'j') w = cut(w, 1);
  // Undouble the last consonant of the word, wherever it is.
  let i = w.length - 1;
  while (i >= 0 && isVowel(w[i])) i--;
  if (i >= 1 && w[i - 1] === w[i]) w = w.slice(0, i) + w.slice(i + 1);
  return w;
}

/** R1 and R2: after the first non-vowel that follows a vowel, and the same again after R1. */
function regions(word: string): { p1: number; p2: number } {
  const afterVowelThenNonVowel = (from: number): number | undefined => {
    let i = from;
    while (i < word.length && !isVowel(word[i])) i++;
    while (i < word.length && isVowel(word[i])) i++;
    return i < word.length ? i + 1 : undefined;
  };
  const p1 = afterVowelThenNonVowel(0);
  if (p1 === undefined) return { p1: word.length, p2: word.length };
  return { p1, p2: afterVowelThenNonVowel(p1) ?? word.length };
}
