/**
 * Lucene 4's LatvianAnalyzer: standard tokens → lowercase → Latvian stop words (Kreslins' list as
 * Lucene ships it) → LatvianStemFilter, a light version of Kreslins' stemmer: the first listed
 * noun or adjective ending that leaves a stem of at least three letters and one vowel comes off;
 * after a declension II, V or VI ending the stem's palatalized consonant is undone
 * (`pj` → `p`, `šņ` → `sn`, `č` → `c`, and after `-u` `kš` → `kst`, `ņņ` → `nn`).
 */
import { standardTokens, type Token } from '../tokenizers.js';
import { lowercased, withoutStopWords } from './filters.js';
import { endsWith, stemmed } from './stemmer-util.js';

export const LATVIAN_STOP_WORDS: ReadonlySet<string> = new Set(
  `aiz ap ar apakš ārpus augšpus bez caur dēļ gar iekš iz kopš labad lejpus līdz no otrpus pa par pār pēc
  pie pirms pret priekš starp šaipus uz viņpus virs virspus zem apakšpus un bet jo ja ka lai tomēr tikko
  turpretī arī kaut gan tādēļ tā ne tikvien vien kā ir te vai kamēr ar diezin droši diemžēl nebūt ik it
  taču nu pat tiklab iekšpus nedz tik nevis turpretim jeb iekam iekām iekāms kolīdz līdzko tiklīdz jebšu
  tālab tāpēc nekā itin jā jau jel nē nezin tad tikai vis tak iekams vien būt biju biji bija bijām bijāt
  esmu esi esam esat būšu būsi būs būsim būsiet tikt tiku tiki tika tikām tikāt tieku tiec tiek tiekam
  tiekat tikšu tiks tiksim tiksiet tapt tapi tapāt topat tapšu tapsi taps tapsim tapsiet kļūt kļuvu kļuvi
  kļuva kļuvām kļuvāt kļūstu kļūsti kļūst kļūstam kļūstat kļūšu kļūsi kļūs kļūsim kļūsiet varēt varēju
  varējām varēšu varēsim var varēji varējāt varēsi varēsiet varat varēja varēs`.split(/\s+/),
);

export function latvianAnalyzer(stop: ReadonlySet<string> = LATVIAN_STOP_WORDS): (text: string) => Token[] {
  return (text) => stemmed(withoutStopWords(lowercased(standardTokens(text)), stop), latvianStem);
}

/** Endings in the order they are tried: the ending, the vowels it has, whether it palatalizes. */
const AFFIXES: readonly (readonly [string, number, boolean])[] = [
  ['ajiem', 3, false],
  ['ajai', 3, false],
  ['ajam', 2, false],
  ['ajām', 2, false],
  ['ajos', 2, false],
  ['ajās', 2, false],
  ['iem', 2, true],
  ['ajā', 2, false],
  ['ais', 2, false],
  ['ai', 2, false],
  ['ei', 2, false],
  ['ām', 1, false],
  ['am', 1, false],
  ['ēm', 1, false],
  ['īm', 1, false],
  ['im', 1, false],
  ['um', 1, false],
  ['us', 1, true],
  ['as', 1, false],
  ['ās', 1, false],
  ['es', 1, false],
  ['os', 1, true],
  ['ij', 1, false],
  ['īs', 1, false],
  ['ēs', 1, false],
  ['is', 1, false],
  ['ie', 1, false],
  ['u', 1, true],
  ['a', 1, true],
  ['i', 1, true],
  ['e', 1, false],
  ['ā', 1, false],
  ['ē', 1, false],
  ['ī', 1, false],
  ['ū', 1, false],
  ['o', 1, false],
  ['s', 0, false],
  ['š', 0, false],
];
const VOWELS = new Set('aeiouāīēū');

export function latvianStem(s: string[], len: number): number {
  let vowels = 0;
  for (let i = 0; i < len; i++) if (VOWELS.has(s[i]!)) vowels++;
  for (const [affix, affixVowels, palatalizes] of AFFIXES) {
    if (vowels > affixVowels && len >= affix.length + 3 && endsWith(s, len, affix)) {
      len -= affix.length;
      return palatalizes ? unpalatalized(s, len) : len;
    }
  }
  return len;
}

/** Pairs the stem's last two letters become. */
const UNDONE_PAIRS: Readonly<Record<string, string>> = { šņ: 'sn', žņ: 'zn', šļ: 'sl', žļ: 'zl', ļņ: 'ln', ļļ: 'll' };
const UNDONE_LAST: Readonly<Record<string, string>> = { č: 'c', ļ: 'l', ņ: 'n' };

/** The consonant change undone; the ambiguous ones (s/t → š, d/z → ž) are left. */
function unpalatalized(s: string[], len: number): number {
  // The removed ending began with `u`: a genitive plural of declension II, V or VI.
  if (s[len] === 'u') {
    if (endsWith(s, len, 'kš')) {
      s[len - 1] = 's';
      s[len] = 't';
      return len + 1;
    }
    if (endsWith(s, len, 'ņņ')) {
      s[len - 2] = 'n';
      s[len - 1] = 'n';
      return len;
    }
  }
  if (['pj', 'bj', 'mj', 'vj'].some((labial) => endsWith(s, len, labial))) return len - 1;
  const pair = UNDONE_PAIRS[`${s[len - 2]}${s[len - 1]}`];
  if (len >= 2 && pair !== undefined) {
    s[len - 2] = pair[0]!;
    s[len - 1] = pair[1]!;
    return len;
  }
  const last = UNDONE_LAST[s[len - 1]!];
  if (last !== undefined) s[len - 1] = last;
  return len;
}
