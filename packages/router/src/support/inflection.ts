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

/** The uncountables in one regexp, `(?:^|\W)(?:fish|sheep|...)$`, made on first use (the list is filled above). */
let uncountable: RegExp | null = null;

/** A word is uncountable when it ends with an uncountable word (`\b` as ActiveSupport checks). */
function isUncountable(word: string): boolean {
  uncountable ??= new RegExp(`(?:^|\\W)(?:${[...uncountables].join('|')})$`);
  return uncountable.test(word.toLowerCase());
}

/**
 * One regexp matching wherever some rule of the list would (the rules are case-insensitive,
 * or as `/$/` match any case): a word no rule changes (`res12`) costs one test, not one per rule.
 */
const unions = new Map<Rule[], RegExp>();

function anyRule(rules: Rule[]): RegExp {
  let union = unions.get(rules);
  if (union === undefined)
    unions.set(rules, (union = new RegExp(rules.map(([pattern]) => `(?:${pattern.source})`).join('|'), 'i')));
  return union;
}

function apply(word: string, rules: Rule[]): string {
  if (word === '' || isUncountable(word) || !anyRule(rules).test(word)) return word;
  for (const [pattern, replacement] of rules) {
    if (pattern.test(word)) return word.replace(pattern, replacement);
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
