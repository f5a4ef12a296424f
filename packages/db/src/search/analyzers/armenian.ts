/**
 * Lucene 4's ArmenianAnalyzer: standard tokens → lowercase → Armenian stop words (Lucene's list) →
 * Snowball's Armenian stemmer: inside the region after the first vowel, the longest case ending
 * (removed only when it starts in R2), then the longest verb, adjective and noun suffixes, each
 * removed from what the step before left.
 */
import { standardTokens, type Token } from '../tokenizers.js';
import { lowercased, snowballStemmed, withoutStopWords } from './filters.js';
import { Endings } from './snowball-among.js';
import { pastNext, regionsOneTwo } from './snowball-regions.js';

export const ARMENIAN_STOP_WORDS: ReadonlySet<string> = new Set(
  `այդ այլ այն այս դու դուք եմ են ենք ես եք է էի էին էինք էիր էիք էր ըստ թ ի ին իսկ իր կամ համար հետ հետո
  մենք մեջ մի ն նա նաև նրա նրանք որ որը որոնք որպես ու ում պիտի վրա և`.split(/\s+/),
);

export function armenianAnalyzer(stop: ReadonlySet<string> = ARMENIAN_STOP_WORDS): (text: string) => Token[] {
  return (text) => snowballStemmed(withoutStopWords(lowercased(standardTokens(text)), stop), armenianStem);
}

const VOWELS = new Set('աեէըիուօ');
const list = (endings: string) => new Endings(endings.split(/\s+/));

const ADJECTIVE = list(
  'րորդ երորդ ալի ակի որակ եղ ական արան են եկեն երեն որէն ին գին ովին լայն վուն պես իվ ատ ավետ կոտ բար',
);
const VERB = list(
  `ա ացա եցա վե ացրի ացի եցի վեցի ալ ըալ անալ ենալ ացնալ ել ըել նել ցնել եցնել չել վել ացվել եցվել տել ատել
  ոտել կոտել ված ում վում ան ցան ացան ացրին ացին եցին վեցին ալիս ելիս ավ ացավ եցավ ալով ելով ար ացար եցար
  ացրիր ացիր եցիր վեցիր աց եց ացրեց ալուց ելուց ալու ելու աք ցաք ացաք ացրիք ացիք եցիք վեցիք անք ցանք ացանք
  ացրինք ացինք եցինք վեցինք`,
);
const NOUN = list(
  `որդ ույթ ուհի ցի իլ ակ յակ անակ իկ ուկ ան պան ստան արան եղէն յուն ություն ածո իչ ուս ուստ գար վոր ավոր ոց
  անօց ու ք չեք իք ալիք անիք վածք ույք ենք ոնք ունք մունք իչք արք`,
);
const ENDING = list(
  `սա վա ամբ դ անդ ությանդ վանդ ոջդ երդ ներդ ուդ ը անը ությանը վանը ոջը երը ները ի վի երի ների անում երում
  ներում ն ան ության վան ին երին ներին ությանն երն ներն ուն ոջ ությանս վանս ոջս ով անով վով երով ներով եր
  ներ ց ից վանից ոջից վից երից ներից ցից ոց ուց`,
);

export function armenianStem(word: string): string {
  // pV: after the first vowel; p2 is R2.
  const pV = pastNext(word, 0, VOWELS, true);
  const p2 = regionsOneTwo(word, VOWELS).r2;
  let w = word;
  const ending = ENDING.longest(w, pV);
  if (ending !== undefined && w.length - ending.length >= p2) w = w.slice(0, w.length - ending.length);
  for (const suffixes of [VERB, ADJECTIVE, NOUN]) {
    const suffix = suffixes.longest(w, pV);
    if (suffix !== undefined) w = w.slice(0, w.length - suffix.length);
  }
  return w;
}
