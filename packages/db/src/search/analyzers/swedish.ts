/**
 * Lucene 4's SwedishAnalyzer: standard tokens → lowercase → Swedish stop words (Snowball's list)
 * → Snowball's Swedish stemmer: in R1 the main endings (`-heterna`, `-arnas`, ..., `-a`, `-e`;
 * `-s` after a valid s-ending), a final `dd`/`gd`/`nn`/`dt`/`gt`/`kt`/`tt` halved, then `-lig`/
 * `-ig`/`-els` off, `-löst` → `-lös`, `-fullt` → `-full`.
 */
import { standardTokens, type Token } from '../tokenizers.js';
import { lowercased, snowballStemmed, withoutStopWords } from './filters.js';
import { cut, endingInR1, regionOne } from './scandinavian-snowball.js';

export const SWEDISH_STOP_WORDS: ReadonlySet<string> = new Set(
  `och det att i en jag hon som han på den med var sig för så till är men ett om hade de av icke mig du
  henne då sin nu har inte hans honom skulle hennes där min man ej vid kunde något från ut när efter upp
  vi dem vara vad över än dig kan sina här ha mot alla under någon eller allt mycket sedan ju denna själv
  detta åt utan varit hur ingen mitt ni bli blev oss din dessa några deras blir mina samma vilken er
  sådan vår blivit dess inom mellan sådant varför varje vilka ditt vem vilket sitt sådana vart dina vars
  vårt våra ert era vilkas`.split(/\s+/),
);

export function swedishAnalyzer(stop: ReadonlySet<string> = SWEDISH_STOP_WORDS): (text: string) => Token[] {
  return (text) => snowballStemmed(withoutStopWords(lowercased(standardTokens(text)), stop), swedishStem);
}

const VOWELS = new Set('aeiouyäåö');
const S_ENDING = new Set('bcdfghjklmnoprtvy');
const MAIN = `a arna erna heterna orna ad e ade ande arne are aste en anden aren heten ern ar er heter or s as arnas
  ernas ornas es ades andes ens arens hetens erns at andet het ast`.split(/\s+/);
const PAIRS = ['dd', 'gd', 'nn', 'dt', 'gt', 'kt', 'tt'];
const OTHER: Record<string, string> = { lig: '', ig: '', els: '', löst: 'lös', fullt: 'full' };

export function swedishStem(word: string): string {
  const r1 = regionOne(word, VOWELS);
  let w = word;
  const main = endingInR1(w, r1, MAIN);
  if (main === 's') {
    if (S_ENDING.has(w[w.length - 2] ?? '')) w = cut(w, 1);
  } else if (main !== undefined) w = cut(w, main.length);
  if (endingInR1(w, r1, PAIRS) !== undefined) w = cut(w, 1);
  const other = endingInR1(w, r1, Object.keys(OTHER));
  if (other !== undefined) w = cut(w, other.length) + OTHER[other]!;
  return w;
}
