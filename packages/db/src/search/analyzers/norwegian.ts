/**
 * Lucene 4's NorwegianAnalyzer: standard tokens → lowercase → Norwegian stop words (Snowball's
 * list, bokmål and nynorsk) → Snowball's Norwegian stemmer: in R1 the main endings (`-hetenes`,
 * `-hetene`, ..., `-a`, `-e`; `-erte`/`-ert` → `-er`; `-s` after a valid s-ending or a `k` after a
 * non-vowel), a final `dt`/`vt` halved, then `-hetslov`, `-elov`, `-elig`, `-leg`, `-ig`, ... off.
 */
import { standardTokens, type Token } from '../tokenizers.js';
import { lowercased, snowballStemmed, withoutStopWords } from './filters.js';
import { cut, endingInR1, regionOne } from './scandinavian-snowball.js';

export const NORWEGIAN_STOP_WORDS: ReadonlySet<string> = new Set(
  `og i jeg det at en et den til er som på de med han av ikke ikkje der så var meg seg men ett har om vi
  min mitt ha hadde hun nå over da ved fra du ut sin dem oss opp man kan hans hvor eller hva skal selv
  sjøl her alle vil bli ble blei blitt kunne inn når være kom noen noe ville dere deres kun ja etter ned
  skulle denne for deg si sine sitt mot å meget hvorfor dette disse uten hvordan ingen din ditt blir
  samme hvilken hvilke sånn inni mellom vår hver hvem vors hvis både bare enn fordi før mange også slik
  vært båe begge siden dykk dykkar dei deira deires deim di då eg ein eit eitt elles honom hjå ho hoe
  henne hennar hennes hoss hossen ingi inkje korleis korso kva kvar kvarhelst kven kvi kvifor me medan
  mi mine mykje no nokon noka nokor noko nokre sia sidan so somt somme um upp vere vore verte vort varte
  vart`.split(/\s+/),
);

export function norwegianAnalyzer(stop: ReadonlySet<string> = NORWEGIAN_STOP_WORDS): (text: string) => Token[] {
  return (text) => snowballStemmed(withoutStopWords(lowercased(standardTokens(text)), stop), norwegianStem);
}

const VOWELS = new Set('aeiouyæåø');
const S_ENDING = new Set('bcdfghjlmnoprtvyz');
const MAIN = `a e ede ande ende ane ene hetene erte en heten ar er heter s as es edes endes enes hetenes ens hetens
  ers ets et het ert ast`.split(/\s+/);
const PAIRS = ['dt', 'vt'];
const OTHER = ['leg', 'eleg', 'ig', 'eig', 'lig', 'elig', 'els', 'lov', 'elov', 'slov', 'hetslov'];

export function norwegianStem(word: string): string {
  const r1 = regionOne(word, VOWELS);
  let w = word;
  const main = endingInR1(w, r1, MAIN);
  if (main === 's') {
    const before = w[w.length - 2] ?? '';
    const beforeK = w[w.length - 3];
    if (S_ENDING.has(before) || (before === 'k' && beforeK !== undefined && !VOWELS.has(beforeK))) w = cut(w, 1);
  } else if (main === 'erte' || main === 'ert') w = `${cut(w, main.length)}er`;
  else if (main !== undefined) w = cut(w, main.length);
  if (endingInR1(w, r1, PAIRS) !== undefined) w = cut(w, 1);
  const other = endingInR1(w, r1, OTHER);
  if (other !== undefined) w = cut(w, other.length);
  return w;
}
