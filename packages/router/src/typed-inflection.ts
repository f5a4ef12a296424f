/**
 * support/inflection.ts at the type level: ActiveSupport's default rules, tried in the same
 * order as the runtime tries them (irregulars, then the newest rule first), so that a typed
 * helper's name is the route set's name for every lowercase word (`services`, `people`,
 * `heroes`, `quizzes`, `media`, ...). A word with capitals gives `string` (the rules are
 * case-insensitive and keep the caller's case, which the types do not mirror).
 *
 * The runtime is the reference: typed-inflection.test.ts compiles both for a list of words.
 */

/** ActiveSupport's uncountables (support/inflection.ts), matched as the whole word or after a non-word char. */
type Uncountable =
  | 'equipment'
  | 'information'
  | 'rice'
  | 'money'
  | 'species'
  | 'series'
  | 'fish'
  | 'sheep'
  | 'jeans'
  | 'police';

type NonWordChar = '-' | '/' | '.' | ' ';

type Vowel = 'a' | 'e' | 'i' | 'o' | 'u';

/** Whether the runtime leaves the word alone as uncountable. */
type IsUncountable<W extends string> = W extends Uncountable | `${string}${NonWordChar}${Uncountable}` ? true : false;

/** The runtime's answer only where the types can be sure: a lowercase word. */
type Inflect<W extends string, Rules extends string> = string extends W
  ? string
  : W extends Lowercase<W>
    ? IsUncountable<W> extends true
      ? W
      : Rules
    : string;

/** `posts` → `post`, `people` → `person`, `news` → `news` (ActiveSupport's `singularize`). */
export type Singular<W extends string> = Inflect<W, SingularRules<W>>;

/** `post` → `posts`, `person` → `people`, `quiz` → `quizzes` (ActiveSupport's `pluralize`). */
export type Plural<W extends string> = Inflect<W, PluralRules<W>>;

/** `[^aeiouy]` or `qu` before the ending (`cit|ies`, `soliloqu|ies`), as the `ies`/`y` rules require. */
type BeforeY<S extends string> = S extends `${string}qu`
  ? true
  : S extends ''
    ? false
    : S extends `${string}${Vowel | 'y'}`
      ? false
      : true;

type SingularRules<W extends string> =
  // irregulars, the last declared first (each: its plural, then its singular)
  W extends `${infer S}zombies`
    ? `${S}zombie`
    : W extends `${string}zombie`
      ? W
      : W extends `${infer S}moves`
        ? `${S}move`
        : W extends `${string}move`
          ? W
          : W extends `${infer S}sexes`
            ? `${S}sex`
            : W extends `${string}sex`
              ? W
              : W extends `${infer S}children`
                ? `${S}child`
                : W extends `${string}child`
                  ? W
                  : W extends `${infer S}men`
                    ? `${S}man`
                    : W extends `${string}man`
                      ? W
                      : W extends `${infer S}people`
                        ? `${S}person`
                        : W extends `${string}person`
                          ? W
                          : RegularSingular<W>;

type RegularSingular<W extends string> = W extends `${infer S}databases`
  ? `${S}database`
  : W extends `${infer S}quizzes`
    ? `${S}quiz`
    : W extends `${infer S}matrices`
      ? `${S}matrix`
      : W extends `${infer S}vertices`
        ? `${S}vertex`
        : W extends `${infer S}indices`
          ? `${S}index`
          : W extends `oxen${infer R}`
            ? `ox${R}`
            : W extends `${infer S}aliases`
              ? `${S}alias`
              : W extends `${string}alias`
                ? W
                : W extends `${infer S}statuses`
                  ? `${S}status`
                  : W extends `${string}status`
                    ? W
                    : W extends `${infer S}octop${'us' | 'i'}`
                      ? `${S}octopus`
                      : W extends `${infer S}vir${'us' | 'i'}`
                        ? `${S}virus`
                        : W extends 'axis' | 'axes'
                          ? 'axis'
                          : W extends `${infer S}cris${'is' | 'es'}`
                            ? `${S}crisis`
                            : W extends `${infer S}test${'is' | 'es'}`
                              ? `${S}testis`
                              : SingularEndings<W>;

type SingularEndings<W extends string> = W extends `${infer S}shoes`
  ? `${S}shoe`
  : W extends `${infer S}oes`
    ? `${S}o`
    : W extends `${infer S}buses`
      ? `${S}bus`
      : W extends `${string}bus`
        ? W
        : W extends 'mice'
          ? 'mouse'
          : W extends 'lice'
            ? 'louse'
            : W extends `${infer S}es`
              ? S extends `${string}${'x' | 'ch' | 'ss' | 'sh'}`
                ? S
                : SingularTail<W>
              : SingularTail<W>;

type SingularTail<W extends string> = W extends `${infer S}movies`
  ? `${S}movie`
  : W extends `${string}series`
    ? W
    : W extends `${infer S}ies`
      ? BeforeY<S> extends true
        ? `${S}y`
        : SingularVes<W>
      : SingularVes<W>;

type SingularVes<W extends string> = W extends `${infer S}lves`
  ? `${S}lf`
  : W extends `${infer S}rves`
    ? `${S}rf`
    : W extends `${infer S}tives`
      ? `${S}tive`
      : W extends `${infer S}hives`
        ? `${S}hive`
        : W extends `${infer S}ves`
          ? S extends '' | `${string}f`
            ? SingularSis<W>
            : `${S}fe`
          : SingularSis<W>;

type SisStem = 'analy' | 'ba' | 'diagno' | 'parenthe' | 'progno' | 'synop' | 'the';

type SingularSis<W extends string> = W extends `analy${'sis' | 'ses'}`
  ? 'analysis'
  : W extends `${infer S}${'sis' | 'ses'}`
    ? [SisSingular<S>] extends [never]
      ? SingularLast<W>
      : SisSingular<S>
    : SingularLast<W>;

/** `${S}sis` when S ends with one of the stems (`parenthe` and `the` give the same word). */
type SisSingular<S extends string, Stem extends string = SisStem> = Stem extends string
  ? S extends `${string}${Stem}`
    ? `${S}sis`
    : never
  : never;

type SingularLast<W extends string> = W extends `${infer S}${'t' | 'i'}a`
  ? W extends `${S}${infer C}a`
    ? `${S}${C}um`
    : W
  : W extends `${string}news`
    ? W
    : W extends `${string}ss`
      ? W
      : W extends `${infer S}s`
        ? S
        : W;

type PluralRules<W extends string> =
  // irregulars, the last declared first (each: its plural, then its singular)
  W extends `${string}zombies`
    ? W
    : W extends `${string}zombie`
      ? `${W}s`
      : W extends `${string}moves`
        ? W
        : W extends `${string}move`
          ? `${W}s`
          : W extends `${string}sexes`
            ? W
            : W extends `${string}sex`
              ? `${W}es`
              : W extends `${string}children`
                ? W
                : W extends `${string}child`
                  ? `${W}ren`
                  : W extends `${string}men`
                    ? W
                    : W extends `${infer S}man`
                      ? `${S}men`
                      : W extends `${string}people`
                        ? W
                        : W extends `${infer S}person`
                          ? `${S}people`
                          : RegularPlural<W>;

type RegularPlural<W extends string> = W extends `${string}quiz`
  ? `${W}zes`
  : W extends 'oxen'
    ? W
    : W extends 'ox'
      ? 'oxen'
      : W extends 'mice' | 'lice'
        ? W
        : W extends 'mouse'
          ? 'mice'
          : W extends 'louse'
            ? 'lice'
            : W extends `${infer S}${'matr' | 'vert' | 'ind'}${'ix' | 'ex'}`
              ? W extends `${S}${infer Stem}${'ix' | 'ex'}`
                ? `${S}${Stem}ices`
                : W
              : W extends `${string}${'x' | 'ch' | 'ss' | 'sh'}`
                ? `${W}es`
                : W extends `${infer S}y`
                  ? BeforeY<S> extends true
                    ? `${S}ies`
                    : PluralEndings<W>
                  : PluralEndings<W>;

type PluralEndings<W extends string> = W extends `${string}hive`
  ? `${W}s`
  : W extends `${infer S}fe`
    ? S extends '' | `${string}f`
      ? PluralLf<W>
      : `${S}ves`
    : PluralLf<W>;

type PluralLf<W extends string> = W extends `${infer S}${'l' | 'r'}f`
  ? W extends `${S}${infer C}f`
    ? `${S}${C}ves`
    : W
  : W extends `${infer S}sis`
    ? `${S}ses`
    : W extends `${string}${'t' | 'i'}a`
      ? W
      : W extends `${infer S}${'t' | 'i'}um`
        ? W extends `${S}${infer C}um`
          ? `${S}${C}a`
          : W
        : W extends `${string}${'buffal' | 'tomat'}o`
          ? `${W}es`
          : PluralLast<W>;

type PluralLast<W extends string> = W extends `${string}bus`
  ? `${W}es`
  : W extends `${string}${'alias' | 'status'}`
    ? `${W}es`
    : W extends `${string}${'octop' | 'vir'}i`
      ? W
      : W extends `${infer S}${'octop' | 'vir'}us`
        ? W extends `${S}${infer Stem}us`
          ? `${S}${Stem}i`
          : W
        : W extends `${'ax' | 'test'}is`
          ? W extends `${infer Stem}is`
            ? `${Stem}es`
            : W
          : W extends `${string}s`
            ? W
            : `${W}s`;
