/**
 * Resources (Rails' \`Mapper::Resources\`): \`resources\`, \`resource\`, their \`member\`, \`collection\`,
 * \`new\` and \`nested\` blocks, \`shallow\`, and \`root\` (which a resource scope changes).
 *
 * The seven resource actions are ordinary DSL calls made inside \`collection\`, \`new\` and
 * \`member\` blocks, exactly as Rails declares them, so every option and scope rule applies to
 * them the same way it applies to a user's own \`get\`.
 */
import { ArgumentError } from '../errors.js';
import { isEmpty } from '../support/is-empty.js';
import { escapeDeclaredPath, normalizePath, withFormat } from '../pattern/normalize.js';
import { buildRouteSpec, isPlainObject, leanHandler } from './mapping.js';
import { ResourceRoutes, resourceLayout } from '../resource-routes.js';
import { CANONICAL_ACTIONS, RESOURCE_OPTIONS, type MatchOptions, type ResourcesOptions } from './options.js';
import { Resource, SingletonResource, type ResourceOptions } from './resource.js';
import { Scope, type ScopeFrame, type ScopeLevel } from './scope.js';
import { NO_OPTIONS, verbsOf, viaVerbs, type Block, type Names } from './mapper-base.js';
import { Concerns } from './concerns.js';

type Via = 'get' | 'post' | 'patch' | 'put' | 'delete';

/** The (interned) verb lists of a resource's own routes, looked up once rather than per route. */
const RESOURCE_VERBS: Readonly<Record<Via, string[]>> = {
  get: verbsOf('get'),
  post: verbsOf('post'),
  patch: verbsOf('patch'),
  put: verbsOf('put'),
  delete: verbsOf('delete'),
};

/** The options of a resource declared without any (only read). */
const NO_RESOURCE_OPTIONS = NO_OPTIONS as ResourcesOptions;

export abstract class Resources extends Concerns {
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
    if (typeof b === 'function') return this.declareResource('resources', names, NO_RESOURCE_OPTIONS, b);
    return this.declareResource('resources', names, b ?? NO_RESOURCE_OPTIONS, c);
  }

  /** `resource('profile')`: a singular resource with no id: new, edit, show, update, destroy, create. */
  resource(names: Names, block?: Block): this;
  resource(names: Names, options: ResourcesOptions, block?: Block): this;
  resource(names: Names, b?: ResourcesOptions | Block, c?: Block): this {
    if (typeof b === 'function') return this.declareResource('resource', names, NO_RESOURCE_OPTIONS, b);
    return this.declareResource('resource', names, b ?? NO_RESOURCE_OPTIONS, c);
  }

  protected declareResource(
    kind: 'resources' | 'resource',
    names: Names,
    input: ResourcesOptions,
    block?: Block,
  ): this {
    const list = Array.isArray(names) ? names.flat() : null;
    if (list !== null && list.length > 1) {
      for (const name of list) this.declareResource(kind, name, input, block);
      return this;
    }
    const name = String(list === null ? names : list[0]);
    // Most resources have no options: nothing to copy, sort out or take apart (never modified).
    if (isEmpty(input)) {
      if (!this.declarePlainResource(kind, name, block))
        this.nestedScope(() => this.declareResource(kind, name, input, block));
      return this;
    }
    const options: Record<string, unknown> = { ...input };
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
  protected declareResourceRoutes(
    kind: 'resources' | 'resource',
    name: string,
    options: Record<string, unknown>,
    block?: Block,
  ): this {
    this.withScopeLevel(kind, () => {
      const resource = this.newResource(kind, name, options);
      // One frame for both: a lookup finds each key as it would in two nested frames.
      this.within({ resource, handler: resource.handler }, undefined, () =>
        this.declareResourceBody(kind, resource, options, block),
      );
    });
    return this;
  }

  /**
   * A resource declared without options (most of a large set), as `nestedScope` and
   * `declareResourceRoutes` would declare it but with their frames as one: the nested path and
   * name prefix, the resource and its handler, at the resource's level (a lookup finds each key
   * as it would through the frames in between, and the resource is made from the same keys).
   * False when the nesting needs those frames one by one (see `nestedFrame`).
   */
  private declarePlainResource(kind: 'resources' | 'resource', name: string, block: Block | undefined): boolean {
    const parent = this.current;
    let frame: ScopeFrame;
    if (parent.isResourceScope()) {
      const nested = this.nestedFrame();
      if (nested === null) return false;
      frame = nested;
    } else frame = {};
    const resource = this.newResource(kind, name, NO_OPTIONS);
    frame.resource = resource;
    frame.handler = resource.handler;
    this.current = new Scope(frame, parent, kind);
    try {
      this.declareResourceBody(kind, resource, NO_OPTIONS, block);
    } finally {
      this.current = parent;
    }
    return true;
  }

  /** The resource of a declaration, with the `only`/`except` of the scope unless it names its own. */
  private newResource(kind: 'resources' | 'resource', name: string, options: Record<string, unknown>): Resource {
    const scoped = this.current.get('actionOptions');
    const resourceOptions = (
      options.only !== undefined || options.except !== undefined || scoped === undefined
        ? options
        : isEmpty(options)
          ? scoped
          : { ...scoped, ...options }
    ) as ResourceOptions;
    const shallow = Boolean(this.current.get('shallow'));
    return kind === 'resources'
      ? new Resource(name, shallow, resourceOptions)
      : new SingletonResource(name, shallow, resourceOptions);
  }

  /** Inside the resource's frame: its block, its concerns, then its own routes. */
  private declareResourceBody(
    kind: 'resources' | 'resource',
    resource: Resource,
    options: Record<string, unknown>,
    block: Block | undefined,
  ): void {
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
  }

  /**
   * The resource's own routes, declared directly: the specs `this.get('index')` and the others
   * would produce inside `collection`, `new` and `member` blocks (above, for shallow resources),
   * computed the same way but without pushing a scope frame or going through `match` per route
   * (a large route set is mostly these). Outside a shallow scope those blocks only add a path and
   * a level, which are given here; options, defaults and constraints come from the same scope.
   */
  protected declareActions(resource: Resource, kind: 'resources' | 'resource'): void {
    const scope = this.current;
    // In a scope that adds nothing but a handler (most resources), the routes are one record
    // whose specs are made when read (resource-routes.ts).
    const handler = leanHandler(scope);
    if (handler !== undefined) {
      this.declareLeanActions(resource, kind, handler);
      return;
    }
    const base = scope.get('path') ?? '';
    const collection = normalizePath(`${base}/${resource.collectionScope}`);
    const member = normalizePath(`${base}/${resource.memberScope}`);
    const actions = resource.actions;
    if (kind === 'resources') {
      if (actions.includes('index')) this.addAction('get', 'index', 'collection', collection);
      if (actions.includes('create')) this.addAction('post', 'create', 'collection', collection);
    }
    if (actions.includes('new'))
      this.addAction('get', 'new', 'new', normalizePath(`${base}/${resource.newScope(this.actionPath('new'))}`));
    if (actions.includes('edit')) this.addAction('get', 'edit', 'member', member);
    if (actions.includes('show')) this.addAction('get', 'show', 'member', member);
    if (actions.includes('update')) {
      this.addAction('patch', 'update', 'member', member);
      this.addAction('put', 'update', 'member', member);
    }
    if (actions.includes('destroy')) this.addAction('delete', 'destroy', 'member', member);
    if (kind === 'resource' && actions.includes('create')) this.addAction('post', 'create', 'collection', collection);
  }

  /**
   * `declareActions` in a scope `leanHandler` accepted: the routes as one record, named from the
   * scope's name prefix and the resource's names when the route set needs them (resource-routes.ts).
   */
  private declareLeanActions(resource: Resource, kind: 'resources' | 'resource', handler: string): void {
    const scope = this.current;
    const layout = resourceLayout(kind, resource.actions, RESOURCE_VERBS);
    const base = scope.get('path') ?? '';
    this.sink.addResourceRoutes(
      new ResourceRoutes(
        layout,
        scope.get('as'),
        handler,
        base,
        resource,
        this.actionPath('new'),
        this.actionPath('edit'),
      ),
    );
  }

  /** What `mapMatch` and `addRoute` do for `get('edit')` and the like in a block at `level` with `scopePath`. */
  protected addAction(via: string, action: string, level: ScopeLevel, scopePath: string): void {
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

  protected onLevel(level: string, block: () => void): void {
    if (level === 'member') this.member(block);
    else if (level === 'collection') this.collection(block);
    else this.new(block);
  }

  /** Routes under a member's id as a parent: `/photos/:photo_id/...`, names prefixed `photo_`. */
  nested(block: Block): this {
    if (!this.current.isResourceScope()) throw new ArgumentError("can't use nested outside resource(s) scope");
    this.nestedScope(() => this.run(block));
    return this;
  }

  protected nestedScope(block: () => void): void {
    if (!this.current.isResourceScope()) throw new ArgumentError("can't use nested outside resource(s) scope");
    this.withScopeLevel('nested', () => {
      const frame = this.nestedFrame();
      if (frame !== null) {
        this.within(frame, undefined, block);
        return;
      }
      const resource = this.parentResource!;
      const body = () =>
        this.pathScope(resource.nestedScope, () => this.applyScope(this.nestedOptions(resource), block));
      if (this.isShallow() && this.shallowNestingDepth() >= 1) this.shallowScope(body);
      else body();
    });
  }

  /**
   * The frames `pathScope` and `applyScope({ as })` of `nestedScope` would push under the current
   * resource, as one: the path and the name prefix, with the scope's constraints, defaults and
   * options as they are (never modified, so shared rather than copied). Null for a shallow
   * resource or a constraint on the parent's param, which need those frames one by one.
   */
  private nestedFrame(): ScopeFrame | null {
    const resource = this.parentResource!;
    const s = this.current;
    if (this.isShallow() || s.get('constraints')?.[resource.param] instanceof RegExp) return null;
    let parts = this.nestedParts;
    if (parts === null || parts.scope !== s) {
      const as = s.get('as');
      parts = this.nestedParts = {
        scope: s,
        path: normalizePath(`${s.get('path') ?? ''}/${resource.nestedScope}`),
        as: as ? `${as}_${resource.memberName}` : resource.memberName,
      };
    }
    return {
      path: parts.path,
      as: parts.as,
      constraints: s.get('constraints') ?? NO_OPTIONS,
      defaults: s.get('defaults') ?? NO_OPTIONS,
      options: s.get('options') ?? NO_OPTIONS,
    };
  }

  /**
   * The nested path and name prefix `nestedFrame` made last, with the scope it made them in:
   * a resource's nested resources share them (scopes and resources are never modified).
   */
  private nestedParts: { scope: Scope; path: string; as: string } | null = null;

  protected nestedOptions(resource: Resource): Record<string, unknown> {
    const options: Record<string, unknown> = { as: resource.memberName };
    const constraint = this.current.get('constraints')?.[resource.param];
    if (constraint instanceof RegExp) options.constraints = { [resource.nestedParam]: constraint };
    return options;
  }

  protected shallowNestingDepth(): number {
    let depth = 0;
    for (const s of this.current.frames()) if (s.frame.resource?.shallow) depth++;
    return depth;
  }

  /** Runs the block with shallow routes on. */
  shallow(block: Block | (() => void)): this {
    this.within({ shallow: true }, undefined, () => (block as Block)(this.self));
    return this;
  }

  /** True inside a plural resource with shallow routes on (Rails' `shallow?`). */
  isShallow(): boolean {
    const resource = this.parentResource;
    return resource !== undefined && !resource.isSingleton && Boolean(this.current.get('shallow'));
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
}
