/**
 * The routing DSL (Rails' `ActionDispatch::Routing::Mapper`): `resources`, `resource`,
 * `namespace`, `scope`, `concern`, `member`/`collection`/`new`/`nested`, `match` and the verb
 * methods, `root`. It only produces RouteSpecs, in declaration order; the route set compiles them.
 *
 * The seven resource actions are ordinary DSL calls made inside `collection`, `new` and
 * `member` blocks, exactly as Rails declares them, so every option and scope rule applies to
 * them the same way it applies to a user's own `get`.
 */
import { ArgumentError } from '../errors.js';
import { escapeDeclaredPath, normalizeName, normalizePath, withFormat } from '../pattern/normalize.js';
import type { RouteSpec } from '../route.js';
import { buildRouteSpec, internVerbs, isPlainObject, leanHandler, leanRouteSpec } from './mapping.js';
import {
  CANONICAL_ACTIONS,
  OPTION_NAMES,
  RESOURCE_OPTIONS,
  SCOPE_OPTIONS,
  URL_OPTIONS,
  VALID_ON_OPTIONS,
  type MatchOptions,
  type ResourcesOptions,
  type ScopeOptions,
} from './options.js';
import { Resource, SingletonResource, type ActionName, type ResourceOptions } from './resource.js';
import { RESOURCE_METHOD_SCOPES, Scope, type ScopeFrame, type ScopeLevel } from './scope.js';

export type Block = (r: Mapper) => void;
export type ConcernBlock = (r: Mapper, options: Record<string, unknown>) => void;
export type Names = string | string[];
type PathArg = string | string[] | Record<string, unknown>;

/** Receives each route as it is declared; the route set implements it. */
export interface RouteSink {
  add(spec: RouteSpec): void;
  hasNamedRoute(name: string): boolean;
}

/** A bare word (`preview`, `new-draft`) is an action name, like a Ruby symbol; anything else is a path. */
function isBareWord(path: string): boolean {
  return /^[A-Za-z0-9_-]+$/.test(path);
}

function isEmpty(value: object): boolean {
  for (const _ in value) return false;
  return true;
}

function present(value: string | undefined | null): value is string {
  return value !== undefined && value !== null && value !== '';
}

/** The present parts joined with `_` (Rails' `[...].compact.join('_')`, empty strings dropped too). */
function joinPresent(parts: Array<string | undefined>): string {
  let out = '';
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (present(part)) out = out === '' ? part : `${out}_${part}`;
  }
  return out;
}

/** How an implicit route name must start (else the route gets none). */
const VALID_NAME_START = /^[_a-z]/i;

/** Verb lists (interned) by `via` string: most routes say `get`. */
const viaVerbs = new Map<string, string[]>();

/** The verbs of a `via` option (`'get'`, `['get', 'post']`, `'all'`: every verb, an empty list). */
function verbsOf(viaValue: unknown): string[] {
  const via = (Array.isArray(viaValue) ? viaValue : viaValue === undefined || viaValue === null ? [] : [viaValue]).map(
    (v) => String(v).toLowerCase(),
  );
  if (via.length === 0) throw new ArgumentError(MATCH_VIA_MESSAGE);
  const verbs = internVerbs(via.includes('all') ? [] : via.map((v) => v.toUpperCase()));
  if (typeof viaValue === 'string') viaVerbs.set(viaValue, verbs);
  return verbs;
}

/** Options and constraints of a route declared with none (only read). */
const NO_OPTIONS: Readonly<Record<string, unknown>> = Object.freeze({});

const MATCH_VIA_MESSAGE =
  'You should not use the `match` method in your router without specifying an HTTP method.\n' +
  "If you want to expose your action to both GET and POST, add the `via: ['get', 'post']` option.\n" +
  'If you want to expose your action to GET, use `get` in the router:\n' +
  "  Instead of: r.match('path', { to: 'handler#action' })\n" +
  "  Do: r.get('path', { to: 'handler#action' })";

export class Mapper {
  private current: Scope;
  private readonly concernBlocks = new Map<string, ConcernBlock>();

  constructor(private readonly sink: RouteSink) {
    this.current = new Scope({ pathNames: { new: 'new', edit: 'edit' } }, null, null);
  }

  // ---------------------------------------------------------------- scope stack

  /** Runs `block` with `frame` pushed (or a new `level`), restoring the scope even if it throws. */
  private within(frame: ScopeFrame | null, level: ScopeLevel | undefined, block: () => void): void {
    const saved = this.current;
    if (frame) this.current = this.current.push(frame);
    if (level !== undefined) this.current = this.current.pushLevel(level);
    try {
      block();
    } finally {
      this.current = saved;
    }
  }

  private withScopeLevel(level: ScopeLevel, block: () => void): void {
    this.within(null, level, block);
  }

  private pathScope(path: string, block: () => void): void {
    this.within({ path: normalizePath(`${this.current.get('path') ?? ''}/${path}`) }, undefined, block);
  }

  /** Shallow routes drop the enclosing path and name prefix for `shallowPath`/`shallowPrefix`. */
  private shallowScope(block: () => void): void {
    this.within({ as: this.current.get('shallowPrefix'), path: this.current.get('shallowPath') }, undefined, block);
  }

  private get parentResource(): Resource | undefined {
    return this.current.get('resource');
  }

  private run(block: Block | undefined): void {
    if (block) block(this);
  }

  // ---------------------------------------------------------------- scoping

  /**
   * Scopes a block by path, handler module, name prefix and any other option:
   * `scope('admin', ...)`, `scope({ module: 'api', path: 'v1', as: 'v1' }, ...)`.
   */
  scope(path: string | string[], block: Block): this;
  scope(path: string | string[], options: ScopeOptions, block: Block): this;
  scope(options: ScopeOptions, block: Block): this;
  scope(a: string | string[] | ScopeOptions, b?: ScopeOptions | Block, c?: Block): this {
    let options: Record<string, unknown>;
    let block: Block | undefined;
    if (typeof a === 'string' || Array.isArray(a)) {
      options = { ...(typeof b === 'function' ? {} : (b ?? {})) };
      block = typeof b === 'function' ? b : c;
      options.path = (Array.isArray(a) ? a.flat() : [a]).join('/');
    } else {
      options = { ...a };
      block = typeof b === 'function' ? b : c;
    }
    this.applyScope(options, () => this.run(block));
    return this;
  }

  private applyScope(input: Record<string, unknown>, block: () => void): void {
    const options = { ...input };
    const frame: ScopeFrame = {};
    if (options.constraints === undefined) options.constraints = {};

    if (this.current.level !== 'nested') {
      if ('path' in options && options.shallowPath === undefined) options.shallowPath = options.path;
      if ('as' in options && options.shallowPrefix === undefined) options.shallowPrefix = options.as;
    }

    if (isPlainObject(options.constraints)) {
      const urlDefaults: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(options.constraints)) {
        if (URL_OPTIONS.includes(k) && (typeof v === 'string' || typeof v === 'number')) urlDefaults[k] = v;
      }
      options.defaults = { ...urlDefaults, ...((options.defaults as Record<string, unknown>) ?? {}) };
    } else {
      options.constraints = {};
    }

    if ('only' in options || 'except' in options) {
      frame.actionOptions = { only: options.only, except: options.except };
      delete options.only;
      delete options.except;
    }
    if ('anchor' in options) throw new ArgumentError('anchor is ignored unless passed to `match`');

    const s = this.current;
    for (const key of SCOPE_OPTIONS) {
      if (!(key in options)) continue;
      const value = options[key];
      delete options[key];
      switch (key) {
        case 'path':
        case 'shallowPath':
          frame[key] = normalizePath(`${s.get(key) ?? ''}/${value ?? ''}`);
          break;
        case 'as':
        case 'shallowPrefix': {
          const parent = s.get(key);
          frame[key] = parent ? `${parent}_${value}` : (value as string | undefined);
          break;
        }
        case 'module': {
          const parent = s.get('module');
          frame.module = parent ? `${parent}/${value}` : (value as string | undefined);
          break;
        }
        case 'pathNames':
        case 'constraints':
        case 'defaults':
          (frame as Record<string, unknown>)[key] = {
            ...(s.get(key) ?? {}),
            ...((value as Record<string, unknown>) ?? {}),
          };
          break;
        case 'shallow':
          frame.shallow = Boolean(value);
          break;
        default:
          (frame as Record<string, unknown>)[key] = value;
      }
    }
    // Whatever is left reaches every route of the block as an option (a default or a requirement).
    frame.options = { ...(s.get('options') ?? {}), ...options };
    this.within(frame, undefined, block);
  }

  /** Groups routes under a path, a handler module and a name prefix; inside a resource it nests. */
  namespace(name: string, block: Block): this;
  namespace(name: string, options: ScopeOptions, block: Block): this;
  namespace(name: string, b: ScopeOptions | Block, c?: Block): this {
    const options: Record<string, unknown> = { ...(typeof b === 'function' ? {} : b) };
    const block = typeof b === 'function' ? b : c;
    const body = () => {
      const path = String(name);
      const asName = 'as' in options ? options.as : path;
      const scopeOptions: Record<string, unknown> = {
        module: path,
        as: asName,
        shallowPath: 'path' in options ? options.path : path,
        shallowPrefix: asName,
      };
      const pathOption = 'path' in options ? String(options.path) : path;
      delete options.path;
      this.pathScope(pathOption, () => this.applyScope({ ...scopeOptions, ...options }, () => this.run(block)));
    };
    if (this.current.isResourceScope()) this.nestedScope(body);
    else body();
    return this;
  }

  /** Adds segment constraints to every route of the block. */
  constraints(constraints: Record<string, RegExp | string>, block: Block): this {
    this.applyScope({ constraints }, () => this.run(block));
    return this;
  }

  /** Adds defaults to every route of the block. */
  defaults(defaults: Record<string, unknown>, block: Block): this {
    this.within({ defaults: { ...(this.current.get('defaults') ?? {}), ...defaults } }, undefined, () =>
      this.run(block),
    );
    return this;
  }

  /** Clears the name prefix and path for the block (the seed's exclusive scope level). */
  withExclusiveScope(block: Block): this {
    this.within({ as: undefined, path: undefined }, 'exclusive', () => this.run(block));
    return this;
  }

  // ---------------------------------------------------------------- concerns

  /** Declares a reusable group of routes; the block receives the options given to `concerns`. */
  concern(name: string, block: ConcernBlock): this {
    this.concernBlocks.set(String(name), block);
    return this;
  }

  /** Applies named concerns here. */
  concerns(names: Names, options: Record<string, unknown> = {}): this {
    for (const name of Array.isArray(names) ? names.flat() : [names]) {
      const block = this.concernBlocks.get(String(name));
      if (!block) throw new ArgumentError(`No concern named ${name} was found!`);
      block(this, { ...options });
    }
    return this;
  }

  // ---------------------------------------------------------------- resources

  /** Merges path names (`{ new: 'nuevo', edit: 'editar' }`) into the current scope's. */
  resourcesPathNames(names: Record<string, string>): this {
    // Rails merges into the nearest frame's hash in place, so the change outlives the block.
    const current = this.current.get('pathNames');
    if (current) Object.assign(current, names);
    return this;
  }

  /** `resources('photos')`: index, create, new, edit, show, update (PATCH and PUT), destroy. */
  resources(names: Names, block?: Block): this;
  resources(names: Names, options: ResourcesOptions, block?: Block): this;
  resources(names: Names, b?: ResourcesOptions | Block, c?: Block): this {
    const [options, block] = typeof b === 'function' ? [{}, b] : [b ?? {}, c];
    return this.declareResource('resources', names, options, block);
  }

  /** `resource('profile')`: a singular resource with no id: new, edit, show, update, destroy, create. */
  resource(names: Names, block?: Block): this;
  resource(names: Names, options: ResourcesOptions, block?: Block): this;
  resource(names: Names, b?: ResourcesOptions | Block, c?: Block): this {
    const [options, block] = typeof b === 'function' ? [{}, b] : [b ?? {}, c];
    return this.declareResource('resource', names, options, block);
  }

  private declareResource(kind: 'resources' | 'resource', names: Names, input: ResourcesOptions, block?: Block): this {
    const list = Array.isArray(names) ? names.flat() : [names];
    const options: Record<string, unknown> = { ...input };
    if (list.length > 1) {
      for (const name of list) this.declareResource(kind, name, input, block);
      return this;
    }
    const name = String(list[0]);
    if (options.shallow) {
      delete options.shallow;
      this.shallow(() => this.declareResource(kind, name, options, block));
      return this;
    }
    if (this.current.isResourceScope()) {
      this.nestedScope(() => this.declareResource(kind, name, options, block));
      return this;
    }
    if (isEmpty(options)) return this.declareResourceRoutes(kind, name, options, block);
    for (const [key, value] of Object.entries(options)) {
      if (value instanceof RegExp) {
        options.constraints = { ...((options.constraints as Record<string, unknown>) ?? {}), [key]: value };
        delete options[key];
      }
    }
    const scopeOptions: Record<string, unknown> = {};
    for (const key of Object.keys(options)) {
      if (!RESOURCE_OPTIONS.includes(key)) {
        scopeOptions[key] = options[key];
        delete options[key];
      }
    }
    if (Object.keys(scopeOptions).length > 0) {
      this.applyScope(scopeOptions, () => this.declareResource(kind, name, options, block));
      return this;
    }
    return this.declareResourceRoutes(kind, name, options, block);
  }

  /** The resource itself, once its options are only resource options: its block, then its routes. */
  private declareResourceRoutes(
    kind: 'resources' | 'resource',
    name: string,
    options: Record<string, unknown>,
    block?: Block,
  ): this {
    this.withScopeLevel(kind, () => {
      const actionOptions =
        options.only !== undefined || options.except !== undefined ? {} : (this.current.get('actionOptions') ?? {});
      const resourceOptions = { ...actionOptions, ...options } as ResourceOptions;
      const shallow = Boolean(this.current.get('shallow'));
      const resource =
        kind === 'resources'
          ? new Resource(name, shallow, resourceOptions)
          : new SingletonResource(name, shallow, resourceOptions);
      // One frame for both: a lookup finds each key as it would in two nested frames.
      this.within({ resource, handler: resource.handler }, undefined, () => {
        this.run(block);
        if (options.concerns !== undefined) this.concerns(options.concerns as Names);
        if (!this.isShallow()) this.declareActions(resource, kind);
        else if (kind === 'resources') {
          this.collection(() => {
            if (resource.allows('index')) this.get('index');
            if (resource.allows('create')) this.post('create');
          });
          if (resource.allows('new')) this.new(() => this.get('new'));
          this.setMemberMappingsForResource();
        } else {
          if (resource.allows('new')) this.new(() => this.get('new'));
          this.setMemberMappingsForResource();
          if (resource.allows('create')) this.collection(() => this.post('create'));
        }
      });
    });
    return this;
  }

  /**
   * The resource's own routes, declared directly: the specs `this.get('index')` and the others
   * would produce inside `collection`, `new` and `member` blocks (above, for shallow resources),
   * computed the same way but without pushing a scope frame or going through `match` per route
   * (a large route set is mostly these). Outside a shallow scope those blocks only add a path and
   * a level, which are given here; options, defaults and constraints come from the same scope.
   */
  private declareActions(resource: Resource, kind: 'resources' | 'resource'): void {
    const scope = this.current;
    const base = scope.get('path') ?? '';
    const collection = normalizePath(`${base}/${resource.collectionScope}`);
    const member = normalizePath(`${base}/${resource.memberScope}`);
    // In a scope that adds nothing but a handler (most resources), each distinct path is
    // formatted once and the specs are built directly (see leanRouteSpec).
    const handler = leanHandler(scope);
    // The formatted path of the last action: the member actions share theirs.
    let lastPath = '';
    let formatted = '';
    // Names as `joinedName` makes them for these actions (a plain word or none as the prefix),
    // from parts read once; the canonical actions of a level share theirs (index and create;
    // show, update and destroy), which only the first of them can take.
    const namePrefix = scope.get('as');
    const collectionName = resource.collectionName;
    const memberName = resource.memberName;
    let candidateLevel: ScopeLevel = null;
    let candidate: string | null = null;
    let taken = false;
    const declare = (verb: string, action: ActionName, level: ScopeLevel, scopePath: string) => {
      if (!resource.allows(action)) return;
      if (handler === undefined) return this.addAction(verb, action, level, scopePath);
      const canonical = CANONICAL_ACTIONS.includes(action);
      const path = canonical ? scopePath : `${scopePath}/${this.actionPath(action)}`;
      if (path !== lastPath) formatted = withFormat(normalizePath(escapeDeclaredPath((lastPath = path))), undefined);
      if (!canonical || level !== candidateLevel) {
        const joined = joinPresent(
          scope.nameParts(namePrefix, canonical ? undefined : action, collectionName, memberName, level),
        );
        candidate = VALID_NAME_START.test(joined) ? joined : null;
        candidateLevel = canonical ? level : null;
        taken = candidate === null || this.sink.hasNamedRoute(candidate);
      }
      this.sink.add(
        leanRouteSpec(taken ? null : candidate, formatted, viaVerbs.get(verb) ?? verbsOf(verb), handler, action),
      );
      taken = true;
    };
    if (kind === 'resources') {
      declare('get', 'index', 'collection', collection);
      declare('post', 'create', 'collection', collection);
    }
    if (resource.allows('new'))
      declare('get', 'new', 'new', normalizePath(`${base}/${resource.newScope(this.actionPath('new'))}`));
    declare('get', 'edit', 'member', member);
    declare('get', 'show', 'member', member);
    declare('patch', 'update', 'member', member);
    declare('put', 'update', 'member', member);
    declare('delete', 'destroy', 'member', member);
    if (kind === 'resource') declare('post', 'create', 'collection', collection);
  }

  /** What `mapMatch` and `addRoute` do for `get('edit')` and the like in a block at `level` with `scopePath`. */
  private addAction(via: string, action: string, level: ScopeLevel, scopePath: string): void {
    const scope = this.current;
    const handler = scope.get('handler');
    const scopeAction = scope.get('action');
    const to = handler && scopeAction ? `${handler}#${scopeAction}` : undefined;
    const canonical = CANONICAL_ACTIONS.includes(action);
    const path = canonical ? scopePath : `${scopePath}/${this.actionPath(action)}`;
    const formatted = scope.get('format');
    const spec = buildRouteSpec(scope, {
      name: this.nameForAction(undefined, action, level),
      path: withFormat(normalizePath(escapeDeclaredPath(path)), formatted),
      verbs: viaVerbs.get(via) ?? verbsOf(via),
      handler,
      defaultAction: scopeAction ?? action,
      to,
      formatted,
      anchor: true,
      constraints: NO_OPTIONS,
      options: NO_OPTIONS,
    });
    this.sink.add(spec);
  }

  /** Declares edit, show, update (PATCH, PUT) and destroy in the member scope. */
  protected setMemberMappingsForResource(): void {
    const resource = this.parentResource!;
    this.member(() => {
      if (resource.allows('edit')) this.get('edit');
      if (resource.allows('show')) this.get('show');
      if (resource.allows('update')) {
        this.patch('update');
        this.put('update');
      }
      if (resource.allows('destroy')) this.delete('destroy');
    });
  }

  /** Routes on the collection: `/photos/search`, named `search_photos`. */
  collection(block: Block): this {
    if (!this.current.isResourceScope()) throw new ArgumentError("can't use collection outside resource(s) scope");
    this.withScopeLevel('collection', () =>
      this.pathScope(this.parentResource!.collectionScope, () => this.run(block)),
    );
    return this;
  }

  /** Routes on a member: `/photos/:id/preview`, named `preview_photo`. */
  member(block: Block): this {
    if (!this.current.isResourceScope()) throw new ArgumentError("can't use member outside resource(s) scope");
    this.withScopeLevel('member', () => {
      const body = () => this.pathScope(this.parentResource!.memberScope, () => this.run(block));
      if (this.isShallow()) this.shallowScope(body);
      else body();
    });
    return this;
  }

  /** Routes beside `new`: `/photos/new/draft`, named `draft_new_photo`. */
  new(block: Block): this {
    if (!this.current.isResourceScope()) throw new ArgumentError("can't use new outside resource(s) scope");
    this.withScopeLevel('new', () =>
      this.pathScope(this.parentResource!.newScope(this.actionPath('new')), () => this.run(block)),
    );
    return this;
  }

  /** Routes under a member's id as a parent: `/photos/:photo_id/...`, names prefixed `photo_`. */
  nested(block: Block): this {
    if (!this.current.isResourceScope()) throw new ArgumentError("can't use nested outside resource(s) scope");
    this.nestedScope(() => this.run(block));
    return this;
  }

  private nestedScope(block: () => void): void {
    if (!this.current.isResourceScope()) throw new ArgumentError("can't use nested outside resource(s) scope");
    this.withScopeLevel('nested', () => {
      const resource = this.parentResource!;
      const s = this.current;
      if (!this.isShallow() && !(s.get('constraints')?.[resource.param] instanceof RegExp)) {
        // The frames `pathScope` and `applyScope({ as })` below would push, as one: the path and
        // the name prefix, with the scope's constraints, defaults and options as they are (never
        // modified, so shared rather than copied).
        const as = s.get('as');
        const frame: ScopeFrame = {
          path: normalizePath(`${s.get('path') ?? ''}/${resource.nestedScope}`),
          as: as ? `${as}_${resource.memberName}` : resource.memberName,
          constraints: s.get('constraints') ?? {},
          defaults: s.get('defaults') ?? {},
          options: s.get('options') ?? {},
        };
        this.within(frame, undefined, block);
        return;
      }
      const body = () =>
        this.pathScope(resource.nestedScope, () => this.applyScope(this.nestedOptions(resource), block));
      if (this.isShallow() && this.shallowNestingDepth() >= 1) this.shallowScope(body);
      else body();
    });
  }

  private nestedOptions(resource: Resource): Record<string, unknown> {
    const options: Record<string, unknown> = { as: resource.memberName };
    const constraint = this.current.get('constraints')?.[resource.param];
    if (constraint instanceof RegExp) options.constraints = { [resource.nestedParam]: constraint };
    return options;
  }

  private shallowNestingDepth(): number {
    let depth = 0;
    for (const s of this.current.frames()) if (s.frame.resource?.shallow) depth++;
    return depth;
  }

  /** Runs the block with shallow routes on. */
  shallow(block: Block | (() => void)): this {
    this.within({ shallow: true }, undefined, () => (block as Block)(this));
    return this;
  }

  /** True inside a plural resource with shallow routes on (the seed's `shallow?`). */
  isShallow(): boolean {
    const resource = this.parentResource;
    return resource !== undefined && !resource.isSingleton && Boolean(this.current.get('shallow'));
  }

  // ---------------------------------------------------------------- match

  /** Declares a route: `match('photos/:id', { to: 'photos#show', via: 'get' })`, or the map form. */
  match(path: PathArg, options?: MatchOptions): this {
    let paths: string[];
    let opts: Record<string, unknown>;
    if (isPlainObject(path) && options === undefined) {
      opts = { ...path };
      const key = Object.keys(opts).find((k) => !OPTION_NAMES.has(k));
      if (key === undefined) throw new ArgumentError('Route path not specified');
      const target = opts[key];
      delete opts[key];
      if (typeof target === 'string' && target.includes('#')) opts.to = target;
      else if (typeof target === 'string') opts.handler = target;
      else opts.to = target;
      paths = [key];
    } else if (isPlainObject(path)) {
      throw new ArgumentError('the map form of match takes no further options');
    } else {
      // Never modified below: the options are read, and what is left of them is copied.
      opts = options ?? {};
      paths = typeof path === 'string' ? [path] : (Array.isArray(path) ? path.flat() : [path]).map(String);
    }
    if ('defaults' in opts) {
      const { defaults, ...rest } = opts;
      this.defaults((defaults as Record<string, unknown>) ?? {}, () => this.mapMatch(paths, rest));
    } else {
      this.mapMatch(paths, opts);
    }
    return this;
  }

  get(path: PathArg, options?: MatchOptions): this {
    return this.mapMethod('get', path, options);
  }

  post(path: PathArg, options?: MatchOptions): this {
    return this.mapMethod('post', path, options);
  }

  put(path: PathArg, options?: MatchOptions): this {
    return this.mapMethod('put', path, options);
  }

  patch(path: PathArg, options?: MatchOptions): this {
    return this.mapMethod('patch', path, options);
  }

  delete(path: PathArg, options?: MatchOptions): this {
    return this.mapMethod('delete', path, options);
  }

  private mapMethod(verb: string, path: PathArg, options?: MatchOptions): this {
    if (isPlainObject(path) && options === undefined) return this.match({ ...path, via: verb });
    return this.match(path, { ...(options ?? {}), via: verb });
  }

  /** The root route: `root('pages#home')` or `root({ to: 'pages#home' })`. */
  root(path?: string | MatchOptions, options?: MatchOptions): this {
    let opts: Record<string, unknown>;
    if (typeof path === 'string') opts = { ...(options ?? {}), to: path };
    else if (isPlainObject(path) && (options === undefined || Object.keys(options).length === 0)) opts = { ...path };
    else throw new ArgumentError('must be called with a path and/or options');

    const matchRoot = () => this.match('/', { as: 'root', via: 'get', ...opts } as MatchOptions);
    if (this.current.level === 'resources') {
      this.withScopeLevel('root', () => this.pathScope(this.parentResource!.path, matchRoot));
    } else {
      matchRoot();
    }
    return this;
  }

  /** True when `to` would be taken from the path itself (`get 'help/faq'` → `help#faq`). */
  usingMatchShorthand(path: string | undefined, options: MatchOptions = {}): boolean {
    return (
      present(path) && options.to === undefined && options.action === undefined && /^\/?[-\w]+\/[-\w/]+$/.test(path)
    );
  }

  private mapMatch(paths: string[], options: Record<string, unknown>): void {
    if (options.on !== undefined && !VALID_ON_OPTIONS.includes(String(options.on))) {
      throw new ArgumentError(`Unknown scope ${String(options.on)} given to :on`);
    }
    // What is left after the keys read here goes on to the route (the caller's object is not modified).
    const {
      handler: handlerOption,
      path: optionPath,
      to: toOption,
      via: viaOption,
      format: formatOption,
      anchor: anchorOption,
      constraints: constraintsOption,
      ...rest
    } = options;
    const scope = this.current;
    const scopeHandler = scope.get('handler');
    const scopeAction = scope.get('action');
    let to = toOption as string | undefined;
    if (scopeHandler && scopeAction && to === undefined) to = `${scopeHandler}#${scopeAction}`;

    const handler = (handlerOption as string | undefined) ?? scopeHandler;
    const viaValue = 'via' in options ? viaOption : scope.get('via');
    const verbs = (typeof viaValue === 'string' ? viaVerbs.get(viaValue) : undefined) ?? verbsOf(viaValue);
    const formatted = 'format' in options ? formatOption : scope.get('format');
    const anchor = 'anchor' in options ? anchorOption !== false : true;
    const constraints = constraintsOption ?? {};

    const route: RouteArgs = { handler, to, verbs, formatted, anchor, constraints };
    // Paths first, then bare words, as Rails groups strings before symbols.
    for (const path of paths) {
      if (isBareWord(path)) continue;
      if (optionPath !== undefined) {
        throw new ArgumentError('Ambiguous route definition. Both :path and the route path were specified as strings.');
      }
      to = this.toFromPath(path, to, rest.action as string | undefined);
      this.decomposedMatch({ action: path, path }, { ...route, to }, rest);
    }
    for (const action of paths) {
      if (isBareWord(action)) this.decomposedMatch({ action, path: optionPath as string | undefined }, route, rest);
    }
  }

  private toFromPath(path: string, to: string | undefined, action: string | undefined): string | undefined {
    if (to !== undefined || action !== undefined) return to;
    const bare = path.replace(/\(\.:format\)$/, '');
    if (!/^\/?[-\w]+\/[-\w/]+$/.test(bare)) return undefined;
    return bare
      .replace(/^\//, '')
      .replace(/\/([^/]*)$/, '#$1')
      .replace(/-/g, '_');
  }

  private decomposedMatch(target: RouteTarget, route: RouteArgs, options: Record<string, unknown>): void {
    const on = options.on as string | undefined;
    if (on !== undefined) {
      const { on: _on, ...rest } = options;
      const scoped = () => this.decomposedMatch(target, route, rest);
      if (on === 'member') this.member(scoped);
      else if (on === 'collection') this.collection(scoped);
      else this.new(scoped);
      return;
    }
    if (this.current.level === 'resources') this.nestedScope(() => this.decomposedMatch(target, route, options));
    else if (this.current.level === 'resource') this.member(() => this.decomposedMatch(target, route, options));
    else this.addRoute(target, route, options);
  }

  private addRoute(target: RouteTarget, route: RouteArgs, options: Record<string, unknown>): void {
    let path = this.pathForAction(target);
    if (!present(path)) throw new ArgumentError('path is required');

    let action: string | undefined = target.action;
    let defaultAction = (options.action as string | undefined) ?? this.current.get('action');
    if (/^[\w\-/]+$/.test(action)) {
      if (defaultAction === undefined && !action.includes('/')) defaultAction = action.replace(/-/g, '_');
    } else {
      action = undefined;
    }

    let name: string | null;
    if ('as' in options && (options.as === null || options.as === false || options.as === undefined)) name = null;
    else name = this.nameForAction(options.as as string | undefined, action);
    // The route's extra options: everything but `action` and `as` (the caller's object stays as is).
    let extra = options;
    if ('action' in options || 'as' in options) {
      const { action: _action, as: _as, ...rest } = options;
      extra = rest;
    }

    path = withFormat(normalizePath(escapeDeclaredPath(path)), route.formatted);
    const spec = buildRouteSpec(this.current, {
      name,
      path,
      verbs: route.verbs,
      handler: route.handler,
      defaultAction,
      to: route.to,
      formatted: route.formatted,
      anchor: route.anchor,
      constraints: route.constraints,
      options: extra,
    });
    this.sink.add(spec);
  }

  private pathForAction(target: RouteTarget): string {
    const scopePath = this.current.get('path') ?? '';
    if (target.path !== undefined) return `${scopePath}/${target.path}`;
    if (this.isCanonicalAction(target.action)) return scopePath;
    return `${scopePath}/${this.actionPath(target.action)}`;
  }

  private actionPath(name: string): string {
    return this.current.get('pathNames')?.[name] ?? name;
  }

  private isCanonicalAction(action: string | undefined, level: ScopeLevel = this.current.level): boolean {
    return action !== undefined && RESOURCE_METHOD_SCOPES.includes(level) && CANONICAL_ACTIONS.includes(action);
  }

  /** The route's name; `level` is the scope level the route is declared at (the current one unless told). */
  private nameForAction(
    as: string | undefined,
    action: string | undefined,
    level: ScopeLevel = this.current.level,
  ): string | null {
    if (present(as)) return this.joinedName(as, action, level) || null;
    const candidate = this.implicitName(action, level);
    return candidate === null || this.sink.hasNamedRoute(candidate) ? null : candidate;
  }

  /** The name a route gets without `as`, unless it is taken by then: null when there is none or it would be invalid. */
  private implicitName(action: string | undefined, level: ScopeLevel): string | null {
    const candidate = this.joinedName(undefined, action, level);
    return candidate !== null && VALID_NAME_START.test(candidate) ? candidate : null;
  }

  /** The parts of a route's name joined (Rails' `name_for_action` before its checks); null: no name in a resource. */
  private joinedName(as: string | undefined, action: string | undefined, level: ScopeLevel): string | null {
    let prefix: string | undefined;
    if (present(as)) prefix = as;
    else if (!this.isCanonicalAction(action, level)) prefix = action;
    if (prefix !== undefined && prefix !== '/' && prefix !== '') {
      // A plain word (`edit`, `preview`) is its own name part.
      if (!/^\w+$/.test(prefix)) prefix = normalizeName(prefix.replace(/-/g, '_'));
    } else prefix = undefined;

    const namePrefix = this.current.get('as');
    let collectionName: string | undefined;
    let memberName: string | undefined;
    const resource = this.parentResource;
    if (resource) {
      if (!present(as) && !present(action)) return null;
      collectionName = resource.collectionName;
      memberName = resource.memberName;
    }
    return joinPresent(this.current.nameParts(namePrefix, prefix, collectionName, memberName, level));
  }
}

interface RouteTarget {
  /** The action word or the path string as written. */
  action: string;
  /** An explicit path segment (the path string itself, or the `path` option of a bare word). */
  path?: string | undefined;
}

interface RouteArgs {
  handler: string | undefined;
  to: string | undefined;
  verbs: string[];
  formatted: unknown;
  anchor: boolean;
  constraints: unknown;
}
