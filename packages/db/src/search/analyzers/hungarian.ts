/**
 * Lucene 4's HungarianAnalyzer: standard tokens → lowercase → Hungarian stop words (Anna Tordai's
 * list from Snowball, as Lucene ships it) → Snowball's Hungarian stemmer, which removes noun
 * inflections in R1: the instrumental (`-al`/`-el` after a doubled consonant, then undoubled),
 * case endings (a final `á`/`é` left by them shortened), the special and other cases, the
 * factive, owned, singular- and plural-owner endings and the plural.
 */
import { standardTokens, type Token } from '../tokenizers.js';
import { lowercased, snowballStemmed, withoutStopWords } from './filters.js';
import { longestEnding, removed, replacedEnding } from './snowball-among.js';

export const HUNGARIAN_STOP_WORDS: ReadonlySet<string> = new Set(
  `a ahogy ahol aki akik akkor alatt által általában amely amelyek amelyekben amelyeket amelyet amelynek ami
  amit amolyan amíg amikor át abban ahhoz annak arra arról az azok azon azt azzal azért aztán azután azonban
  bár be belül benne cikk cikkek cikkeket csak de e eddig egész egy egyes egyetlen egyéb egyik egyre ekkor el
  elég ellen elő először előtt első én éppen ebben ehhez emilyen ennek erre ez ezt ezek ezen ezzel ezért és
  fel felé hanem hiszen hogy hogyan igen így illetve ill. ill ilyen ilyenkor ison ismét itt jó jól jobban kell
  kellett keresztül keressünk ki kívül között közül legalább lehet lehetett legyen lenne lenni lesz lett maga
  magát majd már más másik meg még mellett mert mely melyek mi mit míg miért milyen mikor minden mindent
  mindenki mindig mint mintha mivel most nagy nagyobb nagyon ne néha nekem neki nem néhány nélkül nincs
  olyan ott össze ő ők őket pedig persze rá s saját sem semmi sok sokat sokkal számára szemben szerint
  szinte talán tehát teljes tovább továbbá több úgy ugyanis új újabb újra után utána utolsó vagy vagyis
  valaki valami valamint való vagyok van vannak volt voltam voltak voltunk vissza vele viszont volna`.split(/\s+/),
);

export function hungarianAnalyzer(stop: ReadonlySet<string> = HUNGARIAN_STOP_WORDS): (text: string) => Token[] {
  return (text) => snowballStemmed(withoutStopWords(lowercased(standardTokens(text)), stop), hungarianStem);
}

const VOWELS = new Set('aeiouáéíóöőúüű');
const DIGRAPHS = ['cs', 'gy', 'ly', 'ny', 'sz', 'ty', 'zs', 'dzs'];
const DOUBLES = 'bb cc ccs dd ff gg ggy jj kk ll lly mm nn nny pp rr ss ssz tt tty vv zz zzs'.split(' ');

const V_ENDING = { á: 'a', é: 'e' };
const CASE = removed(
  `ban ben ba be ra re nak nek val vel tól től ról ről ból ből hoz hez höz nál nél ig at et ot öt ért képp képpen
  kor ul ül vá vé onként enként anként ként en on an ön n t`,
);
const CASE_SPECIAL = { én: 'e', án: 'a', ánként: 'a' };
const CASE_OTHER = { astul: '', estül: '', stul: '', stül: '', ástul: 'a', éstül: 'e' };
const OWNED = { ...removed('oké öké aké eké ké éi é'), éké: 'e', áké: 'a', ééi: 'e', áéi: 'a', éé: 'e' };
const SING_OWNER = {
  ...removed('ünk unk nk juk jük uk ük em om am m od ed ad öd d ja je a e o'),
  ánk: 'a',
  énk: 'e',
  ájuk: 'a',
  éjük: 'e',
  ám: 'a',
  ém: 'e',
  ád: 'a',
  éd: 'e',
  á: 'a',
  é: 'e',
};
const PLUR_OWNER = {
  ...removed(
    `jaim jeim aim eim im jaid jeid aid eid id jai jei ai ei i jaink jeink eink aink ink jaitok jeitek aitok
    eitek itek jeik jaik aik eik ik`,
  ),
  áim: 'a',
  éim: 'e',
  áid: 'a',
  éid: 'e',
  ái: 'a',
  éi: 'e',
  áink: 'a',
  éink: 'e',
  áitok: 'a',
  éitek: 'e',
  áik: 'a',
  éik: 'e',
};
const PLURAL = { ...removed('ök ak ok ek k'), ák: 'a', ék: 'e' };

export function hungarianStem(word: string): string {
  const p1 = regionOne(word);
  let w = word;
  const apply = (table: Readonly<Record<string, string>>) => {
    w = replacedEnding(w, p1, table) ?? w;
  };
  // The instrumental and the factive only after a doubled consonant, which is then undoubled.
  w = afterDoubleRemoved(w, p1, ['al', 'el']);
  const beforeCase = w;
  apply(CASE);
  if (w !== beforeCase) apply(V_ENDING);
  apply(CASE_SPECIAL);
  apply(CASE_OTHER);
  w = afterDoubleRemoved(w, p1, ['á', 'é']);
  apply(OWNED);
  apply(SING_OWNER);
  apply(PLUR_OWNER);
  apply(PLURAL);
  return w;
}

/** The longest of `endings`, in R1 and after a doubled consonant, removed and the consonant undoubled. */
function afterDoubleRemoved(w: string, p1: number, endings: readonly string[]): string {
  const ending = longestEnding(w, endings);
  if (ending === undefined || w.length - ending.length < p1) return w;
  const stem = w.slice(0, w.length - ending.length);
  if (longestEnding(stem, DOUBLES) === undefined) return w;
  return stem.slice(0, -2) + stem.slice(-1);
}

/**
 * R1: after a word-initial vowel, past the next consonant (a digraph counts as one); after a
 * word-initial consonant, past the next vowel.
 */
function regionOne(word: string): number {
  const isVowel = (c: string | undefined) => c !== undefined && VOWELS.has(c);
  if (isVowel(word[0])) {
    let i = 1;
    while (i < word.length && isVowel(word[i])) i++;
    if (i >= word.length) return word.length;
    let step = 1;
    for (const d of DIGRAPHS) if (word.startsWith(d, i)) step = Math.max(step, d.length);
    return i + step;
  }
  let i = 0;
  while (i < word.length && !isVowel(word[i])) i++;
  return i >= word.length ? word.length : i + 1;
}
