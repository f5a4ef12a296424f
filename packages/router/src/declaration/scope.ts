/**
 * The mapper's scope: an immutable frame of options linked to its parent and tagged with a
 * scope level. Every block method pushes a frame and pops it in `finally`, so a block that
 * throws still leaves the mapper where it was. A lookup walks up to the nearest frame that
 * holds the key, even when the value held there is `undefined` (shallow scopes rely on that
 * to clear the path and name prefix).
 */
import type { Middleware } from './options.js';
import type { Resource } from './resource.js';
import { joinPresent } from '../support/name-parts.js';

export { present } from '../support/name-parts.js';

export type ScopeLevel =
  | 'resources'
  | 'resource'
  | 'collection'
  | 'member'
  | 'new'
  | 'nested'
  | 'root'
  | 'exclusive'
  | null;

/** What a frame may hold; the keys mirror Rails' `Scope::OPTIONS` plus the resource in scope. */
export interface ScopeFrame {
  path?: string | undefined;
  shallowPath?: string | undefined;
  as?: string | undefined;
  shallowPrefix?: string | undefined;
  module?: string | undefined;
  handler?: string | undefined;
  action?: string | undefined;
  pathNames?: Record<string, string>;
  constraints?: Record<string, unknown>;
  shallow?: boolean;
  defaults?: Record<string, unknown>;
  via?: string | string[] | undefined;
  format?: unknown;
  options?: Record<string, unknown>;
  /** Every enclosing scope's middleware, outermost first. */
  middleware?: Middleware[];
  actionOptions?: { only?: unknown; except?: unknown };
  resource?: Resource;
}

export const RESOURCE_SCOPES: readonly ScopeLevel[] = Object.freeze(['resource', 'resources']);
export const RESOURCE_METHOD_SCOPES: readonly ScopeLevel[] = Object.freeze(['collection', 'member', 'new']);

/** The frame of a scope that only changes the level (never modified: frames are read only). */
const NO_FRAME: ScopeFrame = Object.freeze({});

export class Scope {
  /**
   * Every key any frame up to the root holds, with the nearest frame's value: each route
   * declaration reads a dozen keys, so they are resolved once per frame, not once per read.
   */
  private readonly resolved: ScopeFrame;

  constructor(
    readonly frame: ScopeFrame,
    readonly parent: Scope | null,
    readonly level: ScopeLevel,
  ) {
    const inherited = parent === null ? null : parent.resolved;
    let own = false;
    for (const _ in frame) {
      own = true;
      break;
    }
    this.resolved = !own && inherited !== null ? inherited : { ...inherited, ...frame };
  }

  /** A child frame at the same level. */
  push(frame: ScopeFrame): Scope {
    return new Scope(frame, this, this.level);
  }

  /** A child at another level, holding no options of its own. */
  pushLevel(level: ScopeLevel): Scope {
    return new Scope(NO_FRAME, this, level);
  }

  get<K extends keyof ScopeFrame>(key: K): ScopeFrame[K] {
    return this.resolved[key];
  }

  /** Every frame from this one up to the root. */
  *frames(): IterableIterator<Scope> {
    for (let s: Scope | null = this; s !== null; s = s.parent) yield s;
  }

  isResourceScope(): boolean {
    return RESOURCE_SCOPES.includes(this.level);
  }

  isResourceMethodScope(): boolean {
    return RESOURCE_METHOD_SCOPES.includes(this.level);
  }

  /**
   * A route's name from its parts, ordered by scope level (Rails' `Scope#action_name`), the
   * present ones joined with `_` (Rails' `[...].compact.join('_')`, empty strings dropped too).
   */
  actionName(
    namePrefix: string | undefined,
    prefix: string | undefined,
    collectionName: string | undefined,
    memberName: string | undefined,
    level: ScopeLevel = this.level,
  ): string {
    switch (level) {
      case 'nested':
        return joinPresent(namePrefix, prefix, undefined, undefined);
      case 'collection':
        return joinPresent(prefix, namePrefix, collectionName, undefined);
      case 'new':
        return joinPresent(prefix, 'new', namePrefix, memberName);
      case 'member':
        return joinPresent(prefix, namePrefix, memberName, undefined);
      case 'root':
        return joinPresent(namePrefix, collectionName, prefix, undefined);
      default:
        return joinPresent(namePrefix, memberName, prefix, undefined);
    }
  }
}
