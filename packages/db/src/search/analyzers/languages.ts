/**
 * The language analyzers of CouchDB's list that Divan has (Lucene 4's `*Analyzer` of each), by
 * the name an index definition gives: each takes its own stop words, or those given
 * (`{"name": "french", "stopwords": [...]}`).
 */
import type { Token } from '../tokenizers.js';
import { arabicAnalyzer } from './arabic.js';
import { armenianAnalyzer } from './armenian.js';
import { basqueAnalyzer } from './basque.js';
import { brazilianAnalyzer } from './brazilian.js';
import { bulgarianAnalyzer } from './bulgarian.js';
import { catalanAnalyzer } from './catalan.js';
import { chineseAnalyzer } from './chinese.js';
import { czechAnalyzer } from './czech.js';
import { danishAnalyzer } from './danish.js';
import { dutchAnalyzer } from './dutch.js';
import { finnishAnalyzer } from './finnish.js';
import { frenchAnalyzer } from './french.js';
import { galicianAnalyzer } from './galician.js';
import { germanAnalyzer } from './german.js';
import { greekAnalyzer } from './greek.js';
import { hindiAnalyzer } from './hindi.js';
import { hungarianAnalyzer } from './hungarian.js';
import { indonesianAnalyzer } from './indonesian.js';
import { irishAnalyzer } from './irish.js';
import { italianAnalyzer } from './italian.js';
import { japaneseAnalyzer } from './japanese.js';
import { latvianAnalyzer } from './latvian.js';
import { norwegianAnalyzer } from './norwegian.js';
import { persianAnalyzer } from './persian.js';
import { polishAnalyzer } from './polish.js';
import { portugueseAnalyzer } from './portuguese.js';
import { romanianAnalyzer } from './romanian.js';
import { russianAnalyzer } from './russian.js';
import { spanishAnalyzer } from './spanish.js';
import { swedishAnalyzer } from './swedish.js';
import { thaiAnalyzer } from './thai.js';
import { turkishAnalyzer } from './turkish.js';

type LanguageAnalyzer = (stop?: ReadonlySet<string>) => (text: string) => Token[];

const LANGUAGES: Record<string, LanguageAnalyzer> = {
  arabic: arabicAnalyzer,
  armenian: armenianAnalyzer,
  basque: basqueAnalyzer,
  brazilian: brazilianAnalyzer,
  bulgarian: bulgarianAnalyzer,
  catalan: catalanAnalyzer,
  chinese: chineseAnalyzer,
  czech: czechAnalyzer,
  danish: danishAnalyzer,
  dutch: dutchAnalyzer,
  finnish: finnishAnalyzer,
  french: frenchAnalyzer,
  galician: galicianAnalyzer,
  german: germanAnalyzer,
  greek: greekAnalyzer,
  hindi: hindiAnalyzer,
  hungarian: hungarianAnalyzer,
  indonesian: indonesianAnalyzer,
  irish: irishAnalyzer,
  italian: italianAnalyzer,
  japanese: japaneseAnalyzer,
  latvian: latvianAnalyzer,
  norwegian: norwegianAnalyzer,
  persian: persianAnalyzer,
  polish: polishAnalyzer,
  portuguese: portugueseAnalyzer,
  romanian: romanianAnalyzer,
  russian: russianAnalyzer,
  spanish: spanishAnalyzer,
  swedish: swedishAnalyzer,
  thai: thaiAnalyzer,
  turkish: turkishAnalyzer,
};

export const LANGUAGE_ANALYZER_NAMES: readonly string[] = Object.keys(LANGUAGES);

/** The analyzer of a language by name; undefined for a name that is none of them. */
export function languageAnalyzer(name: string, stop?: ReadonlySet<string>): ((text: string) => Token[]) | undefined {
  return Object.hasOwn(LANGUAGES, name) ? LANGUAGES[name]!(stop) : undefined;
}
