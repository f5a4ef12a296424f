/**
 * One normalized route: the record the declaration produces and everything else reads.
 * The matcher, the generator, the table and the typed helpers are all derived from it.
 */
import { renderPath, type PathNode, type PathSpelling } from './pattern/ast.js';
import { PathPattern } from './pattern/pattern.js';
import { inlineFlags } from './pattern/case-fold.js';
import { escapeRegExp } from './support/escape-regexp.js';
import type { Middleware, RouteInfo } from './types.js';

export interface RouteSpec {
  name: string | null;
  /** Upper-case verbs; empty means any verb. */
  verbs: string[];
  /** Normalized path with its format segment: `/posts/:id(.:format)`. */
  path: string;
  handler: string;
  action: string;
  /** Segment requirements (path params only), format included. */
  requirements: Record<string, RegExp>;
  /** Declared defaults other than handler and action. */
  defaults: Record<string, unknown>;
  /** False for a prefix match (`anchor: false`). */
  anchored: boolean;
  /** False when `format: false` (globs then match greedily, as in Rails). */
  formatted: boolean;
  /** The enclosing scopes' middleware then the route's own, outermost first (run by the adapters). */
  middleware: Middleware[];
}

/** Shared by every spec that has none (only read). */
export const NO_DEFAULTS: Readonly<Record<string, unknown>> = Object.freeze({});
export const NO_REQUIREMENTS: Readonly<Record<string, RegExp>> = Object.freeze({});
export const NO_MIDDLEWARE: Middleware[] = Object.freeze([]) as unknown as Middleware[];

/** Where a lean spec's name is read (a resource record, which decides its names when one is first read). */
export interface RouteNames {
  nameAt(k: number): string | null;
}

/**
 * The spec of a route with no options of its own in a scope that adds nothing but a handler
 * (a plain resource's own routes, see resource-routes.ts): nothing but the path, verbs (an
 * interned list), handler, action and where its name is (the `k`th of `names`: read when asked
 * for, so that a route the first lookup makes does not decide the names of every resource). The
 * fields every such spec holds alike are on the prototype: a spec of six fields is made per route
 * instead of one of ten.
 */
export function leanSpecOf(
  names: RouteNames,
  k: number,
  verbs: string[],
  path: string,
  handler: string,
  action: string,
): RouteSpec {
  return new LeanRouteSpec(names, k, verbs, path, handler, action);
}

class LeanRouteSpec implements RouteSpec {
  // Assigned in the constructor: a class field would be defined per instance, a slower operation.
  declare private readonly names: RouteNames;
  declare private readonly k: number;
  declare readonly verbs: string[];
  declare readonly path: string;
  declare readonly handler: string;
  declare readonly action: string;
  declare readonly requirements: Record<string, RegExp>;
  declare readonly defaults: Record<string, unknown>;
  declare readonly anchored: boolean;
  declare readonly formatted: boolean;
  declare readonly middleware: Middleware[];

  constructor(names: RouteNames, k: number, verbs: string[], path: string, handler: string, action: string) {
    this.names = names;
    this.k = k;
    this.verbs = verbs;
    this.path = path;
    this.handler = handler;
    this.action = action;
  }

  get name(): string | null {
    return this.names.nameAt(this.k);
  }
}

Object.assign(LeanRouteSpec.prototype, {
  requirements: NO_REQUIREMENTS,
  defaults: NO_DEFAULTS,
  anchored: true,
  formatted: true,
  middleware: NO_MIDDLEWARE,
});

const DEFAULT_SEGMENT = '[^/.?]+';

function countGroups(source: string): number {
  return new RegExp(`${source}|`).exec('')!.length - 1;
}

const EMPTY: Readonly<Record<string, string>> = Object.freeze({});

export class Route {
  // Fields are assigned in the constructor, not declared with initializers: a class field is
  // defined (a slower operation than a store) each time an instance is made, 10,000 times here.
  declare readonly index: number;
  declare readonly spec: RouteSpec;
  // Derived lazily: a 10,000-route set should cost little until a route is used or listed.
  declare private parsed: PathPattern | null;
  declare private summary: RouteInfo | null;
  declare private compiled: { regexp: RegExp; captures: string[] } | null;

  constructor(index: number, spec: RouteSpec) {
    this.index = index;
    this.spec = spec;
    this.parsed = null;
    this.summary = null;
    this.compiled = null;
  }

  /** The route's path as one parsed pattern (made on first use: most routes of a large set are never read). */
  get pattern(): PathPattern {
    return (this.parsed ??= new PathPattern(this.spec.path));
  }

  get ast(): PathNode[] {
    return this.pattern.ast;
  }

  /** Every param and glob name in path order (Rails' `segment_keys`). */
  get segmentKeys(): string[] {
    return this.pattern.segmentKeys;
  }

  /** Params outside optional groups, in path order (Rails' `required_parts`). */
  get requiredKeys(): string[] {
    return this.pattern.requiredKeys;
  }

  /** The public description of the route (one frozen object per route, made on first use). */
  get info(): RouteInfo {
    if (this.summary !== null) return this.summary;
    const spec = this.spec;
    let constraints = EMPTY;
    for (const key in spec.requirements) {
      if (constraints === EMPTY) constraints = {};
      (constraints as Record<string, string>)[key] = spec.requirements[key]!.source;
    }
    return (this.summary = Object.freeze({
      name: spec.name,
      verb: spec.verbs.join('|'),
      path: spec.path,
      handler: spec.handler,
      action: spec.action,
      constraints: constraints === EMPTY ? EMPTY : Object.freeze(constraints),
      defaults: Object.isFrozen(spec.defaults) ? spec.defaults : Object.freeze({ ...spec.defaults }),
      ...(spec.anchored ? undefined : { anchored: false as const }),
      ...(spec.middleware.length > 0 ? { middleware: spec.middleware } : undefined),
    }));
  }

  get name(): string | null {
    return this.spec.name;
  }

  /** Whether the route answers this upper-case verb (HEAD is answered by GET routes elsewhere). */
  allowsVerb(verb: string): boolean {
    return this.spec.verbs.length === 0 || this.spec.verbs.includes(verb);
  }

  /** The whole-path regexp Journey would build, with the param name of each capture. */
  get regexp(): { regexp: RegExp; captures: string[] } {
    if (this.compiled === null) this.compiled = this.compile();
    return this.compiled;
  }

  private compile(): { regexp: RegExp; captures: string[] } {
    const captures: string[] = [];
    const requirements = this.spec.requirements;
    const formatted = this.spec.formatted;
    const spelling: PathSpelling = {
      dot: '\\.',
      literal: escapeRegExp,
      param(node) {
        const req = requirements[node.name];
        const source = req
          ? `(?:${inlineFlags(req)})`
          : node.type === 'param'
            ? DEFAULT_SEGMENT
            : formatted
              ? '.+?'
              : '.+';
        captures.push(node.name);
        // Groups inside a constraint shift the capture numbers after it.
        const inner = req ? countGroups(inlineFlags(req)) : 0;
        for (let i = 0; i < inner; i++) captures.push('');
        return `(${source})`;
      },
      group: (children) => `(?:${renderPath(children, spelling)})?`,
    };
    const body = renderPath(this.ast, spelling);
    let source: string;
    if (this.spec.anchored) source = `^${body}$`;
    else source = body === '/' ? '^/' : `^${body}(?:\\b|$|/)`;
    return { regexp: new RegExp(source), captures };
  }
}
