/**
 * A plain resource's own routes as one record: what `resources('posts')` declares in a scope
 * that adds nothing but a handler (most resources of a large set). Its names are decided from
 * its parts (name prefix, collection and member names) when the route set needs them, against
 * the names before them (route-set.ts); each route's spec and path are made the first time
 * something reads that route (the matcher building a verb's tree, `list()`, a named route's
 * URL), the lean spec (route.ts, `leanSpecOf`) declaring them made before.
 *
 * Why a record: declaring the benchmark's 10,000 Rails-shaped routes made eight specs and four
 * formatted paths per resource, nearly all never read before the first requests, and the young
 * generation's collections copied them all (docs/benchmarks.md).
 */
import { escapeDeclaredPath, normalizePath, withFormat } from './pattern/normalize.js';
import { leanSpecOf, type RouteNames, type RouteSpec } from './route.js';
import { isNamePart, joinPresent, joinsTo, startsValidName } from './support/name-parts.js';

/** Which of a resource's paths a route has (an index into a record's paths). */
type PathKind = 0 | 1 | 2 | 3;
const COLLECTION = 0;
const NEW = 1;
const EDIT = 2;
const MEMBER = 3;

/** One route of a resource's layout: its verbs (an interned list), action, path and name's level. */
export interface ResourceRoute {
  readonly verbs: string[];
  readonly action: string;
  readonly path: PathKind;
  /** Every action but `edit` is canonical: it shares its level's name (only the first takes it). */
  readonly canonical: boolean;
  readonly level: 'collection' | 'new' | 'member';
}

/** What a record reads of the resource: its names and the paths of its scopes (declaration/resource.ts). */
export interface ResourcePaths {
  readonly plural: string;
  readonly singular: string;
  readonly collectionName: string;
  readonly memberName: string;
  readonly collectionScope: string;
  readonly memberScope: string;
  newScope(newPath: string): string;
}

type Via = 'get' | 'post' | 'patch' | 'put' | 'delete';

function route(
  verbs: Record<Via, string[]>,
  via: Via,
  action: string,
  path: PathKind,
  level: ResourceRoute['level'],
): ResourceRoute {
  return Object.freeze({ verbs: verbs[via], action, path, canonical: action !== 'edit', level });
}

/**
 * The routes a resource declares, in Rails' order, given its actions: index, create (plural),
 * new, edit, show, update (PATCH, PUT), destroy, create (singular). `verbs` are the interned
 * verb lists by `via`. Lists of the shared (frozen) action lists are kept: most resources share one.
 */
export function resourceLayout(
  kind: 'resources' | 'resource',
  actions: readonly string[],
  verbs: Record<Via, string[]>,
): readonly ResourceRoute[] {
  const frozen = Object.isFrozen(actions);
  const cache = kind === 'resources' ? pluralLayouts : singularLayouts;
  if (frozen) {
    const known = cache.get(actions);
    if (known !== undefined) return known;
  }
  const all: ResourceRoute[] = [];
  if (kind === 'resources') {
    all.push(route(verbs, 'get', 'index', COLLECTION, 'collection'));
    all.push(route(verbs, 'post', 'create', COLLECTION, 'collection'));
  }
  all.push(route(verbs, 'get', 'new', NEW, 'new'));
  all.push(route(verbs, 'get', 'edit', EDIT, 'member'));
  all.push(route(verbs, 'get', 'show', MEMBER, 'member'));
  all.push(route(verbs, 'patch', 'update', MEMBER, 'member'));
  all.push(route(verbs, 'put', 'update', MEMBER, 'member'));
  all.push(route(verbs, 'delete', 'destroy', MEMBER, 'member'));
  if (kind === 'resource') all.push(route(verbs, 'post', 'create', COLLECTION, 'collection'));
  const layout = Object.freeze(all.filter((r) => actions.includes(r.action)));
  if (frozen) cache.set(actions, layout);
  return layout;
}

/** What a route set holds per declaration: a route's spec, or a resource's routes as one record. */
export type RouteEntry = RouteSpec | ResourceRoutes;

const pluralLayouts = new Map<readonly string[], readonly ResourceRoute[]>();
const singularLayouts = new Map<readonly string[], readonly ResourceRoute[]>();

export class ResourceRoutes implements RouteNames {
  // Fields are declared and assigned in the constructor, not defined by class fields (a slower
  // operation per instance): a large set makes one record per resource.
  declare readonly layout: readonly ResourceRoute[];
  /** Each route's name (null: none), in layout order; null until decided (`nameWith`). */
  declare names: (string | null)[] | null;
  /** The scope's name prefix (`as`): names are joined from it and the resource's names. */
  declare readonly namePrefix: string | undefined;
  declare readonly handler: string;
  /** The enclosing scope's path. */
  declare readonly base: string;
  declare readonly resource: ResourcePaths;
  /** The path names of `new` and `edit` when the resource was declared (`resourcesPathNames` may change them later). */
  declare readonly newName: string;
  declare readonly editName: string;
  /** The index of the first route in the route set; set when the set adds the record. */
  declare start: number;
  /** Decides this record's names when one is read before the route set decided them (set by the set). */
  declare namer: ((record: ResourceRoutes) => void) | null;
  /**
   * The first word every route's path starts with, when the matcher can put them aside by it
   * without reading their paths (null: it cannot); the matcher's, made on its first build
   * (matcher/build.ts, `simpleFirstWord`).
   */
  declare simpleWord: string | null | undefined;
  /** Formatted paths by `PathKind`, made on first read. */
  declare private paths: (string | undefined)[] | null;
  declare private specs: (RouteSpec | undefined)[] | null;

  constructor(
    layout: readonly ResourceRoute[],
    namePrefix: string | undefined,
    handler: string,
    base: string,
    resource: ResourcePaths,
    newName: string,
    editName: string,
  ) {
    this.layout = layout;
    this.names = null;
    this.namePrefix = namePrefix;
    this.handler = handler;
    this.base = base;
    this.resource = resource;
    this.newName = newName;
    this.editName = editName;
    this.start = 0;
    this.namer = null;
    this.simpleWord = undefined;
    this.paths = null;
    this.specs = null;
  }

  get count(): number {
    return this.layout.length;
  }

  /**
   * Whether every name this record's routes may take is a valid route name (its parts are
   * words): then they can be decided later, no name can be refused.
   */
  get namesAreWords(): boolean {
    const resource = this.resource;
    return isNamePart(this.namePrefix) && isNamePart(resource.plural) && isNamePart(resource.singular);
  }

  /**
   * Decides the routes' names as the mapper names a resource's actions (Rails' `name_for_action`):
   * each level's first canonical route (index and create share one; show, update and destroy
   * another) and each other action take their name unless `isTaken` says a route before this
   * record has it, or one of this record's own took it; a name that does not start as one is
   * none. Every action but `edit` is canonical.
   */
  nameWith(isTaken: (name: string) => boolean): (string | null)[] {
    const layout = this.layout;
    const names = new Array<string | null>(layout.length);
    let candidateLevel: ResourceRoute['level'] | null = null;
    let candidate: string | null = null;
    let taken = false;
    for (let k = 0; k < layout.length; k++) {
      const r = layout[k]!;
      if (!r.canonical || r.level !== candidateLevel) {
        const joined = this.candidate(r);
        candidate = startsValidName(joined) ? joined : null;
        candidateLevel = r.canonical ? r.level : null;
        taken = candidate === null || isTaken(candidate) || names.includes(candidate, 0);
      }
      names[k] = taken ? null : candidate;
      taken = true;
    }
    return (this.names = names);
  }

  /** The name a route of the layout would take (Scope's `actionName` at its level, its action the prefix unless canonical). */
  private candidate(r: ResourceRoute): string {
    const prefix = r.canonical ? undefined : r.action;
    const resource = this.resource;
    if (r.level === 'collection') return joinPresent(prefix, this.namePrefix, resource.collectionName, undefined);
    if (r.level === 'new') return joinPresent(prefix, 'new', this.namePrefix, resource.memberName);
    return joinPresent(prefix, this.namePrefix, resource.memberName, undefined);
  }

  /**
   * Marks in `taken` each of `names` (ones that start as a name must) that `nameWith` would try
   * for a route of this record: then some route up to this record has it. Compared in place, no
   * name made; each ends with the collection or the member name, which tells most records apart.
   */
  markTaken(names: readonly string[], taken: boolean[]): void {
    const resource = this.resource;
    const collectionName = resource.collectionName;
    const memberName = resource.memberName;
    const filtered = collectionName !== '' && memberName !== '';
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      if (taken[i] || (filtered && !name.endsWith(collectionName) && !name.endsWith(memberName))) continue;
      if (this.mayTake(name, collectionName, memberName)) taken[i] = true;
    }
  }

  private mayTake(name: string, collectionName: string, memberName: string): boolean {
    const layout = this.layout;
    let level: ResourceRoute['level'] | null = null;
    for (let k = 0; k < layout.length; k++) {
      const r = layout[k]!;
      if (r.canonical && r.level === level) continue;
      level = r.canonical ? r.level : null;
      const prefix = r.canonical ? undefined : r.action;
      const taken =
        r.level === 'collection'
          ? joinsTo(name, prefix, this.namePrefix, collectionName, undefined)
          : r.level === 'new'
            ? joinsTo(name, prefix, 'new', this.namePrefix, memberName)
            : joinsTo(name, prefix, this.namePrefix, memberName, undefined);
      if (taken) return true;
    }
    return false;
  }

  /** The name of the `k`th route (null: none), its names decided first if they are not yet. */
  nameAt(k: number): string | null {
    if (this.names === null) this.namer!(this);
    return this.names![k]!;
  }

  /** The spec of the `k`th route of the record. */
  specAt(k: number): RouteSpec {
    const specs = (this.specs ??= []);
    let spec = specs[k];
    if (spec === undefined) {
      const r = this.layout[k]!;
      spec = leanSpecOf(this, k, r.verbs, this.pathAt(k), this.handler, r.action);
      specs[k] = spec;
    }
    return spec;
  }

  /** The formatted path of the `k`th route (`/posts/:id(.:format)`), as the declaration formats it. */
  pathAt(k: number): string {
    const kind = this.layout[k]!.path;
    const paths = (this.paths ??= [undefined, undefined, undefined, undefined]);
    let path = paths[kind];
    if (path === undefined) {
      path = withFormat(normalizePath(escapeDeclaredPath(this.rawPath(kind))), undefined);
      paths[kind] = path;
    }
    return path;
  }

  private rawPath(kind: PathKind): string {
    switch (kind) {
      case COLLECTION:
        return normalizePath(`${this.base}/${this.resource.collectionScope}`);
      case NEW:
        return normalizePath(`${this.base}/${this.resource.newScope(this.newName)}`);
      case EDIT:
        return `${this.rawPath(MEMBER)}/${this.editName}`;
      default:
        return normalizePath(`${this.base}/${this.resource.memberScope}`);
    }
  }
}
