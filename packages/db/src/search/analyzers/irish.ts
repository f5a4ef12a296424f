/**
 * Lucene 4's IrishAnalyzer: standard tokens → the hyphenation particles `h`, `n`, `t` dropped
 * (StandardTokenizer splits `t-athair`; their positions stay empty) → elision of `d'`, `m'`, `b'`
 * → IrishLowerCaseFilter (`nAthair` → `n-athair`, `tUisce` → `t-uisce`, then lowercase) → Irish
 * stop words (as Lucene ships them) → Snowball's Irish stemmer: an initial mutation undone
 * (eclipsis, lenition, `n-`/`t-`/`h-`), then noun, derivational and verb endings by region.
 */
import { standardTokens, type Token } from '../tokenizers.js';
import { withoutElision } from './elision.js';
import { snowballStemmed, withoutStopWords } from './filters.js';
import { longestEnding } from './snowball-among.js';

export const IRISH_STOP_WORDS: ReadonlySet<string> = new Set(
  `a ach ag agus an aon ar arna as b' ba beirt bhúr caoga ceathair ceathrar chomh chtó chuig chun cois céad
  cúig cúigear d' daichead dar de deich deichniúr den dhá do don dtí dá dár dó faoi faoin faoina faoinár fara
  fiche gach gan go gur haon hocht i iad idir in ina ins inár is le leis lena lenár m' mar mo mé na nach naoi
  naonúr ná ní níor nó nócha ocht ochtar os roimh sa seacht seachtar seachtó seasca seisear siad sibh sinn
  sna sé sí tar thar thú triúr trí trína trínár tríocha tú um ár é éis í ó ón óna ónár`.split(/\s+/),
);

const ARTICLES: ReadonlySet<string> = new Set(['d', 'm', 'b']);
const HYPHENATIONS: ReadonlySet<string> = new Set(['h', 'n', 't']);

export function irishAnalyzer(stop: ReadonlySet<string> = IRISH_STOP_WORDS): (text: string) => Token[] {
  return (text) => {
    const tokens = standardTokens(text).filter((t) => !HYPHENATIONS.has(t.text.toLowerCase()));
    return snowballStemmed(withoutStopWords(irishLowercased(withoutElision(tokens, ARTICLES)), stop), irishStem);
  };
}

const UPPER_VOWELS = new Set('AEIOUÁÉÍÓÚ');

/** IrishLowerCaseFilter: an `n` or `t` before a capital vowel is a prefix, kept apart by a hyphen. */
export function irishLowercased(tokens: Token[]): Token[] {
  for (const token of tokens) {
    const t = token.text;
    const prefixed = t.length > 1 && (t[0] === 'n' || t[0] === 't') && UPPER_VOWELS.has(t[1]!);
    token.text = prefixed ? `${t[0]}-${t.slice(1).toLowerCase()}` : t.toLowerCase();
  }
  return tokens;
}

const VOWELS = new Set('aeiouáéíóú');

/** The initial mutations and contractions, and what each becomes. */
const INITIAL: Readonly<Record<string, string>> = {
  'h-': '',
  'n-': '',
  't-': '',
  "d'": '',
  "d'fh": 'f',
  "m'": '',
  "b'": '',
  sh: 's',
  mb: 'b',
  gc: 'c',
  nd: 'd',
  bhf: 'f',
  ng: 'g',
  bp: 'p',
  ts: 's',
  dt: 't',
  bh: 'b',
  ch: 'c',
  dh: 'd',
  fh: 'f',
  gh: 'g',
  mh: 'm',
  ph: 'p',
  th: 't',
};

type Region = 'rv' | 'r1' | 'r2' | 'none';
/** Each ending with the region it must start in and what it becomes. */
type Endings = Readonly<Record<string, readonly [Region, string]>>;

const group = (endings: string, region: Region, replacement: string) =>
  Object.fromEntries(endings.split(/\s+/).map((e) => [e, [region, replacement] as const]));

const NOUN: Endings = {
  ...group('amh eamh abh eabh aibh ibh aimh imh aíocht íocht aíochta íochta', 'r1', ''),
  ...group('ire irí aire airí', 'r2', ''),
};
const DERIV: Endings = {
  ...group('acht eacht ach each eachtúil eachta achtúil achta', 'r2', ''),
  ...group('arcacht arcachtaí arcachta', 'none', 'arc'),
  ...group('gineach gineas ginis', 'none', 'gin'),
  ...group('grafaíoch grafaíocht grafaíochta grafaíochtaí', 'none', 'graf'),
  ...group('paite patach pataigh patacha', 'none', 'paite'),
  ...group('óideach óideacha óidigh', 'none', 'óid'),
};
const VERB: Endings = {
  ...group('imid aimid ímid aímid faidh fidh', 'rv', ''),
  ...group('ain eadh adh áil tear tar', 'r1', ''),
};

export function irishStem(word: string): string {
  let w = word;
  let prefix: string | undefined;
  for (const p of Object.keys(INITIAL))
    if (w.startsWith(p) && (prefix === undefined || p.length > prefix.length)) prefix = p;
  if (prefix !== undefined) w = INITIAL[prefix]! + w.slice(prefix.length);

  const regions = regionsOf(w);
  for (const endings of [NOUN, DERIV, VERB]) {
    const ending = longestEnding(w, Object.keys(endings));
    if (ending === undefined) continue;
    const [region, replacement] = endings[ending]!;
    if (region === 'none' || w.length - ending.length >= regions[region]) {
      w = w.slice(0, w.length - ending.length) + replacement;
    }
  }
  return w;
}

/** RV: after the first vowel; R1 and R2: after a vowel then a non-vowel, once and twice. */
function regionsOf(word: string): Record<'rv' | 'r1' | 'r2', number> {
  const n = word.length;
  const pastVowel = (from: number) => {
    let i = from;
    while (i < n && !VOWELS.has(word[i]!)) i++;
    return i < n ? i + 1 : undefined;
  };
  const pastNonVowel = (from: number) => {
    let i = from;
    while (i < n && VOWELS.has(word[i]!)) i++;
    return i < n ? i + 1 : undefined;
  };
  const rv = pastVowel(0) ?? n;
  const v1 = pastVowel(0);
  const r1 = v1 === undefined ? undefined : pastNonVowel(v1);
  const v2 = r1 === undefined ? undefined : pastVowel(r1);
  const r2 = v2 === undefined ? undefined : pastNonVowel(v2);
  return { rv, r1: r1 ?? n, r2: r2 ?? n };
}
