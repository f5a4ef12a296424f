/**
 * Lucene 4's DanishAnalyzer: standard tokens → lowercase → Danish stop words (Snowball's list) →
 * Snowball's Danish stemmer: in R1 the main endings (`-erendes`, `-hedens`, ..., `-e`; `-s` after
 * a valid s-ending), a final `gd`/`dt`/`gt`/`kt` halved, `-igst` → `-ig`, then `-ig`/`-lig`/
 * `-elig`/`-els` off (and the pair halved again) or `-løst` → `-løs`, and a doubled final
 * consonant undone.
 */
import { standardTokens, type Token } from '../tokenizers.js';
import { lowercased, snowballStemmed, withoutStopWords } from './filters.js';
import { cut, endingInR1, regionOne } from './scandinavian-snowball.js';

export const DANISH_STOP_WORDS: ReadonlySet<string> = new Set(
  `og i jeg det at en den til er som på de med han af for ikke der var mig sig men et har om vi min havde
  ham hun nu over da fra du ud sin dem os op man hans hvor eller hvad skal selv her alle vil blev kunne
  ind når være dog noget ville jo deres efter ned skulle denne end dette mit også under have dig anden
  hende mine alt meget sit sine vor mod disse hvis din nogle hos blive mange ad bliver hendes været thi
  jer sådan`.split(/\s+/),
);

export function danishAnalyzer(stop: ReadonlySet<string> = DANISH_STOP_WORDS): (text: string) => Token[] {
  return (text) => snowballStemmed(withoutStopWords(lowercased(standardTokens(text)), stop), danishStem);
}

const VOWELS = new Set('aeiouyæåø');
const S_ENDING = new Set('abcdfghjklmnoprtvyzå');
const MAIN = `hed ethed ered e erede ende erende ene erne ere en heden eren er heder erer s heds es endes erendes enes
  ernes eres ens hedens erens ers ets erets et eret`.split(/\s+/);
const PAIRS = ['gd', 'dt', 'gt', 'kt'];
const OTHER = ['ig', 'lig', 'elig', 'els', 'løst'];

export function danishStem(word: string): string {
  const r1 = regionOne(word, VOWELS);
  let w = word;
  const main = endingInR1(w, r1, MAIN);
  if (main === 's') {
    if (S_ENDING.has(w[w.length - 2] ?? '')) w = cut(w, 1);
  } else if (main !== undefined) w = cut(w, main.length);
  const consonantPair = (s: string) => (endingInR1(s, r1, PAIRS) !== undefined ? cut(s, 1) : s);
  w = consonantPair(w);
  if (w.endsWith('igst')) w = cut(w, 2);
  const other = endingInR1(w, r1, OTHER);
  if (other === 'løst') w = `${cut(w, 4)}løs`;
  else if (other !== undefined) w = consonantPair(cut(w, other.length));
  // Undouble: a final non-vowel in R1 that repeats the letter before it.
  const last = w[w.length - 1];
  if (w.length > r1 && last !== undefined && !VOWELS.has(last) && w[w.length - 2] === last) w = cut(w, 1);
  return w;
}
