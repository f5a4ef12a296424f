/**
 * The compiled route set `draw` returns: the routes in declaration order, and everything
 * derived from them — recognition (compiled on first use), URL generation and named
 * helpers (the node:http listener is an adapter, adapters/node.ts).
 */
import { ArgumentError } from './errors.js';
import type { RouteSink } from './declaration/mapper.js';
import { camelHelperName } from './format/helper-name.js';
import { compileFastPath, generatePath, paramsFromArgs, urlFor } from './generator/generate.js';
import { Matcher, type MatcherTier } from './matcher/matcher.js';
import { normalizeRequestPath } from './pattern/normalize.js';
import { ResourceRoutes, type RouteEntry } from './resource-routes.js';
import { Route, type RouteSpec } from './route.js';
import type { Helpers, RouteName, routeTypes, TypedRoute, UnknownRoute } from './typed-routes.js';
import type { Match, RouteHelper, RouteInfo, RouteSetLike, UrlOptions } from './types.js';

const DUPLICATE_NAME =
  'You may have defined two routes with the same name using the `as` option, or you may be overriding a route already defined by a resource with the same naming. For the latter, restrict the routes `resources` creates with its `only` or `except` option (see docs/router.md, "Restricting the routes created").';

/** What a route name may be (a regexp literal here would be a new object per route). */
const ROUTE_NAME = /^[_a-z]\w*$/i;

/** Records named by a scan before all are (`nameRecord`): the first lookups of a large set read a few. */
const SCANNED_RECORDS = 16;

/** `R`: the routes as the declaration types them (see typed-routes.ts). */
export class RouteSet<R extends TypedRoute = UnknownRoute> implements RouteSetLike, RouteSink {
  declare readonly [routeTypes]?: R;
  // The declared specs and resource records (one entry for a resource's own routes, see
  // resource-routes.ts); a route's `Route` is made when first read (`routeAt`): the first lookup
  // reads only its verb's routes, so a large set is not two objects a route before it is used.
  private readonly entries: RouteEntry[] = [];
  /** The index of each entry's first route. */
  private readonly starts: number[] = [];
  /** Routes declared so far. */
  private count = 0;
  private readonly routes: (Route | undefined)[] = [];
  /** Route name → route index, for the entries before `namedUpTo`. */
  private readonly named = new Map<string, number>();
  /**
   * The entries before this one have their names in `named`; those from it on are resource
   * records whose names are not decided yet (`resolveNames`): declaring a large set made four
   * names per resource and put them in the map, half of the declaration's time, before anything
   * asked for a name (docs/benchmarks.md).
   */
  private namedUpTo = 0;
  /** Records named ahead of the others by a scan (`nameRecord`). */
  private scans = 0;
  private readonly isNamed = (name: string): boolean => this.named.has(name);
  private readonly namer = (record: ResourceRoutes): void => this.nameRecord(record);
  private matcher: Matcher | null = null;
  private tier: MatcherTier = 'auto';
  private helperTable: Record<string, RouteHelper> | null = null;
  private readonly fastPaths = new Map<Route, ((args: unknown[]) => string | null) | null>();

  /** Host, protocol and port used by `url()` and the `...Url` helpers when a call gives none. */
  defaultUrlOptions: UrlOptions = {};

  /** Adds a declared route (the mapper calls this). */
  add(spec: RouteSpec): void {
    this.resolveNames();
    const name = spec.name;
    if (name !== null) this.addName(name, this.count);
    this.addEntry(spec, 1);
    this.namedUpTo = this.entries.length;
  }

  /**
   * Adds a plain resource's own routes (the mapper calls this). Their names are decided when
   * something needs them (`resolveNames`), unless a name could be refused: then now, so that
   * `draw` refuses it.
   */
  addResourceRoutes(routes: ResourceRoutes): void {
    routes.start = this.count;
    routes.namer = this.namer;
    if (routes.namesAreWords) {
      this.addEntry(routes, routes.count);
      return;
    }
    this.resolveNames();
    this.addRecordNames(routes);
    this.addEntry(routes, routes.count);
    this.namedUpTo = this.entries.length;
  }

  /** Decides the names of the records not named yet, in order, and puts them in the map. */
  private resolveNames(): void {
    const entries = this.entries;
    for (let e = this.namedUpTo; e < entries.length; e++) this.addRecordNames(entries[e] as ResourceRoutes);
    this.namedUpTo = entries.length;
  }

  /** Puts a record's names in the map (decided now unless a scan decided them), each checked. */
  private addRecordNames(routes: ResourceRoutes): void {
    const names = routes.names ?? routes.nameWith(this.isNamed);
    const named = this.named;
    for (let k = 0; k < names.length; k++) {
      const name = names[k]!;
      if (name === null) continue;
      if (!ROUTE_NAME.test(name)) throw new ArgumentError(`Invalid route name: '${name}'`);
      const size = named.size;
      named.set(name, routes.start + k);
      if (named.size === size) throw new Error(`a resource's route was given a name in use: '${name}'`);
    }
  }

  /**
   * Decides the names of a record not named yet before the others: the first lookups read the
   * names of a few routes, which a scan of the records not named before theirs decides as
   * `resolveNames` would (a name is taken when a route before has it, that is when a record
   * before may take it). Past a few records, all are named at once.
   */
  private nameRecord(record: ResourceRoutes): void {
    if (++this.scans > SCANNED_RECORDS) {
      this.resolveNames();
      return;
    }
    // The names it would try (a trial that takes none), then which of them a record before takes.
    const candidates: string[] = [];
    record.nameWith((name) => {
      if (!this.named.has(name)) candidates.push(name);
      return false;
    });
    const taken = candidates.map(() => false);
    const entries = this.entries;
    for (let e = this.namedUpTo, to = this.entryOf(record.start); e < to; e++)
      (entries[e] as ResourceRoutes).markTaken(candidates, taken);
    record.nameWith((name) => {
      const i = candidates.indexOf(name);
      return i === -1 || taken[i]!;
    });
  }

  private addName(name: string, index: number): void {
    if (!ROUTE_NAME.test(name)) throw new ArgumentError(`Invalid route name: '${name}'`);
    if (this.named.has(name))
      throw new ArgumentError(`Invalid route name, already in use: '${name}' \n${DUPLICATE_NAME}`);
    this.named.set(name, index);
  }

  private addEntry(entry: RouteEntry, routes: number): void {
    this.entries.push(entry);
    this.starts.push(this.count);
    this.count += routes;
    this.matcher = null;
    this.helperTable = null;
  }

  hasNamedRoute(name: string): boolean {
    this.resolveNames();
    return this.named.has(name);
  }

  /** Every route in declaration order (PATCH and PUT of `update` are two entries). */
  list(): RouteInfo[] {
    this.resolveNames();
    const infos: RouteInfo[] = [];
    for (let i = 0; i < this.count; i++) infos.push(this.routeAt(i).info);
    return infos;
  }

  /** The route of the `index`th declared route, made on first read. */
  private routeAt(index: number): Route {
    return (this.routes[index] ??= new Route(index, this.specAt(index)));
  }

  /** The spec of the `index`th declared route (a record's made on first read). */
  private specAt(index: number): RouteSpec {
    const e = this.entryOf(index);
    const entry = this.entries[e]!;
    return entry instanceof ResourceRoutes ? entry.specAt(index - this.starts[e]!) : entry;
  }

  /** The entry holding the `index`th declared route, found by a binary search. */
  private entryOf(index: number): number {
    const starts = this.starts;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= index) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Builds the recognizer now instead of on the first request. */
  eagerLoad(): this {
    this.compiled();
    return this;
  }

  private compiled(): Matcher {
    return (this.matcher ??= new Matcher(this.entries, (index) => this.routeAt(index), this.tier));
  }

  /** @internal Forces one matcher tier for every lookup (tests run each tier over the same cases). */
  useMatcherTier(tier: MatcherTier): this {
    this.tier = tier;
    this.matcher = null;
    return this;
  }

  /**
   * The route a request goes to: `recognize('GET', '/posts/1.json')` →
   * `{ handler: 'posts', action: 'show', params: { id: '1', format: 'json' } }`.
   * The first declared route whose path and verb match wins; HEAD falls back to GET routes.
   */
  recognize(method: string, path: string): Match | null {
    return (this.matcher ?? this.compiled()).recognize(method, path);
  }

  /** Verbs some route answers for this path (HEAD wherever GET is); empty when no path matches. */
  allowedMethods(path: string): string[] {
    const normalized = normalizeRequestPath(path);
    const matcher = this.compiled();
    if (matcher.matchesAnyVerb(normalized)) return ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT'];
    const verbs = new Set<string>();
    for (const verb of matcher.verbs) if (matcher.find(verb, normalized) !== null) verbs.add(verb);
    if (verbs.has('GET')) verbs.add('HEAD');
    return [...verbs].sort();
  }

  private namedRoute(name: string): Route {
    this.resolveNames();
    const index = this.named.get(name);
    if (index === undefined) throw new Error(`Unknown route name: '${name}'`);
    return this.routeAt(index);
  }

  /** `path('edit_post_comment', 1, 2)` → `/posts/1/comments/2/edit`; a last object gives keyed params. */
  path(name: RouteName<R>, ...args: unknown[]): string {
    return this.pathOf(this.namedRoute(name), args);
  }

  /** Like `path`, with scheme and host: the params object (or `defaultUrlOptions`) gives host, protocol, port. */
  url(name: RouteName<R>, ...args: unknown[]): string {
    return this.urlOf(this.namedRoute(name), args);
  }

  private pathOf(route: Route, args: unknown[]): string {
    const { scriptName } = this.defaultUrlOptions;
    if (scriptName !== undefined) return generatePath(route, { scriptName, ...paramsFromArgs(route, args) });
    let fast = this.fastPaths.get(route);
    if (fast === undefined) this.fastPaths.set(route, (fast = compileFastPath(route)));
    if (fast !== null) {
      const path = fast(args);
      if (path !== null) return path;
    }
    return generatePath(route, paramsFromArgs(route, args));
  }

  private urlOf(route: Route, args: unknown[]): string {
    const params = paramsFromArgs(route, args);
    const { scriptName } = this.defaultUrlOptions;
    const path = generatePath(route, scriptName === undefined ? params : { scriptName, ...params });
    return urlFor(path, { ...this.defaultUrlOptions, ...params });
  }

  /** `{ editPostCommentPath(postId, id), editPostCommentUrl(...), ... }` for every named route. */
  get helpers(): Helpers<R> {
    if (this.helperTable !== null) return this.helperTable as Helpers<R>;
    const table: Record<string, RouteHelper> = Object.create(null);
    this.resolveNames();
    for (const [name, index] of this.named) {
      const route = this.routeAt(index);
      table[camelHelperName(name, 'Path')] = (...args: unknown[]) => this.pathOf(route, args);
      table[camelHelperName(name, 'Url')] = (...args: unknown[]) => this.urlOf(route, args);
    }
    return (this.helperTable = Object.freeze(table)) as Helpers<R>;
  }
}
