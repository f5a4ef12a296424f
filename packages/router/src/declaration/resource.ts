/**
 * What a `resources`/`resource` declaration knows about itself: its names (plural, singular,
 * collection and member names), its handler, path and id param, the actions it generates,
 * and the path scopes its collection, member, new and nested blocks run in.
 */
import { ArgumentError } from '../errors.js';
import { pluralize, singularize } from '../support/inflection.js';
import { refuseUnknownActions } from './refusals.js';

export type ActionName = 'index' | 'create' | 'new' | 'show' | 'update' | 'destroy' | 'edit';

export interface ResourceOptions {
  as?: string | undefined;
  handler?: string | undefined;
  path?: string | undefined;
  param?: string | undefined;
  only?: string | string[] | undefined;
  except?: string | string[] | undefined;
}

const RESOURCES_ACTIONS: readonly string[] = Object.freeze([
  'index',
  'create',
  'new',
  'show',
  'update',
  'destroy',
  'edit',
]);
const SINGLETON_ACTIONS: readonly string[] = Object.freeze(['show', 'create', 'update', 'destroy', 'new', 'edit']);

function list(value: string | string[] | undefined): string[] {
  if (value === undefined || value === null) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

export class Resource {
  // Declared and assigned in the constructor, not defined by class fields (a slower operation
  // per instance): a large set makes one resource per `resources` call.
  declare readonly name: string;
  declare readonly path: string;
  declare readonly param: string;
  declare readonly shallow: boolean;
  declare readonly actions: readonly string[];
  declare protected readonly asName: string | undefined;
  declare protected handlerName: string;
  declare private singularName: string | null;
  declare private collection: string | null;

  constructor(entity: string, shallow: boolean, options: ResourceOptions) {
    if (options.param !== undefined && String(options.param).includes(':')) {
      throw new ArgumentError(":param option can't contain colons");
    }
    this.singularName = null;
    this.collection = null;
    this.name = String(entity);
    this.path = String(options.path ?? this.name);
    this.handlerName = String(options.handler ?? this.name);
    this.asName = options.as === undefined || options.as === null ? undefined : String(options.as);
    this.param = String(options.param ?? 'id');
    this.shallow = shallow;
    const known = this.defaultActions();
    const hasOnly = options.only !== undefined && options.only !== null;
    const hasExcept = options.except !== undefined && options.except !== null;
    // Most resources name neither: they share the frozen list of every action.
    if (!hasOnly && !hasExcept) {
      this.actions = known;
      return;
    }
    const where = `${this.isSingleton ? 'resource' : 'resources'} "${this.name}"`;
    const only = hasOnly ? list(options.only) : undefined;
    if (only !== undefined) refuseUnknownActions('only', only, known, where);
    const available = only ?? known;
    const except = list(options.except);
    refuseUnknownActions('except', except, known, where);
    this.actions = hasExcept ? available.filter((a) => !except.includes(a)) : available;
  }

  protected defaultActions(): readonly string[] {
    return RESOURCES_ACTIONS;
  }

  get handler(): string {
    return this.handlerName;
  }

  /** The name routes are called after: `as` when given, else the declared name. */
  get routeName(): string {
    return this.asName ?? this.name;
  }

  get plural(): string {
    return this.routeName;
  }

  get singular(): string {
    // Every route of the resource asks for it; inflecting is regexp work.
    return (this.singularName ??= singularize(this.routeName));
  }

  get memberName(): string {
    return this.singular;
  }

  /** `sheep` cannot tell index from show by name, so its collection becomes `sheep_index`. */
  get collectionName(): string {
    return (this.collection ??= this.singular === this.plural ? `${this.plural}_index` : this.plural);
  }

  get collectionScope(): string {
    return this.path;
  }

  get memberScope(): string {
    return `${this.path}/:${this.param}`;
  }

  newScope(newPath: string): string {
    return `${this.path}/${newPath}`;
  }

  /** `post_id` for a child of `posts` (`post_slug` with `param: 'slug'`). */
  get nestedParam(): string {
    return `${this.singular}_${this.param}`;
  }

  get nestedScope(): string {
    return `${this.path}/:${this.nestedParam}`;
  }

  get isSingleton(): boolean {
    return false;
  }

  allows(action: ActionName): boolean {
    return this.actions.includes(action);
  }
}

/** `resource 'profile'`: no id, handler named after the plural, names after the singular. */
export class SingletonResource extends Resource {
  declare private readonly pluralName: string;

  constructor(entity: string, shallow: boolean, options: ResourceOptions) {
    super(entity, shallow, options);
    // The plural comes from the declared name even when `as` renames the routes.
    this.pluralName = pluralize(this.name);
    this.handlerName = String(options.handler ?? this.pluralName);
  }

  protected override defaultActions(): readonly string[] {
    return SINGLETON_ACTIONS;
  }

  override get plural(): string {
    return this.pluralName;
  }

  override get singular(): string {
    return this.routeName;
  }

  override get collectionName(): string {
    return this.singular;
  }

  override get memberScope(): string {
    return this.path;
  }

  override get nestedScope(): string {
    return this.path;
  }

  override get isSingleton(): boolean {
    return true;
  }
}
