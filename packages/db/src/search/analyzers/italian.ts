/**
 * Lucene 4's ItalianAnalyzer: standard tokens → elision (`l'`, `dell'`, `un'`, ...) → lowercase →
 * Italian stop words (Snowball's list) → ItalianLightStemFilter (Savoy's light stemmer: accents
 * folded, the final vowel off, `-ie`/`-he`/`-hi`/`-ii`/`-ia`/`-io` as one ending).
 */
import { standardTokens, type Token } from '../tokenizers.js';
import { withoutElision } from './elision.js';
import { lowercased, withoutStopWords } from './filters.js';
import { FOLDED_VOWELS } from './spanish.js';
import { stemmed } from './stemmer-util.js';

export const ITALIAN_STOP_WORDS: ReadonlySet<string> = new Set(
  `ad al allo ai agli all agl alla alle con col coi da dal dallo dai dagli dall dagl dalla dalle di del
  dello dei degli dell degl della delle in nel nello nei negli nell negl nella nelle su sul sullo sui
  sugli sull sugl sulla sulle per tra contro io tu lui lei noi voi loro mio mia miei mie tuo tua tuoi
  tue suo sua suoi sue nostro nostra nostri nostre vostro vostra vostri vostre mi ti ci vi lo la li le
  gli ne il un uno una ma ed se perché anche come dov dove che chi cui non più quale quanto quanti
  quanta quante quello quelli quella quelle questo questi questa queste si tutto tutti a c e i l o ho
  hai ha abbiamo avete hanno abbia abbiate abbiano avrò avrai avrà avremo avrete avranno avrei avresti
  avrebbe avremmo avreste avrebbero avevo avevi aveva avevamo avevate avevano ebbi avesti ebbe avemmo
  aveste ebbero avessi avesse avessimo avessero avendo avuto avuta avuti avute sono sei è siamo siete
  sia siate siano sarò sarai sarà saremo sarete saranno sarei saresti sarebbe saremmo sareste
  sarebbero ero eri era eravamo eravate erano fui fosti fu fummo foste furono fossi fosse fossimo
  fossero essendo faccio fai facciamo fanno faccia facciate facciano farò farai farà faremo farete
  faranno farei faresti farebbe faremmo fareste farebbero facevo facevi faceva facevamo facevate
  facevano feci facesti fece facemmo faceste fecero facessi facesse facessimo facessero facendo sto
  stai sta stiamo stanno stia stiate stiano starò starai starà staremo starete staranno starei staresti
  starebbe staremmo stareste starebbero stavo stavi stava stavamo stavate stavano stetti stesti stette
  stemmo steste stettero stessi stesse stessimo stessero stando`.split(/\s+/),
);

/** ItalianAnalyzer.DEFAULT_ARTICLES. */
const ARTICLES = new Set('c l all dall dell nell sull coll pell gl agl dagl degl negl sugl un m t s v d'.split(' '));

export function italianAnalyzer(stop: ReadonlySet<string> = ITALIAN_STOP_WORDS): (text: string) => Token[] {
  return (text) =>
    stemmed(withoutStopWords(lowercased(withoutElision(standardTokens(text), ARTICLES)), stop), italianLightStem);
}

/** ItalianLightStemmer.stem. */
export function italianLightStem(s: string[], len: number): number {
  if (len < 6) return len;
  for (let i = 0; i < len; i++) s[i] = FOLDED_VOWELS[s[i]!] ?? s[i]!;
  const before = s[len - 2];
  switch (s[len - 1]) {
    case 'e':
      return before === 'i' || before === 'h' ? len - 2 : len - 1;
    case 'i':
      return before === 'h' || before === 'i' ? len - 2 : len - 1;
    case 'a':
    case 'o':
      return before === 'i' ? len - 2 : len - 1;
  }
  return len;
}
