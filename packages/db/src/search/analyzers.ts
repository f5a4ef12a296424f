/**
 * The analyzers of CouchDB's `_search` (Clouseau, on Lucene 4): a text in, the terms a field
 * indexes (or a query looks up) out, with positions. Each is the tokenizer and filters Lucene's
 * analyzer of that name chains:
 *
 * | name         | Lucene 4                          | chain                                                  |
 * | ------------ | --------------------------------- | ------------------------------------------------------ |
 * | `standard`   | StandardAnalyzer                  | standard tokens → lowercase → English stop words        |
 * | `simple`     | SimpleAnalyzer                    | letter runs → lowercase                                 |
 * | `whitespace` | WhitespaceAnalyzer                | whitespace-separated, case kept                         |
 * | `keyword`    | KeywordAnalyzer                   | the whole text, one term                                |
 * | `email`      | UAX29URLEmailAnalyzer             | standard tokens, URLs and addresses whole → lowercase → stop |
 * | `classic`    | ClassicAnalyzer                   | classic grammar → ClassicFilter → lowercase → stop      |
 * | `english`    | EnglishAnalyzer                   | standard tokens → possessive `'s` off → lowercase → stop → Porter stem |
 * | `cjk`        | CJKAnalyzer                       | width folded → Han/Kana/Hangul runs as bigrams, the rest standard → lowercase → stop |
 *
 * and the language analyzers of ./analyzers/ (`arabic`, `armenian`, `basque`, `brazilian`, `bulgarian`,
 * `catalan`, `chinese`, `czech`, `danish`, `dutch`, `finnish`, `french`, `galician`, `german`, `greek`, `hindi`,
 * `hungarian`, `indonesian`, `irish`, `italian`, `japanese`, `latvian`, `norwegian`, `persian`, `polish`,
 * `portuguese`, `romanian`, `russian`, `spanish`, `swedish`, `thai`, `turkish`), each its Lucene
 * namesake's chain (`polish` on Lucene's Stempel table, `chinese` on SmartCN's dictionaries,
 * `japanese` on Kuromoji's IPADIC, all from packages/db/dictionaries/).
 *
 * `{"name": ..., "stopwords": [...]}` replaces the stop words of an analyzer that has them;
 * `{"name": "perfield", "default": ..., "fields": {...}}` picks one per field. Any other name is
 * refused (400) when the index is used, naming it.
 */
import { CouchError } from '../errors.js';
import { lowercased } from './analyzers/filters.js';
import { LANGUAGE_ANALYZER_NAMES, languageAnalyzer } from './analyzers/languages.js';
import { type InterningAnalysis, interningAnalysis } from './ascii-standard-terms.js';
import { porterStem } from './porter-stemmer.js';
import {
  cjkTokens,
  classicTokens,
  emailTokens,
  keywordTokens,
  letterTokens,
  standardTokens,
  type Token,
  whitespaceTokens,
} from './tokenizers.js';

export type { Token } from './tokenizers.js';

/** Lucene's `StopAnalyzer.ENGLISH_STOP_WORDS_SET`, the default of every analyzer here that stops words. */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set([
  'a',
  'an',
  'and',
  'are',
  'as',
  'at',
  'be',
  'but',
  'by',
  'for',
  'if',
  'in',
  'into',
  'is',
  'it',
  'no',
  'not',
  'of',
  'on',
  'or',
  'such',
  'that',
  'the',
  'their',
  'then',
  'there',
  'these',
  'they',
  'this',
  'to',
  'was',
  'will',
  'with',
]);

/**
 * A text's terms with their positions; `interning`, when the analyzer has it, the same terms of
 * an ASCII text as a dictionary's ids (./ascii-standard-terms.ts: what the mapper indexes by).
 */
export type Analyzer = ((text: string) => Token[]) & { interning?: InterningAnalysis };

function withInterning(analyzer: (text: string) => Token[], interning: InterningAnalysis): Analyzer {
  return Object.assign(analyzer, { interning });
}

/** The analyzers by name, for the messages that list them. */
export const ANALYZER_NAMES = [
  'standard',
  'simple',
  'whitespace',
  'keyword',
  'email',
  'classic',
  'english',
  'cjk',
] as const;

/** One analyzer by name, with its stop words replaced when `stopwords` is given. */
export function analyzerNamed(name: string, stopwords?: ReadonlySet<string>): Analyzer {
  const stop = stopwords ?? ENGLISH_STOP_WORDS;
  const language = languageAnalyzer(name, stopwords);
  if (language !== undefined) return language;
  switch (name) {
    case 'standard':
      return withInterning(
        (text) => withoutStopWords(lowercased(standardTokens(text)), stop),
        interningAnalysis((word) => (stop.has(word) ? undefined : word)),
      );
    case 'simple':
      return (text) => lowercased(letterTokens(text));
    case 'whitespace':
      return whitespaceTokens;
    case 'keyword':
      return keywordTokens;
    case 'email':
      return (text) => withoutStopWords(lowercased(emailTokens(text)), stop);
    case 'classic':
      return (text) => withoutStopWords(lowercased(classicFiltered(text)), stop);
    case 'english':
      return withInterning(
        (text) =>
          withoutStopWords(lowercased(withoutPossessives(standardTokens(text))), stop).map((t) => ({
            text: porterStem(t.text),
            position: t.position,
          })),
        interningAnalysis((word) => {
          const kept = word.endsWith("'s") ? word.slice(0, -2) : word;
          return stop.has(kept) ? undefined : porterStem(kept);
        }),
      );
    case 'cjk':
      return (text) => withoutStopWords(lowercased(cjkTokens(text)), stop);
    default:
      throw new CouchError(
        'bad_request',
        `Unsupported analyzer: ${name} (this server has ${[...ANALYZER_NAMES, ...LANGUAGE_ANALYZER_NAMES].join(', ')} and perfield)`,
      );
  }
}

/** The analyzer of each field, from an index definition's `analyzer` member (a name or an object). */
export interface FieldAnalyzers {
  forField(field: string): Analyzer;
}

export function fieldAnalyzers(spec: unknown): FieldAnalyzers {
  if (spec === undefined || spec === null) return uniform(analyzerNamed('standard'));
  if (typeof spec === 'string') return uniform(analyzerNamed(spec));
  if (typeof spec !== 'object' || Array.isArray(spec))
    throw new CouchError('bad_request', 'analyzer must be a string or an object');
  const object = spec as Record<string, unknown>;
  const name = object.name;
  if (typeof name !== 'string') throw new CouchError('bad_request', 'analyzer object must have a string `name`');
  if (name === 'perfield') {
    const fallback = fieldAnalyzers(object.default ?? 'standard');
    const fields = object.fields ?? {};
    if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) {
      throw new CouchError('bad_request', 'perfield analyzer `fields` must be an object');
    }
    const byField = new Map<string, Analyzer>();
    for (const [field, inner] of Object.entries(fields)) byField.set(field, fieldAnalyzers(inner).forField(field));
    return { forField: (field) => byField.get(field) ?? fallback.forField(field) };
  }
  const stopwords = object.stopwords;
  if (stopwords !== undefined) {
    if (!Array.isArray(stopwords) || stopwords.some((w) => typeof w !== 'string')) {
      throw new CouchError('bad_request', 'stopwords must be an array of strings');
    }
    return uniform(analyzerNamed(name, new Set(stopwords as string[])));
  }
  return uniform(analyzerNamed(name));
}

function uniform(analyzer: Analyzer): FieldAnalyzers {
  return { forField: () => analyzer };
}

/** StopFilter with position increments: the gap stays. */
function withoutStopWords(tokens: Token[], stop: ReadonlySet<string>): Token[] {
  return stop.size === 0 ? tokens : tokens.filter((t) => !stop.has(t.text));
}

/** EnglishPossessiveFilter: a trailing `'s` (any of three apostrophes) goes. */
function withoutPossessives(tokens: Token[]): Token[] {
  for (const token of tokens) {
    if (/['\u2019\uff07][sS]$/u.test(token.text)) token.text = token.text.slice(0, -2);
  }
  return tokens;
}

/** ClassicFilter: `'s` off apostrophe words, dots out of acronyms. */
function classicFiltered(text: string): Token[] {
  return classicTokens(text).map((t) => {
    if (t.type === 'apostrophe' && /'[sS]$/.test(t.text)) return { text: t.text.slice(0, -2), position: t.position };
    if (t.type === 'acronym') return { text: t.text.replaceAll('.', ''), position: t.position };
    return { text: t.text, position: t.position };
  });
}

/**
 * `POST /_search_analyze` (`{"analyzer", "text"}`): the terms an analyzer makes of a text, as
 * dreyfus_httpd checks the body.
 */
export function analyzeRequest(body: Record<string, unknown>): { tokens: string[] } {
  const { analyzer, text } = body;
  if (analyzer === undefined) throw new CouchError('bad_request', 'analyzer parameter is mandatory');
  if (text === undefined) throw new CouchError('bad_request', 'text parameter is mandatory');
  if (typeof text !== 'string') throw new CouchError('bad_request', 'text parameter must be a string');
  if (typeof analyzer === 'object' && analyzer !== null && (analyzer as Record<string, unknown>).name === 'perfield') {
    throw new CouchError('bad_request', 'perfield analyzer is not supported by /_search_analyze');
  }
  return {
    tokens: fieldAnalyzers(analyzer)
      .forField('default')(text)
      .map((t) => t.text),
  };
}
