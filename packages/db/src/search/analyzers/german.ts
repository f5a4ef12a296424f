/**
 * Lucene 4's GermanAnalyzer: standard tokens → lowercase → German stop words (Snowball's list) →
 * GermanNormalizationFilter (`ß` → `ss`, umlauts and `ae`/`oe`/`ue` folded, as Snowball's German2)
 * → GermanLightStemFilter (Savoy's "UniNE" light stemmer).
 */
import { standardTokens, type Token } from '../tokenizers.js';
import { lowercased, withoutStopWords } from './filters.js';
import { stemmed } from './stemmer-util.js';

export const GERMAN_STOP_WORDS: ReadonlySet<string> = new Set(
  `aber alle allem allen aller alles als also am an ander andere anderem anderen anderer anderes anderm
  andern anderr anders auch auf aus bei bin bis bist da damit dann der den des dem die das daß derselbe
  derselben denselben desselben demselben dieselbe dieselben dasselbe dazu dein deine deinem deinen
  deiner deines denn derer dessen dich dir du dies diese diesem diesen dieser dieses doch dort durch ein
  eine einem einen einer eines einig einige einigem einigen einiger einiges einmal er ihn ihm es etwas
  euer eure eurem euren eurer eures für gegen gewesen hab habe haben hat hatte hatten hier hin hinter
  ich mich mir ihr ihre ihrem ihren ihrer ihres euch im in indem ins ist jede jedem jeden jeder jedes
  jene jenem jenen jener jenes jetzt kann kein keine keinem keinen keiner keines können könnte machen
  man manche manchem manchen mancher manches mein meine meinem meinen meiner meines mit muss musste
  nach nicht nichts noch nun nur ob oder ohne sehr sein seine seinem seinen seiner seines selbst sich
  sie ihnen sind so solche solchem solchen solcher solches soll sollte sondern sonst über um und uns
  unse unsem unsen unser unses unter viel vom von vor während war waren warst was weg weil weiter
  welche welchem welchen welcher welches wenn werde werden wie wieder will wir wird wirst wo wollen
  wollte würde würden zu zum zur zwar zwischen`.split(/\s+/),
);

export function germanAnalyzer(stop: ReadonlySet<string> = GERMAN_STOP_WORDS): (text: string) => Token[] {
  return (text) => {
    const tokens = withoutStopWords(lowercased(standardTokens(text)), stop);
    for (const token of tokens) token.text = germanNormalized(token.text);
    return stemmed(tokens, germanLightStem);
  };
}

/** GermanNormalizationFilter: a three-state machine over the term's units. */
export function germanNormalized(text: string): string {
  const ORDINARY = 0;
  const AFTER_VOWEL = 1;
  const UMLAUT = 2;
  let state = ORDINARY;
  let out = '';
  for (const c of text) {
    switch (c) {
      case 'a':
      case 'o':
        state = UMLAUT;
        out += c;
        break;
      case 'u':
        state = state === ORDINARY ? UMLAUT : AFTER_VOWEL;
        out += c;
        break;
      case 'e':
        // `ae`, `oe`, `ue` (not after a vowel or q): the e goes.
        if (state !== UMLAUT) out += c;
        state = AFTER_VOWEL;
        break;
      case 'i':
      case 'q':
      case 'y':
        state = AFTER_VOWEL;
        out += c;
        break;
      case 'ä':
        out += 'a';
        state = AFTER_VOWEL;
        break;
      case 'ö':
        out += 'o';
        state = AFTER_VOWEL;
        break;
      case 'ü':
        out += 'u';
        state = AFTER_VOWEL;
        break;
      case 'ß':
        out += 'ss';
        state = ORDINARY;
        break;
      default:
        out += c;
        state = ORDINARY;
    }
  }
  return out;
}

const FOLDED: Record<string, string> = {
  ä: 'a',
  à: 'a',
  á: 'a',
  â: 'a',
  ö: 'o',
  ò: 'o',
  ó: 'o',
  ô: 'o',
  ï: 'i',
  ì: 'i',
  í: 'i',
  î: 'i',
  ü: 'u',
  ù: 'u',
  ú: 'u',
  û: 'u',
};

/** The letters after which a final `s` (or `st`) is an ending. */
const ST_ENDING = new Set(['b', 'd', 'f', 'g', 'h', 'k', 'l', 'm', 'n', 't']);

/** GermanLightStemmer.stem. */
export function germanLightStem(s: string[], len: number): number {
  for (let i = 0; i < len; i++) s[i] = FOLDED[s[i]!] ?? s[i]!;
  return step2(s, step1(s, len));
}

function step1(s: string[], len: number): number {
  if (len > 5 && s[len - 3] === 'e' && s[len - 2] === 'r' && s[len - 1] === 'n') return len - 3;
  if (len > 4 && s[len - 2] === 'e' && ['m', 'n', 'r', 's'].includes(s[len - 1]!)) return len - 2;
  if (len > 3 && s[len - 1] === 'e') return len - 1;
  if (len > 3 && s[len - 1] === 's' && ST_ENDING.has(s[len - 2]!)) return len - 1;
  return len;
}

function step2(s: string[], len: number): number {
  if (len > 5 && s[len - 3] === 'e' && s[len - 2] === 's' && s[len - 1] === 't') return len - 3;
  if (len > 4 && s[len - 2] === 'e' && (s[len - 1] === 'r' || s[len - 1] === 'n')) return len - 2;
  if (len > 4 && s[len - 2] === 's' && s[len - 1] === 't' && ST_ENDING.has(s[len - 3]!)) return len - 2;
  return len;
}
