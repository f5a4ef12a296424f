/**
 * Lucene 4's CzechAnalyzer: standard tokens → lowercase → Czech stop words (Lucene's list) →
 * CzechStemFilter (Dolamic and Savoy's light stemmer): a case ending off (the longest that leaves
 * enough of the word: `-atech`, `-ětem`/`-etem`/`-atům`, three-, two-letter endings, a final
 * vowel), then a possessive `-ov`/`-in`/`-ův`, then a final consonant normalized (`čt` → `ck`,
 * `št` → `sk`, `c`/`č` → `k`, `z`/`ž` → `h`, `e` before the last letter dropped, `ů` → `o`).
 */
import { standardTokens, type Token } from '../tokenizers.js';
import { lowercased, withoutStopWords } from './filters.js';
import { endsWith, stemmed } from './stemmer-util.js';

export const CZECH_STOP_WORDS: ReadonlySet<string> = new Set(
  `a s k o i u v z dnes cz tímto budeš budem byli jseš můj svým ta tomto tohle tuto tyto jej zda proč
  máte tato kam tohoto kdo kteří mi nám tom tomuto mít nic proto kterou byla toho protože asi ho naši
  napište re což tím takže svých její svými jste aj tu tedy teto bylo kde ke pravé ji nad nejsou či
  pod téma mezi přes ty pak vám ani když však neg jsem tento článku články aby jsme před pta jejich
  byl ještě až bez také pouze první vaše která nás nový tipy pokud může strana jeho své jiné zprávy
  nové není vás jen podle zde už být více bude již než který by které co nebo ten tak má při od po
  jsou jak další ale si se ve to jako za zpět ze do pro je na atd atp jakmile přičemž já on ona ono
  oni ony my vy jí ji mě mne jemu tomu těm těmu němu němuž jehož jíž jelikož jež jakož načež`.split(/\s+/),
);

export function czechAnalyzer(stop: ReadonlySet<string> = CZECH_STOP_WORDS): (text: string) => Token[] {
  return (text) => stemmed(withoutStopWords(lowercased(standardTokens(text)), stop), czechStem);
}

const ENDINGS_3 = `ech ich ích ého ěmi emi ému ěte ete ěti eti ího iho ími ímu imu ách ata aty ých ama ami ové ovi
  ými`.split(/\s+/);
const ENDINGS_2 = 'em es ém ím ům at ám os us ým mi ou'.split(' ');
const FINAL_VOWELS = new Set('aeiouůyáéíýě');

export function czechStem(s: string[], len: number): number {
  len = removeCase(s, len);
  if (len > 5 && (endsWith(s, len, 'ov') || endsWith(s, len, 'in') || endsWith(s, len, 'ův'))) len -= 2;
  return len > 0 ? normalize(s, len) : len;
}

function removeCase(s: string[], len: number): number {
  const any = (endings: readonly string[]) => endings.some((e) => endsWith(s, len, e));
  if (len > 7 && endsWith(s, len, 'atech')) return len - 5;
  if (len > 6 && any(['ětem', 'etem', 'atům'])) return len - 4;
  if (len > 5 && any(ENDINGS_3)) return len - 3;
  if (len > 4 && any(ENDINGS_2)) return len - 2;
  if (len > 3 && FINAL_VOWELS.has(s[len - 1]!)) return len - 1;
  return len;
}

function normalize(s: string[], len: number): number {
  if (endsWith(s, len, 'čt') || endsWith(s, len, 'št')) {
    s[len - 2] = s[len - 2] === 'č' ? 'c' : 's';
    s[len - 1] = 'k';
    return len;
  }
  const last = s[len - 1];
  if (last === 'c' || last === 'č') {
    s[len - 1] = 'k';
    return len;
  }
  if (last === 'z' || last === 'ž') {
    s[len - 1] = 'h';
    return len;
  }
  if (len > 1 && s[len - 2] === 'e') {
    s[len - 2] = s[len - 1]!;
    return len - 1;
  }
  if (len > 2 && s[len - 2] === 'ů') s[len - 2] = 'o';
  return len;
}
