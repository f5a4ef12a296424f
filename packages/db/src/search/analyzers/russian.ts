/**
 * Lucene 4's RussianAnalyzer: standard tokens → lowercase → Russian stop words (Snowball's list)
 * → Snowball's Russian stemmer: in the region after the first vowel, a perfective gerund ending,
 * or else a reflexive one and then an adjectival, verb or noun ending (the longest that fits);
 * a final `и`; a derivational ending in R2; superlatives, `нн` and the soft sign tidied up.
 */
import { standardTokens, type Token } from '../tokenizers.js';
import { lowercased, snowballStemmed, withoutStopWords } from './filters.js';

export const RUSSIAN_STOP_WORDS: ReadonlySet<string> = new Set(
  `и в во не что он на я с со как а то все она так его но да ты к у же вы за бы по только ее мне было
  вот от меня еще нет о из ему теперь когда даже ну вдруг ли если уже или ни быть был него до вас нибудь
  опять уж вам сказал ведь там потом себя ничего ей может они тут где есть надо ней для мы тебя их чем
  была сам чтоб без будто человек чего раз тоже себе под жизнь будет ж тогда кто этот говорил того
  потому этого какой совсем ним здесь этом один почти мой тем чтобы нее кажется сейчас были куда
  зачем сказать всех никогда сегодня можно при наконец два об другой хоть после над больше тот через
  эти нас про всего них какая много разве сказала три эту моя впрочем хорошо свою этой перед иногда
  лучше чуть том нельзя такой им более всегда конечно всю между`.split(/\s+/),
);

export function russianAnalyzer(stop: ReadonlySet<string> = RUSSIAN_STOP_WORDS): (text: string) => Token[] {
  return (text) => snowballStemmed(withoutStopWords(lowercased(standardTokens(text)), stop), russianStem);
}

const VOWELS = new Set('аеиоуыэюя');

/** An ending group: its endings, and whether they must follow `а` or `я` (which stays). */
interface Endings {
  afterAOrYa: readonly string[];
  plain: readonly string[];
}

const PERFECTIVE_GERUND: Endings = {
  afterAOrYa: ['в', 'вши', 'вшись'],
  plain: ['ив', 'ивши', 'ившись', 'ыв', 'ывши', 'ывшись'],
};
const ADJECTIVE: Endings = {
  afterAOrYa: [],
  plain: 'ее ие ые ое ими ыми ей ий ый ой ем им ым ом его ого ему ому их ых ую юю ая яя ою ею'.split(' '),
};
const PARTICIPLE: Endings = { afterAOrYa: ['ем', 'нн', 'вш', 'ющ', 'щ'], plain: ['ивш', 'ывш', 'ующ'] };
const REFLEXIVE: Endings = { afterAOrYa: [], plain: ['ся', 'сь'] };
const VERB: Endings = {
  afterAOrYa: 'ла на ете йте ли й л ем н ло но ет ют ны ть ешь нно'.split(' '),
  plain:
    'ила ыла ена ейте уйте ите или ыли ей уй ил ыл им ым ен ило ыло ено ят ует уют ит ыт ены ить ыть ишь ую ю'.split(
      ' ',
    ),
};
const NOUN: Endings = {
  afterAOrYa: [],
  plain:
    'а ев ов ие ье е иями ями ами еи ии и ией ей ой ий й иям ям ием ем ам ом о у ах иях ях ы ь ию ью ю ия ья я'.split(
      ' ',
    ),
};

/** Snowball's Russian stemmer (the form of Lucene 4's RussianStemmer: no `ё` folding). */
export function russianStem(word: string): string {
  const { rv, r2 } = regions(word);
  // Everything happens in RV: the stem before it never changes.
  const head = word.slice(0, rv);
  let w = word.slice(rv);
  const r2InRv = Math.max(0, r2 - rv);

  const gerund = removeEnding(w, PERFECTIVE_GERUND);
  if (gerund !== undefined) w = gerund;
  else {
    w = removeEnding(w, REFLEXIVE) ?? w;
    const adjective = removeEnding(w, ADJECTIVE);
    if (adjective !== undefined) w = removeEnding(adjective, PARTICIPLE) ?? adjective;
    else w = removeEnding(w, VERB) ?? removeEnding(w, NOUN) ?? w;
  }
  if (w.endsWith('и')) w = w.slice(0, -1);
  const derivational = longest(w, ['ост', 'ость']);
  if (derivational !== undefined && w.length - derivational.length >= r2InRv) w = w.slice(0, -derivational.length);
  const tidy = longest(w, ['ейш', 'ейше', 'н', 'ь']);
  if (tidy === 'ейш' || tidy === 'ейше') {
    w = w.slice(0, -tidy.length);
    if (w.endsWith('нн')) w = w.slice(0, -1);
  } else if (tidy === 'н') {
    if (w.endsWith('нн')) w = w.slice(0, -1);
  } else if (tidy === 'ь') w = w.slice(0, -1);
  return head + w;
}

/** RV (after the first vowel) and R2, as positions. */
function regions(word: string): { rv: number; r2: number } {
  const n = word.length;
  let i = 0;
  const pastVowel = () => {
    while (i < n && !VOWELS.has(word[i]!)) i++;
    if (i >= n) return false;
    i++;
    return true;
  };
  const pastNonVowel = () => {
    while (i < n && VOWELS.has(word[i]!)) i++;
    if (i >= n) return false;
    i++;
    return true;
  };
  if (!pastVowel()) return { rv: n, r2: n };
  const rv = i;
  if (!pastNonVowel() || !pastVowel() || !pastNonVowel()) return { rv, r2: n };
  return { rv, r2: i };
}

/** The longest of `endings` that `w` ends with. */
function longest(w: string, endings: readonly string[]): string | undefined {
  let best: string | undefined;
  for (const e of endings) if (w.endsWith(e) && (best === undefined || e.length > best.length)) best = e;
  return best;
}

/**
 * The word without the longest ending of the group (Snowball's `among`: that one only, and an
 * ending of the first kind must follow `а` or `я`); undefined when none applies.
 */
function removeEnding(w: string, endings: Endings): string | undefined {
  const ending = longest(w, [...endings.afterAOrYa, ...endings.plain]);
  if (ending === undefined) return undefined;
  const stem = w.slice(0, -ending.length);
  if (endings.plain.includes(ending)) return stem;
  return stem.endsWith('а') || stem.endsWith('я') ? stem : undefined;
}
