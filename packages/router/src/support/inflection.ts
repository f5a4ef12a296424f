/**
 * English singular/plural forms with ActiveSupport's default rules, so that route names and
 * nested params come out as Rails names them (`people` → `person_id`, `news` → `news_index`).
 * Rules are tried newest first, as ActiveSupport does; irregulars and uncountables come last
 * in declaration and therefore win.
 */

type Rule = [pattern: RegExp, replacement: string];

const plurals: Rule[] = [];
const singulars: Rule[] = [];
const uncountables = new Set<string>();

function plural(pattern: RegExp, replacement: string): void {
  plurals.unshift([pattern, replacement]);
}

function singular(pattern: RegExp, replacement: string): void {
  singulars.unshift([pattern, replacement]);
}

function irregular(one: string, many: string): void {
  uncountables.delete(one);
  uncountables.delete(many);
  const oneRest = one.slice(1);
  const manyRest = many.slice(1);
  // Same first letter: keep the caller's case of that letter.
  plural(new RegExp(`(${one[0]})${oneRest}$`, 'i'), `$1${manyRest}`);
  plural(new RegExp(`(${many[0]})${manyRest}$`, 'i'), `$1${manyRest}`);
  singular(new RegExp(`(${one[0]})${oneRest}$`, 'i'), `$1${oneRest}`);
  singular(new RegExp(`(${many[0]})${manyRest}$`, 'i'), `$1${oneRest}`);
}

plural(/$/, 's');
plural(/s$/i, 's');
plural(/^(ax|test)is$/i, '$1es');
plural(/(octop|vir)us$/i, '$1i');
plural(/(octop|vir)i$/i, '$1i');
plural(/(alias|status)$/i, '$1es');
plural(/(bu)s$/i, '$1ses');
plural(/(buffal|tomat)o$/i, '$1oes');
plural(/([ti])um$/i, '$1a');
plural(/([ti])a$/i, '$1a');
plural(/sis$/i, 'ses');
plural(/(?:([^f])fe|([lr])f)$/i, '$1$2ves');
plural(/(hive)$/i, '$1s');
plural(/([^aeiouy]|qu)y$/i, '$1ies');
plural(/(x|ch|ss|sh)$/i, '$1es');
plural(/(matr|vert|ind)(?:ix|ex)$/i, '$1ices');
plural(/^(m|l)ouse$/i, '$1ice');
plural(/^(m|l)ice$/i, '$1ice');
plural(/^(ox)$/i, '$1en');
plural(/^(oxen)$/i, '$1');
plural(/(quiz)$/i, '$1zes');

singular(/s$/i, '');
singular(/(ss)$/i, '$1');
singular(/(n)ews$/i, '$1ews');
singular(/([ti])a$/i, '$1um');
singular(/((a)naly|(b)a|(d)iagno|(p)arenthe|(p)rogno|(s)ynop|(t)he)(sis|ses)$/i, '$1sis');
singular(/(^analy)(sis|ses)$/i, '$1sis');
singular(/([^f])ves$/i, '$1fe');
singular(/(hive)s$/i, '$1');
singular(/(tive)s$/i, '$1');
singular(/([lr])ves$/i, '$1f');
singular(/([^aeiouy]|qu)ies$/i, '$1y');
singular(/(s)eries$/i, '$1eries');
singular(/(m)ovies$/i, '$1ovie');
singular(/(x|ch|ss|sh)es$/i, '$1');
singular(/^(m|l)ice$/i, '$1ouse');
singular(/(bus)(es)?$/i, '$1');
singular(/(o)es$/i, '$1');
singular(/(shoe)s$/i, '$1');
singular(/(cris|test)(is|es)$/i, '$1is');
singular(/^(a)x[ie]s$/i, '$1xis');
singular(/(octop|vir)(us|i)$/i, '$1us');
singular(/(alias|status)(es)?$/i, '$1');
singular(/^(ox)en/i, '$1');
singular(/(vert|ind)ices$/i, '$1ex');
singular(/(matr)ices$/i, '$1ix');
singular(/(quiz)zes$/i, '$1');
singular(/(database)s$/i, '$1');

irregular('person', 'people');
irregular('man', 'men');
irregular('child', 'children');
irregular('sex', 'sexes');
irregular('move', 'moves');
irregular('zombie', 'zombies');

for (const word of [
  'equipment',
  'information',
  'rice',
  'money',
  'species',
  'series',
  'fish',
  'sheep',
  'jeans',
  'police',
]) {
  uncountables.add(word);
}

/** The uncountables as an array, made on first use (the set is filled above). */
let uncountableList: string[] | null = null;

/** A word is uncountable when it ends with an uncountable word (`\b` as ActiveSupport checks). */
function isUncountable(word: string): boolean {
  // endsWith over the few uncountables (an array: a Set's iterator allocates per step): no
  // regexp to compile on a cold start.
  uncountableList ??= [...uncountables];
  const lower = word.toLowerCase();
  // Indexed loops here and in `apply`: they run cold, where for-of allocates an iterator result per step.
  for (let i = 0; i < uncountableList.length; i++) {
    const u = uncountableList[i]!;
    if (!lower.endsWith(u)) continue;
    const before = lower.length - u.length - 1;
    if (before < 0 || !isWordCharacter(lower.charCodeAt(before))) return true;
  }
  return false;
}

/** Regexp's `\w`: an ASCII letter, digit or `_`. */
function isWordCharacter(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

/**
 * The last letters (lower case) a rule's match can end a word with, read off its source
 * (`(x|ch|ss|sh)es$` → s; `(octop|vir)(us|i)$` → s, i), or null when the source does not say
 * plainly (no `$`, an optional or repeated end, a class): such a rule is always tried. A word
 * whose last letter no rule can end with (`res12`) is then left as is without a regexp, where
 * a union of every rule took milliseconds to compile on each cold start.
 */
function finalLetters(source: string): string[] | null {
  if (!source.endsWith('$') || source.endsWith('\\$')) return null;
  return lastLetters(source.slice(0, -1));
}

function lastLetters(body: string): string[] | null {
  const last = body.at(-1);
  if (last === undefined) return null;
  if (/[a-z]/i.test(last)) return body.at(-2) === '\\' ? null : [last.toLowerCase()];
  if (last !== ')') return null;
  // The alternatives of the closing group, each ending the word in its own way.
  let depth = 0;
  let open = -1;
  for (let i = body.length - 1; i >= 0 && open < 0; i--) {
    if (body[i] === ')') depth++;
    else if (body[i] === '(' && --depth === 0) open = i;
  }
  if (open < 0) return null;
  const inner = body.slice(body.startsWith('?:', open + 1) ? open + 3 : open + 1, -1);
  if (/[()[\]\\]/.test(inner)) return null;
  const letters: string[] = [];
  for (const alternative of inner.split('|')) {
    const end = lastLetters(alternative);
    if (end === null) return null;
    letters.push(...end);
  }
  return letters;
}

/** `finalLetters` of each rule's pattern, read once (a word's new last letter filters every rule). */
const finalLettersByPattern = new Map<RegExp, string[] | null>();

function finalLettersOf(pattern: RegExp): string[] | null {
  let letters = finalLettersByPattern.get(pattern);
  if (letters === undefined) finalLettersByPattern.set(pattern, (letters = finalLetters(pattern.source)));
  return letters;
}

/** The rules a word's last letter lets match, in order: per letter, made on first use. */
const byLastLetter = new Map<Rule[], Map<string, Rule[]>>();

function candidateRules(word: string, rules: Rule[]): Rule[] {
  let index = byLastLetter.get(rules);
  if (index === undefined) byLastLetter.set(rules, (index = new Map()));
  const letter = word.at(-1)!.toLowerCase();
  let candidates = index.get(letter);
  if (candidates === undefined) {
    candidates = rules.filter(([pattern]) => finalLettersOf(pattern)?.includes(letter) ?? true);
    index.set(letter, candidates);
  }
  return candidates;
}

function apply(word: string, rules: Rule[]): string {
  if (word === '' || isUncountable(word)) return word;
  const candidates = candidateRules(word, rules);
  for (let i = 0; i < candidates.length; i++) {
    const rule = candidates[i]!;
    if (rule[0].test(word)) return word.replace(rule[0], rule[1]);
  }
  return word;
}

const singularCache = new Map<string, string>();
const pluralCache = new Map<string, string>();

/** `posts` → `post`, `people` → `person`, `news` → `news`. */
export function singularize(word: string): string {
  let result = singularCache.get(word);
  if (result === undefined) {
    result = apply(word, singulars);
    singularCache.set(word, result);
  }
  return result;
}

/** `post` → `posts`, `person` → `people`, `sheep` → `sheep`. */
export function pluralize(word: string): string {
  let result = pluralCache.get(word);
  if (result === undefined) {
    result = apply(word, plurals);
    pluralCache.set(word, result);
  }
  return result;
}
