/**
 * Lucene's PolishAnalyzer: standard tokens → lowercase → Polish stop words (Lucene's list, from
 * Carrot2) → StempelFilter with Lucene's `stemmer_20000.tbl` (words of four or more UTF-16
 * units; a word the table gives no stem for stays as it is).
 */
import { standardTokens, type Token } from '../tokenizers.js';
import { dictionaryBytes, onFirstUse } from './dictionary-files.js';
import { lowercased, withoutStopWords } from './filters.js';
import { readStempelTable, stempelStem } from './stempel.js';

export const POLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  `vol o.o. mgr godz zł www pl ul tel hab prof inż dr i u aby albo ale ani aż bardzo bez bo bowiem by
  byli bym był była było były być będzie będą chce choć co coraz coś czy czyli często dla do gdy gdyby
  gdyż gdzie go ich im inne iż ja jak jakie jako je jednak jednym jedynie jego jej jest jeszcze jeśli
  jeżeli już ją kiedy kilku kto która które którego której który których którym którzy lat lecz lub ma
  mają mamy mi miał mimo mnie mogą może można mu musi na nad nam nas nawet nic nich nie niej nim niż no
  nowe np nr o od ok on one oraz pan po pod ponad ponieważ poza przed przede przez przy raz razie roku
  również się sobie sposób swoje są ta tak takich takie także tam te tego tej temu ten teraz też to
  trzeba tu tych tylko tym tys tzw tę w we wie więc wszystko wśród właśnie z za zaś ze że żeby ii iii
  iv vi vii viii ix xi xii xiii xiv xv`.split(/\s+/),
);

/** Lucene's Polish table (Egothor's multi trie, 20,000 words), read on the first word to stem. */
const polishTable = onFirstUse(() => readStempelTable(dictionaryBytes('polish-stempel.tbl.gz')));

/** StempelFilter's default: shorter words are kept as they are. */
const MIN_LENGTH = 3;

export function polishAnalyzer(stop: ReadonlySet<string> = POLISH_STOP_WORDS): (text: string) => Token[] {
  return (text) => {
    const tokens = withoutStopWords(lowercased(standardTokens(text)), stop);
    for (const token of tokens) {
      if (token.text.length > MIN_LENGTH) token.text = stempelStem(polishTable(), token.text) ?? token.text;
    }
    return tokens;
  };
}
