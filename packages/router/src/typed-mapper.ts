/**
 * The mapper as TypeScript sees it inside `draw`: the runtime `Mapper`'s methods, each returning
 * a mapper that carries the routes declared so far (`Out`) in its type. A block passes its
 * routes on by returning its mapper: `r.resources('posts', (r) => r.resources('comments'))`; a
 * block written as statements returns nothing and its routes are typed as unknown (see
 * typed-routes.ts).
 */
import type { ConcernBlock, Names } from './declaration/mapper.js';
import type { MatchOptions, ResourcesOptions, ScopeOptions } from './declaration/options.js';
import type { Checked } from './typed-options.js';
import type {
  AnyScope,
  ConcernRoute,
  Enclosing,
  LevelScope,
  NamespaceScope,
  NestedScope,
  ResourcesRoutes,
  ResourcesScope,
  RootRoute,
  ScopeScope,
  SingleRoute,
  SingletonRoutes,
  ShallowScope,
  SingletonScope,
  TypedRoute,
  TypedScope,
  UnknownRoute,
} from './typed-routes.js';

/** Where the routes of a typed mapper are kept (in its type only). */
declare const routesOf: unique symbol;

/** The routes a block's return value carries: its mapper's, or unknown ones when it returns nothing. */
export type BlockRoutes<Returned> = Returned extends { readonly [routesOf]: infer R extends TypedRoute }
  ? [R] extends [never]
    ? never
    : R
  : UnknownRoute;

/** Options of a call that gives none. */
type NoOptions = Record<never, never>;

type Block<S extends TypedScope, Returned> = (r: TypedMapper<S, never>) => Returned;

/** The mapper of a typed declaration in scope `S`, with routes `Out` declared so far. */
export interface TypedMapper<S extends TypedScope, Out extends TypedRoute> {
  readonly [routesOf]: Out;

  resources<const Name extends string, Returned = TypedMapper<S, never>>(
    names: Name,
    block?: Block<ResourcesScope<Enclosing<S>, Name, unknown>, Returned>,
  ): TypedMapper<S, Out | ResourcesRoutes<Enclosing<S>, Name, unknown> | BlockRoutes<Returned>>;
  resources(
    names: string[],
    options?: ResourcesOptions | Block<AnyScope, unknown>,
    block?: Block<AnyScope, unknown>,
  ): TypedMapper<S, Out | UnknownRoute>;
  /** Last: where no overload fits, tsc reports this one's error (an option's mistake). */
  resources<const Name extends string, const O extends ResourcesOptions, Returned = TypedMapper<S, never>>(
    names: Name,
    options: Checked<O>,
    block?: Block<ResourcesScope<Enclosing<S>, Name, O>, Returned>,
  ): TypedMapper<S, Out | ResourcesRoutes<Enclosing<S>, Name, O> | BlockRoutes<Returned>>;

  resource<const Name extends string, Returned = TypedMapper<S, never>>(
    names: Name,
    block?: Block<SingletonScope<Enclosing<S>, Name, unknown>, Returned>,
  ): TypedMapper<S, Out | SingletonRoutes<Enclosing<S>, Name, unknown> | BlockRoutes<Returned>>;
  resource(
    names: string[],
    options?: ResourcesOptions | Block<AnyScope, unknown>,
    block?: Block<AnyScope, unknown>,
  ): TypedMapper<S, Out | UnknownRoute>;
  /** Last: where no overload fits, tsc reports this one's error (an option's mistake). */
  resource<const Name extends string, const O extends ResourcesOptions, Returned = TypedMapper<S, never>>(
    names: Name,
    options: Checked<O>,
    block?: Block<SingletonScope<Enclosing<S>, Name, O>, Returned>,
  ): TypedMapper<S, Out | SingletonRoutes<Enclosing<S>, Name, O> | BlockRoutes<Returned>>;

  namespace<const Name extends string, Returned>(
    name: Name,
    block: Block<NamespaceScope<Enclosing<S>, Name>, Returned>,
  ): TypedMapper<S, Out | BlockRoutes<Returned>>;
  namespace<const O extends ScopeOptions, Returned>(
    name: string,
    options: Checked<O>,
    block: Block<AnyScope, Returned>,
  ): TypedMapper<S, Out | UnknownRoute>;

  scope<const P extends string, Returned>(
    path: P,
    block: Block<ScopeScope<S, { path: P }>, Returned>,
  ): TypedMapper<S, Out | BlockRoutes<Returned>>;
  scope<const O extends ScopeOptions, Returned>(
    path: string | string[],
    options: Checked<O>,
    block: Block<AnyScope, Returned>,
  ): TypedMapper<S, Out | UnknownRoute>;
  /** Last: where no overload fits, tsc reports this one's error (an option's mistake). */
  scope<const O extends ScopeOptions, Returned>(
    options: Checked<O>,
    block: Block<ScopeScope<S, O>, Returned>,
  ): TypedMapper<S, Out | BlockRoutes<Returned>>;

  member<Returned>(block: Block<LevelScope<S, 'member'>, Returned>): TypedMapper<S, Out | BlockRoutes<Returned>>;
  collection<Returned>(
    block: Block<LevelScope<S, 'collection'>, Returned>,
  ): TypedMapper<S, Out | BlockRoutes<Returned>>;
  'new'<Returned>(block: Block<LevelScope<S, 'new'>, Returned>): TypedMapper<S, Out | BlockRoutes<Returned>>;
  nested<Returned>(block: Block<NestedScope<S>, Returned>): TypedMapper<S, Out | BlockRoutes<Returned>>;

  /** The map form or several paths: routes the types do not follow (the same for each verb and `match`). */
  get(path: string[] | Record<string, unknown>, options?: MatchOptions): TypedMapper<S, Out | UnknownRoute>;
  get<const P extends string, const O extends MatchOptions = NoOptions>(
    path: P,
    options?: Checked<O>,
  ): TypedMapper<S, Out | SingleRoute<S, P, O>>;
  post(path: string[] | Record<string, unknown>, options?: MatchOptions): TypedMapper<S, Out | UnknownRoute>;
  post<const P extends string, const O extends MatchOptions = NoOptions>(
    path: P,
    options?: Checked<O>,
  ): TypedMapper<S, Out | SingleRoute<S, P, O>>;
  put(path: string[] | Record<string, unknown>, options?: MatchOptions): TypedMapper<S, Out | UnknownRoute>;
  put<const P extends string, const O extends MatchOptions = NoOptions>(
    path: P,
    options?: Checked<O>,
  ): TypedMapper<S, Out | SingleRoute<S, P, O>>;
  patch(path: string[] | Record<string, unknown>, options?: MatchOptions): TypedMapper<S, Out | UnknownRoute>;
  patch<const P extends string, const O extends MatchOptions = NoOptions>(
    path: P,
    options?: Checked<O>,
  ): TypedMapper<S, Out | SingleRoute<S, P, O>>;
  delete(path: string[] | Record<string, unknown>, options?: MatchOptions): TypedMapper<S, Out | UnknownRoute>;
  delete<const P extends string, const O extends MatchOptions = NoOptions>(
    path: P,
    options?: Checked<O>,
  ): TypedMapper<S, Out | SingleRoute<S, P, O>>;
  match(path: string[] | Record<string, unknown>, options?: MatchOptions): TypedMapper<S, Out | UnknownRoute>;
  match<const P extends string, const O extends MatchOptions>(
    path: P,
    options: Checked<O>,
  ): TypedMapper<S, Out | SingleRoute<S, P, O>>;

  root<const To extends string>(to: To): TypedMapper<S, Out | RootRoute<S, To>>;
  root<const To extends string>(options: { to: To }): TypedMapper<S, Out | RootRoute<S, To>>;
  root(path?: string | MatchOptions, options?: MatchOptions): TypedMapper<S, Out | UnknownRoute>;

  concern(name: string, block: ConcernBlock): TypedMapper<S, Out>;
  /** Its routes are a marker `draw` refuses in a typed declaration (see `ConcernRoute`). */
  concerns(names: Names, options?: Record<string, unknown>): TypedMapper<S, Out | ConcernRoute>;
  shallow<Returned>(block: Block<ShallowScope<S>, Returned>): TypedMapper<S, Out | BlockRoutes<Returned>>;
  constraints<Returned>(
    constraints: Record<string, RegExp | string>,
    block: Block<S, Returned>,
  ): TypedMapper<S, Out | BlockRoutes<Returned>>;
  defaults<Returned>(
    defaults: Record<string, unknown>,
    block: Block<S, Returned>,
  ): TypedMapper<S, Out | BlockRoutes<Returned>>;
  withExclusiveScope<Returned>(block: Block<AnyScope, Returned>): TypedMapper<S, Out | UnknownRoute>;
  resourcesPathNames(names: Record<string, string>): TypedMapper<S, Out | UnknownRoute>;
  isShallow(): boolean;
}
