/**
 * One file (above the house's ~500 lines) because TypeScript's conditional types that follow the
 * declaration refer to each other at every step; split, they would import each other in a ring.
 *
 * The types of a route set, computed from its declaration by TypeScript itself (no build step):
 * each DSL call returns a mapper typed with the routes declared so far, and a block that returns
 * its mapper (`(r) => r.resources('comments')`) hands its routes to the enclosing call. `draw`
 * then types `routes.helpers` (names, required segments), each route's params and the
 * `handler#action` pairs a handler table may hold.
 *
 * The types follow the runtime's naming rules (typed-inflection.ts mirrors its inflector for
 * every lowercase word), shallow nesting (`shallow` options, `shallow` blocks, shallow paths and
 * prefixes) and `pathNames`. A typed declaration applying a concern fails tsc (`ConcernsUntypable`
 * says why and what to do). A path given as a pattern without `as`, a `shallow` that is not a
 * literal, or a block written as statements (returning nothing) gives routes of unknown name,
 * path, handler and action: the
 * helpers then also accept any `...Path`/`...Url` name, typed as plain helpers (string keys,
 * never `any`).
 */
import type { RouteSetLike } from './types.js';

/** Where a route set keeps its routes' types (a type-only key: no such property exists). */
export declare const routeTypes: unique symbol;

/** A route set as the adapters read it, with its routes' types when it has them. */
export interface TypedRouteSetLike<R extends TypedRoute> extends RouteSetLike {
  readonly [routeTypes]?: R;
}

/** A route as the types know it; `string` where the declaration does not say. */
export interface TypedRoute {
  name: string | null;
  path: string;
  handler: string;
  action: string;
}

/** Routes the types cannot follow: any name, path, handler and action. */
export interface UnknownRoute {
  name: string;
  path: string;
  handler: string;
  action: string;
}

import type { Plural, Singular } from './typed-inflection.js';

export type { Plural, Singular };

// ------------------------------------------------------------------ paths and params

/** `a/b`: joined with `/`, leading slashes as `normalizePath` leaves them. */
type Join<Base extends string, Part extends string> = string extends Base | Part
  ? string
  : Part extends ''
    ? Base
    : Part extends `/${infer Rest}`
      ? Join<Base, Rest>
      : `${Base}/${Part}`;

/** The path a route gets, with its format segment. */
type Formatted<P extends string> = string extends P ? string : `${P extends '' ? '/' : P}(.:format)`;

type NameEnd = '/' | '.' | '(' | ')' | '-';

/** The name at the start of a param (up to `/`, `.`, `(`, `)`): `post_id/x` → `post_id`. */
type ParamName<S extends string, Acc extends string = ''> = S extends `${infer C}${infer Rest}`
  ? C extends NameEnd
    ? Acc
    : ParamName<Rest, `${Acc}${C}`>
  : Acc;

/** Every `:param` and `*glob` name of a path. */
type Keys<P extends string> = P extends `${string}${':' | '*'}${infer Rest}` ? ParamName<Rest> | Keys<Rest> : never;

/** The path without its optional groups (innermost first). */
type Required_<P extends string> = P extends `${infer A}(${infer B})${infer C}`
  ? B extends `${string}(${string}`
    ? Required_<`${A}(${B}${C}`> // a nested group: drop the inner one first
    : Required_<`${A}${C}`>
  : P;

/** Required segment names in path order, as a tuple. */
type RequiredTuple<P extends string> = P extends `${string}${':' | '*'}${infer Rest}`
  ? [ParamName<Rest>, ...RequiredTuple<Rest>]
  : [];

/** The params of a route with this path: its required segments, then its optional ones. */
export type RouteParams<P extends string> = string extends P
  ? Record<string, string>
  : { [K in Keys<Required_<P>>]: string } & { [K in Exclude<Keys<P>, Keys<Required_<P>>>]?: string };

/** A value for a segment: a string or number, or a record (its `toParam()`, else its `id`). */
export type SegmentValue = string | number | bigint | { toParam(): unknown } | { id: unknown };

/** Query params and URL options given after the segments. */
export type HelperParams = Record<string, unknown>;

type Positional<T extends unknown[]> = { [I in keyof T]: SegmentValue };

/** A helper's arguments: the required segments in order (then the optional format), then params; or one keyed object. */
export type HelperArgs<P extends string> = string extends P
  ? unknown[]
  : RequiredTuple<Required_<P>> extends infer Req extends string[]
    ?
        | [...Positional<Req>, params?: HelperParams]
        | [...Positional<Req>, format: SegmentValue, params?: HelperParams]
        | [keyed: { [K in Req[number]]: SegmentValue } & HelperParams]
    : unknown[];

// ------------------------------------------------------------------ helpers and handler tables

type Capitalize_<W extends string> = W extends `${infer C}${infer Rest}` ? `${Uppercase<C>}${Rest}` : W;

/** `edit_post_comment` → `editPostComment` (as `camelHelperName` does). */
export type CamelName<N extends string> = string extends N
  ? string
  : N extends `${infer Head}_${infer Rest}`
    ? Head extends ''
      ? CamelName<Rest>
      : `${Head}${Capitalize_<CamelName<Rest>>}`
    : N;

/** A helper of a route with path `P`. */
export type Helper<P extends string> = (...args: HelperArgs<P>) => string;

/** The routes of `R` whose names the types know. */
type NamedRoutes<R extends TypedRoute> = R extends { name: infer N extends string }
  ? string extends N
    ? never
    : R & { name: N }
  : never;

/** `routes.helpers` of a route set with routes `R`: one helper pair per known name, string keys for the rest. */
export type Helpers<R extends TypedRoute> = {
  readonly [Route in NamedRoutes<R> as `${CamelName<Route['name']>}Path`]: Helper<Route['path']>;
} & {
  readonly [Route in NamedRoutes<R> as `${CamelName<Route['name']>}Url`]: Helper<Route['path']>;
} & (string extends R['name'] ? { readonly [name: string]: Helper<string> } : unknown);

/** Route names of `R` (for `path(name, ...)`); any string when some are unknown. */
export type RouteName<R extends TypedRoute> = string extends R['name'] ? string : NamedRoutes<R>['name'];

/**
 * A handler table for routes `R`, each action an `F`: every entry is optional to the types (the
 * adapters refuse a table missing an action when they are created), a handler or action name no
 * route declares is an error. For routes the types
 * do not know, any names, and handler objects of any shape (class instances).
 */
export type HandlerTableFor<R extends TypedRoute, Kind extends keyof HandlerKinds<never>> = string extends
  | R['handler']
  | R['action']
  ? Record<string, Record<string, HandlerKinds<Record<string, string>>[Kind]> | object>
  : { [H in R['handler']]?: { [A in Extract<R, { handler: H }>['action']]?: HandlerKinds<ParamsOf<R, H, A>>[Kind] } };

/** The handler and action names of a table `T` that no route of `R` declares, each with a type saying so. */
type Undeclared<T, R extends TypedRoute> = {
  [H in keyof T as H extends R['handler']
    ? keyof T[H] extends Extract<R, { handler: H }>['action']
      ? never
      : H
    : H]: H extends R['handler']
    ? {
        [A in keyof T[H]]: A extends Extract<R, { handler: H }>['action']
          ? T[H][A]
          : `no route declares ${H & string}#${A & string}`;
      }
    : `no route declares the handler '${H & string}'`;
};

/**
 * A handler table `T` checked as an inline literal is, also when it is not one: a module
 * namespace (`{ posts }` after `import * as posts from './posts.js'`) or a table built
 * elsewhere has no excess-property check, so an action no route declares (`shwo`) would pass.
 * An adapter taking `<const T extends HandlerTableFor<R, Kind>>(..., handlers: CheckedHandlers<T, R>)`
 * reports each such name, saying so. For routes the types do not know, any table.
 */
export type CheckedHandlers<T, R extends TypedRoute> = string extends R['handler'] | R['action']
  ? T
  : keyof Undeclared<T, R> extends never
    ? T
    : Omit<T, keyof Undeclared<T, R>> & Undeclared<T, R>;

/**
 * Each adapter's action type for a route with params `P`, by adapter name: each adapter adds
 * its own by declaration merging (`node`, `express`, `fastify`, `hono`).
 */
export interface HandlerKinds<P> {
  /** The params themselves: `HandlerKinds<P>['params']` is `P`. */
  params: P;
}

/** The params of the route answering `handler#action`. */
export type ParamsOf<R extends TypedRoute, H extends string, A extends string> = RouteParams<
  Extract<R, { handler: H; action: A }>['path']
>;

// ------------------------------------------------------------------ scopes

/** What the types track of a scope. */
export interface TypedScope {
  /** Path prefix: `''`, `/admin`, `/posts/:post_id`. */
  path: string;
  /** Name prefix: `''`, `admin`, `post`. */
  as: string;
  /** Handler module: `''`, `admin`. */
  module: string;
  level: 'root' | 'resources' | 'resource' | 'member' | 'collection' | 'new';
  /** The resource in scope (its handler, names, paths) when the level is one of a resource. */
  resource: TypedResource | null;
  /** Where a shallow resource's member routes go: the scope's path without its nesting (Rails' `shallow_path`). */
  shallowPath: string;
  /** The name prefix of a shallow resource's member routes (Rails' `shallow_prefix`). */
  shallowPrefix: string;
  /** Whether resources declared here are shallow. */
  shallow: boolean;
  /** Renamed `new`/`edit` path segments (`pathNames`), inherited. */
  pathNames: PathNames;
}

/** The `new`/`edit` segment names the types follow (`{}`: Rails' own). */
export interface PathNames {
  new?: string;
  edit?: string;
}

export interface TypedResource {
  handler: string;
  /** The member routes' name (shallow: without the parents' prefix), also the nested routes' prefix. */
  member: string;
  /** The `new` routes' name base (never shallow). */
  newMember: string;
  collection: string;
  /** `/posts` */
  collectionPath: string;
  /** `/posts/:id` */
  memberPath: string;
  /** `/posts/:post_id` (shallow: `/comments/:comment_id`) */
  nestedPath: string;
}

export interface RootScope extends TypedScope {
  path: '';
  as: '';
  module: '';
  level: 'root';
  resource: null;
  shallowPath: '';
  shallowPrefix: '';
  shallow: false;
  pathNames: Record<never, never>;
}

/** The widest scope: what a block typed as the exported `Mapper` accepts. */
export interface AnyScope extends TypedScope {}

type Prefixed<As extends string, Name extends string> = string extends As | Name
  ? string
  : As extends ''
    ? Name
    : Name extends ''
      ? As
      : `${As}_${Name}`;

type InModule<Module extends string, Handler extends string> = Handler extends `/${infer Top}`
  ? Top
  : Module extends ''
    ? Handler
    : `${Module}/${Handler}`;

type Action = 'index' | 'create' | 'new' | 'show' | 'update' | 'destroy' | 'edit';

/** The actions `only`/`except` leave. */
type Allowed<Only, Except, Default extends Action> = (
  unknown extends Only
    ? Default
    : Only extends readonly (infer A)[]
      ? A & Default
      : Only & Default
) extends infer Kept
  ? unknown extends Except
    ? Kept
    : Exclude<Kept, Except extends readonly (infer E)[] ? E : Except>
  : never;

type Str<T, Fallback extends string> = unknown extends T ? Fallback : T extends string ? T : string;

/** Whether `shallow` is given but not as a literal (`true`/`false`): the types cannot tell which. */
type Reshapes<Options> = Options extends { shallow: infer B } ? (boolean extends B ? true : false) : false;

/** The shallowness of a resource and its block: its own `shallow` option, else the scope's. */
type ShallowOf<S extends TypedScope, Options> = Options extends { shallow: infer B extends boolean } ? B : S['shallow'];

/** The scope's path names with the options' own over them. */
type PathNamesOf<S extends TypedScope, Options> = Options extends { pathNames: infer N }
  ? Omit<S['pathNames'], keyof N> & N
  : S['pathNames'];

/** The path segment of `new` or `edit` under these path names. */
type Segment<N, A extends 'new' | 'edit'> = N extends { [K in A]: infer V extends string } ? V : A;

/** What tsc says where a typed declaration applies a concern. */
export type ConcernsUntypable =
  "the types cannot follow a concern's routes (no type-level call of a named block): call a generic function in the resource's block instead, (r) => commentable(r), or write the block as statements (untyped)";

/**
 * The routes a concern adds: a marker, not untyped routes, so that `draw` refuses a typed
 * declaration holding them (see `ConcernsFollowed`) instead of its helpers going untyped.
 */
export interface ConcernRoute extends UnknownRoute {
  concern: ConcernsUntypable;
}

type ConcernRoutes<Options> = Options extends { concerns: unknown } ? ConcernRoute : never;

/** `unknown` for routes `R` the types follow; the message when a concern is among them. */
export type ConcernsFollowed<R extends TypedRoute> = [Extract<R, { concern: unknown }>] extends [never]
  ? unknown
  : ConcernsUntypable;

/** Where a resource's member routes go: under its collection, or, shallow, under the shallow path. */
type MemberBase<S extends TypedScope, Name extends string, Options> = Join<
  ShallowOf<S, Options> extends true ? S['shallowPath'] : S['path'],
  Str<Options extends { path: infer P } ? P : unknown, Name>
>;

/** The name prefix of a resource's member routes: the scope's, or, shallow, the shallow prefix. */
type MemberAs<S extends TypedScope, Options> = ShallowOf<S, Options> extends true ? S['shallowPrefix'] : S['as'];

/** The routes `resources(Name, Options)` declares itself, and the scope of its block. */
export type ResourcesRoutes<S extends TypedScope, Name extends string, Options> =
  Reshapes<Options> extends true
    ? UnknownRoute
    :
        | ConcernRoutes<Options>
        | ResourcesOf<
            S,
            Str<Options extends { as: infer A } ? A : unknown, Name>,
            Join<S['path'], Str<Options extends { path: infer P } ? P : unknown, Name>>,
            MemberBase<S, Name, Options>,
            MemberAs<S, Options>,
            PathNamesOf<S, Options>,
            Str<Options extends { param: infer P } ? P : unknown, 'id'>,
            InModule<
              Str<Options extends { module: infer M } ? M : unknown, S['module']> extends infer M extends string
                ? Options extends { module: string }
                  ? S['module'] extends ''
                    ? M
                    : `${S['module']}/${M}`
                  : M
                : string,
              Str<Options extends { handler: infer H } ? H : unknown, Name>
            >,
            Allowed<
              Options extends { only: infer O } ? O : unknown,
              Options extends { except: infer E } ? E : unknown,
              Action
            >
          >;

/** The route of action `A` when the resource has it. */
type ActionRoute<Actions, A extends Action, Name, P extends string, Handler extends string> = A extends Actions
  ? { name: Name; path: Formatted<P>; handler: Handler; action: A }
  : never;

type ResourcesOf<
  S extends TypedScope,
  RouteName extends string,
  Base extends string,
  /** Where the member routes go: `Base`, or the shallow path. */
  MemberBase extends string,
  /** The member routes' name prefix: the scope's, or the shallow prefix. */
  MemberAs extends string,
  Names,
  Param extends string,
  Handler extends string,
  Actions,
> = {
  member: Prefixed<MemberAs, Singular<RouteName>>;
  newMember: Prefixed<S['as'], Singular<RouteName>>;
  collection: Prefixed<
    S['as'],
    string extends Singular<RouteName>
      ? string
      : Singular<RouteName> extends RouteName
        ? `${RouteName}_index`
        : RouteName
  >;
} extends { member: infer M extends string; newMember: infer NM extends string; collection: infer C extends string }
  ?
      | ActionRoute<Actions, 'index', C, Base, Handler>
      | ActionRoute<Actions, 'create', null, Base, Handler>
      | ActionRoute<Actions, 'new', Prefixed<'new', NM>, `${Base}/${Segment<Names, 'new'>}`, Handler>
      | ActionRoute<Actions, 'edit', Prefixed<'edit', M>, `${MemberBase}/:${Param}/${Segment<Names, 'edit'>}`, Handler>
      | ActionRoute<Actions, 'show', M, `${MemberBase}/:${Param}`, Handler>
      | ActionRoute<Actions, 'update', null, `${MemberBase}/:${Param}`, Handler>
      | ActionRoute<Actions, 'destroy', null, `${MemberBase}/:${Param}`, Handler>
  : never;

/** The scope of a `resources` block. */
export type ResourcesScope<S extends TypedScope, Name extends string, Options> =
  Reshapes<Options> extends true
    ? AnyScope
    : {
        path: S['path'];
        as: S['as'];
        module: S['module'];
        level: 'resources';
        resource: ResourceDescription<
          S,
          Str<Options extends { as: infer A } ? A : unknown, Name>,
          Join<S['path'], Str<Options extends { path: infer P } ? P : unknown, Name>>,
          MemberBase<S, Name, Options>,
          MemberAs<S, Options>,
          Str<Options extends { param: infer P } ? P : unknown, 'id'>,
          InModule<S['module'], Str<Options extends { handler: infer H } ? H : unknown, Name>>
        >;
        shallowPath: S['shallowPath'];
        shallowPrefix: S['shallowPrefix'];
        shallow: ShallowOf<S, Options>;
        pathNames: PathNamesOf<S, Options>;
      };

type ResourceDescription<
  S extends TypedScope,
  RouteName extends string,
  Base extends string,
  MemberBase extends string,
  MemberAs extends string,
  Param extends string,
  Handler extends string,
> = {
  handler: Handler;
  member: Prefixed<MemberAs, Singular<RouteName>>;
  newMember: Prefixed<S['as'], Singular<RouteName>>;
  collection: Prefixed<S['as'], RouteName>;
  collectionPath: Base;
  memberPath: `${MemberBase}/:${Param}`;
  nestedPath: string extends Singular<RouteName> ? string : `${MemberBase}/:${Singular<RouteName>}_${Param}`;
};

/**
 * The scope a resource or namespace declared in scope `S` is in: nested under the resource at a
 * resource's level (`/posts/:post_id`), unknown inside member, collection and new blocks.
 */
export type Enclosing<S extends TypedScope> = S['level'] extends 'resources' | 'resource'
  ? NestedScope<S>
  : S['level'] extends 'root'
    ? S
    : AnyScope;

/** The scope nested routes of a resource get: under `/posts/:post_id`, names prefixed `post_`. */
export type NestedScope<S extends TypedScope> = S['resource'] extends infer R extends TypedResource
  ? {
      path: R['nestedPath'];
      as: R['member'];
      module: S['module'];
      level: 'root';
      resource: null;
      shallowPath: S['shallowPath'];
      shallowPrefix: S['shallowPrefix'];
      shallow: S['shallow'];
      pathNames: S['pathNames'];
    }
  : AnyScope;

/** `namespace(name)`: path, name prefix and module. */
export type NamespaceScope<S extends TypedScope, Name extends string> = {
  path: Join<S['path'], Name>;
  as: Prefixed<S['as'], Name>;
  module: S['module'] extends '' ? Name : `${S['module']}/${Name}`;
  level: 'root';
  resource: null;
  shallowPath: Join<S['shallowPath'], Name>;
  shallowPrefix: Prefixed<S['shallowPrefix'], Name>;
  shallow: S['shallow'];
  pathNames: S['pathNames'];
};

/** The scope of a `shallow` block. */
export type ShallowScope<S extends TypedScope> = Omit<S, 'shallow'> & { shallow: true };

/** `scope({ path, as, module })`. */
export type ScopeScope<S extends TypedScope, Options> =
  Reshapes<Options> extends true
    ? AnyScope
    : {
        path: Options extends { path: infer P extends string } ? Join<S['path'], P> : S['path'];
        as: Options extends { as: infer A extends string } ? Prefixed<S['as'], A> : S['as'];
        module: Options extends { module: infer M extends string }
          ? S['module'] extends ''
            ? M
            : `${S['module']}/${M}`
          : S['module'];
        level: 'root';
        resource: null;
        // As Rails' scope: `path`/`as` set the shallow ones too, unless given themselves.
        shallowPath: Options extends { shallowPath: infer P extends string }
          ? Join<S['shallowPath'], P>
          : Options extends { path: infer P extends string }
            ? Join<S['shallowPath'], P>
            : S['shallowPath'];
        shallowPrefix: Options extends { shallowPrefix: infer A extends string }
          ? Prefixed<S['shallowPrefix'], A>
          : Options extends { as: infer A extends string }
            ? Prefixed<S['shallowPrefix'], A>
            : S['shallowPrefix'];
        shallow: ShallowOf<S, Options>;
        pathNames: PathNamesOf<S, Options>;
      };

/** A scope at a level of the resource in scope (`member`, `collection`, `new`). */
export type LevelScope<S extends TypedScope, L extends 'member' | 'collection' | 'new'> = S['resource'] extends null
  ? AnyScope
  : Omit<S, 'level'> & { level: L };

// ------------------------------------------------------------------ single routes

type BareWord = `${string}${'/' | ':' | '*' | '(' | ')' | '.' | ' '}${string}`;

type TargetOf<To> = To extends `${infer H}#${infer A}` ? [H, A] : [string, string];

/**
 * The route `get(Path, Options)` declares in scope `S`: a bare word or an `as` is named by the
 * level's rule, a pattern path without `as` gets an unknown name.
 */
export type SingleRoute<S extends TypedScope, Path extends string, Options> = string extends Path
  ? UnknownRoute
  : Options extends { on: unknown } | { path: unknown } | { format: unknown } | { anchor: unknown }
    ? UnknownRoute
    : Path extends BareWord
      ? PatternRoute<S, Path, Options>
      : WordRoute<S, Path, Options>;

type Word<W extends string> = W extends `${infer A}-${infer B}` ? Word<`${A}_${B}`> : W;

type WordRoute<S extends TypedScope, W extends string, Options> = RouteAt<
  S,
  Options extends { as: infer A extends string } ? A : Word<W>,
  W,
  Options extends { to: infer To }
    ? InModule<S['module'], TargetOf<To>[0]>
    : Options extends { handler: infer H extends string }
      ? InModule<S['module'], H>
      : S['resource'] extends infer R extends TypedResource
        ? R['handler']
        : S['module'] extends ''
          ? string
          : S['module'],
  Options extends { to: infer To } ? TargetOf<To>[1] : Options extends { action: infer A extends string } ? A : Word<W>
>;

type PatternRoute<S extends TypedScope, P extends string, Options> = S['level'] extends 'root'
  ? {
      name: Options extends { as: infer A extends string }
        ? Prefixed<S['as'], A>
        : Options extends { as: false | null }
          ? null
          : string;
      path: Formatted<Join<S['path'], P>>;
      handler: Options extends { to: infer To }
        ? InModule<S['module'], TargetOf<To>[0]>
        : P extends `${infer H}/${infer A}`
          ? A extends BareWord
            ? string
            : InModule<S['module'], H>
          : string;
      action: Options extends { to: infer To }
        ? TargetOf<To>[1]
        : Options extends { action: infer A extends string }
          ? A
          : P extends `${string}/${infer A}`
            ? A extends BareWord
              ? string
              : A
            : string;
    }
  : UnknownRoute;

/** A named word route at the scope's level (Rails' `Scope#action_name` table). */
type RouteAt<
  S extends TypedScope,
  Name extends string,
  W extends string,
  Handler extends string,
  Act extends string,
> = S['level'] extends 'root'
  ? { name: Prefixed<S['as'], Name>; path: Formatted<Join<S['path'], W>>; handler: Handler; action: Act }
  : S['resource'] extends infer R extends TypedResource
    ? S['level'] extends 'member' | 'resource'
      ? { name: Prefixed<Name, R['member']>; path: Formatted<`${R['memberPath']}/${W}`>; handler: Handler; action: Act }
      : S['level'] extends 'collection'
        ? {
            name: Prefixed<Name, R['collection']>;
            path: Formatted<`${R['collectionPath']}/${W}`>;
            handler: Handler;
            action: Act;
          }
        : S['level'] extends 'new'
          ? {
              name: Prefixed<Name, Prefixed<'new', R['newMember']>>;
              path: Formatted<`${R['collectionPath']}/new/${W}`>;
              handler: Handler;
              action: Act;
            }
          : S['level'] extends 'resources'
            ? {
                name: Prefixed<R['member'], Name>;
                path: Formatted<`${R['nestedPath']}/${W}`>;
                handler: Handler;
                action: Act;
              }
            : UnknownRoute
    : UnknownRoute;

/** `root('pages#home')`. */
export type RootRoute<S extends TypedScope, To> = S['level'] extends 'root'
  ? {
      name: Prefixed<S['as'], 'root'>;
      path: S['path'] extends '' ? '/' : S['path'];
      handler: InModule<S['module'], TargetOf<To>[0]>;
      action: TargetOf<To>[1];
    }
  : UnknownRoute;

/** `resource(Name, Options)` (singular): its own routes. */
export type SingletonRoutes<S extends TypedScope, Name extends string, Options> =
  Reshapes<Options> extends true
    ? UnknownRoute
    :
        | ConcernRoutes<Options>
        | SingletonOf<
            Prefixed<S['as'], Str<Options extends { as: infer A } ? A : unknown, Name>>,
            Join<S['path'], Str<Options extends { path: infer P } ? P : unknown, Name>>,
            InModule<S['module'], Str<Options extends { handler: infer H } ? H : unknown, Plural<Name>>>,
            PathNamesOf<S, Options>,
            Allowed<
              Options extends { only: infer O } ? O : unknown,
              Options extends { except: infer E } ? E : unknown,
              Exclude<Action, 'index'>
            >
          >;

/** A singular resource's routes (a shallow one's too: it has no id to be shallow with). */
type SingletonOf<M extends string, Base extends string, Handler extends string, Names, Actions> =
  | ActionRoute<Actions, 'show', M, Base, Handler>
  | ActionRoute<Actions, 'create', null, Base, Handler>
  | ActionRoute<Actions, 'update', null, Base, Handler>
  | ActionRoute<Actions, 'destroy', null, Base, Handler>
  | ActionRoute<Actions, 'new', Prefixed<'new', M>, `${Base}/${Segment<Names, 'new'>}`, Handler>
  | ActionRoute<Actions, 'edit', Prefixed<'edit', M>, `${Base}/${Segment<Names, 'edit'>}`, Handler>;

/** The scope of a `resource` block. */
export type SingletonScope<S extends TypedScope, Name extends string, Options> =
  Reshapes<Options> extends true
    ? AnyScope
    : {
        path: S['path'];
        as: S['as'];
        module: S['module'];
        level: 'resource';
        resource: {
          handler: InModule<S['module'], Str<Options extends { handler: infer H } ? H : unknown, Plural<Name>>>;
          member: Prefixed<S['as'], Str<Options extends { as: infer A } ? A : unknown, Name>>;
          newMember: Prefixed<S['as'], Str<Options extends { as: infer A } ? A : unknown, Name>>;
          collection: Prefixed<S['as'], Str<Options extends { as: infer A } ? A : unknown, Name>>;
          collectionPath: Join<S['path'], Str<Options extends { path: infer P } ? P : unknown, Name>>;
          memberPath: Join<S['path'], Str<Options extends { path: infer P } ? P : unknown, Name>>;
          nestedPath: Join<S['path'], Str<Options extends { path: infer P } ? P : unknown, Name>>;
        };
        shallowPath: S['shallowPath'];
        shallowPrefix: S['shallowPrefix'];
        shallow: ShallowOf<S, Options>;
        pathNames: PathNamesOf<S, Options>;
      };
