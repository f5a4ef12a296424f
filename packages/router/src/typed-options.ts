/**
 * The declaration mistakes declaration/refusals.ts refuses at `draw()`, caught by `tsc` where
 * the options are literals: a misspelt option (one typo away from a known name, Rails'
 * snake_case, another case), a verb that is no HTTP method, a RegExp written as a string and a
 * request-based constraint. An unknown `only`/`except` action is refused by the options' own
 * types (`ActionName`). Each error's expected type says what is wrong.
 */
import type { OptionName } from './declaration/options.js';

/** Rails' HTTP methods (refusals.ts), as `via` takes them: lower or upper case, or `all`. */
type HttpMethod =
  | 'get'
  | 'head'
  | 'put'
  | 'post'
  | 'delete'
  | 'options'
  | 'trace'
  | 'connect'
  | 'propfind'
  | 'proppatch'
  | 'mkcol'
  | 'copy'
  | 'move'
  | 'lock'
  | 'unlock'
  | 'version-control'
  | 'report'
  | 'checkout'
  | 'checkin'
  | 'uncheckout'
  | 'mkworkspace'
  | 'update'
  | 'label'
  | 'merge'
  | 'baseline-control'
  | 'mkactivity'
  | 'orderpatch'
  | 'acl'
  | 'search'
  | 'mkcalendar'
  | 'patch'
  | 'link'
  | 'unlink';

export type KnownVia = HttpMethod | Uppercase<HttpMethod> | 'all' | 'ALL';

type RequestCondition =
  | 'protocol'
  | 'subdomain'
  | 'domain'
  | 'host'
  | 'port'
  | 'ip'
  | 'remote_ip'
  | 'user_agent'
  | 'request_method'
  | 'media_type'
  | 'content_type'
  | 'xhr';

type RegExpSyntax = '\\' | '^' | '$' | '.' | '*' | '+' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '|';

/** Two neighbouring letters swapped (`onyl`/`only`). */
type Swapped<A extends string, B extends string> = A extends `${infer X}${infer RestA}`
  ? B extends `${infer Y}${infer RestB}`
    ? X extends Y
      ? Swapped<RestA, RestB>
      : RestA extends `${Y}${infer Tail}`
        ? RestB extends `${X}${Tail}`
          ? true
          : false
        : false
    : false
  : false;

/** One letter changed, added or removed, or two neighbours swapped; false for equal words. */
type OneTypo<A extends string, B extends string> = A extends `${infer X}${infer RestA}`
  ? B extends `${infer Y}${infer RestB}`
    ? X extends Y
      ? OneTypo<RestA, RestB>
      : RestA extends RestB
        ? true
        : RestA extends B
          ? true
          : A extends RestB
            ? true
            : Swapped<A, B>
    : RestA extends ''
      ? true
      : false
  : B extends `${string}${infer RestB}`
    ? RestB extends ''
      ? true
      : false
    : false;

type Camel<K extends string> = K extends `${infer Head}_${infer C}${infer Rest}`
  ? `${Head}${Uppercase<C>}${Camel<Rest>}`
  : K;

/** Four letters or fewer (each placeholder before the last takes one letter; the last, the rest). */
type ShortName<N extends string> = N extends `${infer _A}${infer _B}${infer _C}${infer _D}${infer Rest}`
  ? Rest extends ''
    ? true
    : false
  : true;

/** The option a misspelt key meant, or never. */
type Meant<K extends string, N extends OptionName = OptionName> = N extends OptionName
  ? K extends N
    ? never
    : Lowercase<Camel<K>> extends Lowercase<N>
      ? N
      : (
            ShortName<N> extends true
              ? Swapped<Lowercase<K>, Lowercase<N>>
              : OneTypo<Lowercase<K>, Lowercase<N>>
          ) extends true
        ? N
        : never
  : never;

type MisspeltKeys<O> = {
  [K in Exclude<keyof O, OptionName> & string as [Meant<K>] extends [never]
    ? never
    : K]: `unknown option: did you mean '${Meant<K>}'?`;
};

type ViaProblem<O> = O extends { via: infer V }
  ? string extends (V extends readonly (infer E)[] ? E : V)
    ? unknown
    : V extends KnownVia | readonly KnownVia[]
      ? unknown
      : { via: KnownVia | readonly KnownVia[] }
  : unknown;

type ConstraintProblem<K, V> = V extends RegExp
  ? never
  : K extends RequestCondition
    ? 'a request-based constraint: adapters match on the path and verb only (check it in a middleware)'
    : V extends `${string}${RegExpSyntax}${string}`
      ? `a string matches only its own text: write the RegExp /${V}/`
      : never;

type ConstraintsProblem<O> = O extends { constraints: infer C }
  ? { [K in keyof C]: [ConstraintProblem<K, C[K]>] extends [never] ? never : K }[keyof C] extends never
    ? unknown
    : {
        constraints: {
          [K in keyof C]: [ConstraintProblem<K, C[K]>] extends [never] ? C[K] : ConstraintProblem<K, C[K]>;
        };
      }
  : unknown;

/** What the options should have been where they hold a mistake the types can see. */
type Problems<O> = MisspeltKeys<O> & ViaProblem<O> & ConstraintsProblem<O>;

/**
 * `O` as the options parameter wants it: itself when it holds no mistake the types can see,
 * else `O` with each wrong property's expected type saying what is wrong (a conditional type,
 * not an intersection, so that the error shows that text rather than `never`).
 */
export type Checked<O> = keyof Problems<O> extends never
  ? O
  : { [K in keyof O]: K extends keyof Problems<O> ? Problems<O>[K] : O[K] };
