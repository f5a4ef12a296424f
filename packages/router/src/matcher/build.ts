/**
 * Puts routes into the tree of one verb. Each route goes in once per shape of its optional
 * groups (`/posts/:id` and `/posts/:id.:format`), as static text, default-pattern params,
 * constrained whole-segment params (`:db` with `/[^/]+/`), segment regexps (`:a-:b`, where a
 * param is followed by more text) and trailing globs. A constrained param is a dynamic segment
 * like any other, its constraint checked where the walk reaches it (as find-my-way and Hono's
 * trie do), so that static text beside it (`/:db/_all_docs`) is still walked, not scanned route
 * by route. Routes the tree cannot express (a constraint that may cross a `/` or match nothing,
 * see segment-constraint.ts, a constrained glob, other globs, `anchor: false`) are matched by
 * their own regexp, after the tree, in declaration order (as Journey does).
 */
import { expandOptional, type PathNode } from '../pattern/ast.js';
import { inlineFlags } from '../pattern/case-fold.js';
import { normalizeRequestPath } from '../pattern/normalize.js';
import type { ResourceRoutes } from '../resource-routes.js';
import type { Route } from '../route.js';
import { escapeRegExp } from '../support/escape-regexp.js';
import { isEmpty } from '../support/is-empty.js';
import type { CompiledWalk, Recognizer } from './codegen.js';
import { Leaf, type RegexpLeaf } from './params.js';
import { segmentFit } from './segment-constraint.js';
import { constrainedChild, insertText, Node, paramChild, patternChild } from './walk.js';

/** Shapes per route are numbered below this; keys are `index * SHAPES + shape`. */
export const SHAPES = 64;

const SLASH_ONLY: PathNode[] = [{ type: 'slash' }];

export class Tree {
  readonly root = new Node('');
  /** Paths with no params → the first route (of this verb) with that path. */
  readonly statics = new Map<string, StaticEntry>();
  readonly custom: RegexpLeaf[] = [];
  /** Position slots a search needs: two per captured value of the longest shape. */
  slots = 2;
  /**
   * Whether a raw request path may be walked before it is normalized: true unless some route's
   * text holds what normalizing a request changes (`?`, `#`, `//`, a trailing slash).
   */
  rawWalks = true;
  /** The walk compiled for this tree (codegen.ts), once it has walked often enough. */
  compiled: CompiledWalk | null = null;
  /** Walks so far; counted up to the count from which the walk is compiled. */
  walks = 0;
  /** The whole recognition compiled for this tree (codegen.ts), once looked up often enough. */
  recognizer: Recognizer | null = null;
  /** Lookups so far; counted up to the count from which the recognizer is compiled. */
  lookups = 0;
  /** Interned name lists: leaves of the same params share one array. */
  private readonly nameLists = new Map<string, readonly string[]>();

  /**
   * Simple routes (see `addSimple`) whose path starts with a word, put aside by that word until
   * a request path starting with it needs them (`expand`): the first requests to a large set
   * then build the tree of the few routes they can reach, not of thousands. (Routes of another
   * first word cannot match such a path, so the order of insertion between words is free.)
   */
  private deferred: Map<string, number[]> | null = null;

  /** `routeAt(i)`: the route of the `i`th declared route (made on first read). */
  constructor(private readonly routeAt: (index: number) => Route) {}

  add(route: Route): void {
    const spec = route.spec;
    if (spec.anchored && isEmpty(spec.requirements) && (SIMPLE_FORMATTED.test(spec.path) || SIMPLE.test(spec.path))) {
      this.addSimpleOrDefer(route.index, spec.path, route);
      return;
    }
    const key = route.index * SHAPES;
    if (this.rawWalks && UNNORMAL_TEXT.test(spec.path)) this.rawWalks = false;
    const ast = route.ast;
    if (spec.anchored && constraintsFitTree(route)) {
      if (!hasGlob(ast)) {
        const shapes = expandOptional(ast);
        if (shapes.length <= SHAPES) {
          for (let s = 0; s < shapes.length; s++) this.insertShape(route, key + s, fromSlash(shapes[s]!));
          return;
        }
      } else if (this.insertGlob(route, key, ast)) return;
    }
    this.custom.push({ route, key });
  }

  /**
   * A route with a lean spec (anchored, no requirements: a plain resource's, resource-routes.ts)
   * by its index and path: its `Route` is made only when its first word is asked for.
   */
  addLean(index: number, path: string): void {
    if (SIMPLE_FORMATTED.test(path) || SIMPLE.test(path)) this.addSimpleOrDefer(index, path, null);
    else this.add(this.routeAt(index));
  }

  /** A simple route (see `addSimple`): put aside by its path's first word, or inserted when it has none. */
  private addSimpleOrDefer(index: number, path: string, route: Route | null): void {
    const word = firstWord(path);
    if (word === null) this.addSimple(route ?? this.routeAt(index));
    else this.defer(word, index);
  }

  /** Puts a simple route whose path starts with `word` aside until a request path starting with it (`expand`). */
  defer(word: string, index: number): void {
    const deferred = (this.deferred ??= new Map());
    const routes = deferred.get(word);
    if (routes === undefined) deferred.set(word, [index]);
    else routes.push(index);
  }

  /**
   * Most routes (`/posts/:post_id/comments/:id(.:format)`) are slash-separated words and whole
   * segment params, with an optional format at the end: they are inserted straight from the
   * path, as what the parse and `insertShape` of their two shapes would make (the shape with
   * the format first, as `expandOptional` orders them, then the one without). A shape an
   * earlier route has already keeps that route, even one inserted before (see `deferred`).
   */
  private addSimple(route: Route): void {
    const key = route.index * SHAPES;
    const path = route.spec.path;
    const formatted = path.endsWith(FORMAT_GROUP);
    const end = formatted ? path.length - FORMAT_GROUP.length : path.length;
    // Both shapes share the body; its nodes get the smaller key (the format shape's).
    const names: string[] = [];
    const root = this.root;
    if (key < root.min) root.min = key;
    let node = root;
    let from = 0;
    for (let i = path.indexOf(':'); i !== -1 && i < end; i = path.indexOf(':', from)) {
      // ':name', a whole segment: the text before it, then the param.
      node = insertText(node, path.slice(from, i), key);
      let j = path.indexOf('/', i);
      if (j === -1 || j > end) j = end;
      names.push(path.slice(i + 1, j));
      node = paramChild(node, key);
      from = j;
    }
    node = insertText(node, path.slice(from, end), key);
    if (formatted) {
      const format = paramChild(insertText(node, '.', key), key);
      if (format.leaf === null || format.leaf.key > key) {
        if (key < format.min) format.min = key;
        format.leaf = new Leaf(route, key, this.names([...names, 'format']));
      }
    }
    const shape = formatted ? key + 1 : key;
    if (node.leaf === null || node.leaf.key > shape) {
      if (shape < node.min) node.min = shape;
      node.leaf = new Leaf(route, shape, this.names(names));
      if (names.length === 0) {
        const text = path.slice(0, end);
        const entry = this.statics.get(text);
        if (entry === undefined || entry.leaf.key > shape)
          this.addStatic(text, node.leaf, normalizeRequestPath(text) === text);
      }
    }
  }

  /** Inserts the routes put aside for the first word of `path` (a request path), if any. */
  expand(path: string): void {
    const deferred = this.deferred;
    if (deferred === null) return;
    let end = 1;
    while (end < path.length) {
      const c = path.charCodeAt(end);
      if (c === 47 || c === 46) break; // '/' or '.'
      end++;
    }
    const word = path.slice(1, end);
    const routes = deferred.get(word);
    if (routes === undefined) return;
    deferred.delete(word);
    for (let r = 0; r < routes.length; r++) this.addSimple(this.routeAt(routes[r]!));
  }

  /** Inserts every route put aside: before the tree is compiled, which walks all of it. */
  expandAll(): void {
    const deferred = this.deferred;
    if (deferred === null) return;
    this.deferred = null;
    for (const routes of deferred.values())
      for (let r = 0; r < routes.length; r++) this.addSimple(this.routeAt(routes[r]!));
  }

  private addStatic(path: string, leaf: Leaf, normal: boolean): void {
    this.statics.set(path, { leaf, contested: undefined, normal });
  }

  private names(list: string[]): readonly string[] {
    const id = list.join('/');
    let names = this.nameLists.get(id);
    if (names === undefined) {
      this.nameLists.set(id, (names = list));
      if (2 * list.length > this.slots) this.slots = 2 * list.length;
    }
    return names;
  }

  private insertShape(route: Route, key: number, shape: PathNode[]): void {
    const names: string[] = [];
    const node = this.insertNodes(shape, names, key, route.spec.requirements);
    if (node.leaf !== null) return; // an earlier route has this very shape: this one never wins
    if (key < node.min) node.min = key;
    node.leaf = new Leaf(route, key, this.names(names));
    if (names.length === 0) {
      const path = staticText(shape);
      const normal = normalizeRequestPath(path) === path;
      if (!this.statics.has(path)) this.addStatic(path, node.leaf, normal);
    }
  }

  /**
   * Inserts a path shape (starting with a slash) from the root; returns its last node.
   * `requirements` are the route's constraints, each one `constraintsFitTree` let through.
   */
  private insertNodes(
    shape: PathNode[],
    names: string[],
    key: number,
    requirements: Readonly<Record<string, RegExp>>,
  ): Node {
    let node = this.root;
    if (key < node.min) node.min = key;
    let text = '';
    let i = 0;
    while (i < shape.length) {
      // shape[i] is a slash (or, for a glob's segment, its first token); the segment runs to the next slash.
      let j = i + 1;
      while (j < shape.length && shape[j]!.type !== 'slash') j++;
      const only = j === i + 2 ? shape[i + 1]! : null;
      if (only?.type === 'param' && requirements[only.name] !== undefined) {
        node = this.insertText(node, `${text}/`, key);
        text = '';
        names.push(only.name);
        node = constrainedChild(node, inlineFlags(requirements[only.name]!), key);
      } else if (isSplittable(shape, i + 1, j) && !constrainsSegment(shape, i + 1, j, requirements)) {
        text += '/';
        for (let k = i + 1; k < j; k++) {
          const n = shape[k]!;
          if (n.type === 'literal') text += n.text;
          else if (n.type === 'dot') text += '.';
          else if (n.type === 'param') {
            node = this.insertText(node, text, key);
            text = '';
            names.push(n.name);
            node = paramChild(node, key);
          }
        }
      } else {
        node = this.insertText(node, `${text}/`, key);
        text = '';
        const groups: number[] = [];
        const source = segmentSource(shape, i + 1, j, names, groups, requirements);
        node = patternChild(node, source, groups, key);
      }
      i = j;
    }
    if (text.length > 1 && text.charCodeAt(text.length - 1) === 47) this.rawWalks = false;
    return this.insertText(node, text, key);
  }

  private insertText(node: Node, text: string, key: number): Node {
    // Left-out optional groups can join two slashes in a shape's text; the rest of what
    // normalizing changes is looked for once per route path (`add`).
    if (text.length > 1 && text.indexOf('//') !== -1) this.rawWalks = false;
    return insertText(node, text, key);
  }

  /**
   * `.../*glob` or `.../*glob(.:format)` as the last thing of a route without other optional
   * groups; false when the route needs its regexp instead.
   */
  private insertGlob(route: Route, key: number, ast: PathNode[]): boolean {
    let end = ast.length;
    const last = ast[end - 1]!;
    let formatName: string | null = null;
    if (last.type === 'group') {
      const [dot, format] = last.children;
      if (dot?.type !== 'dot' || format?.type !== 'param' || last.children.length !== 2 || !route.spec.formatted)
        return false;
      formatName = format.name;
      end--;
    } else if (route.spec.formatted) return false;
    const glob = ast[end - 1]!;
    if (glob.type !== 'glob' || end < 2) return false;
    const prefix = ast.slice(0, end - 1);
    // The glob's own segment may start with text, not with a param (whose end would be unclear).
    const before = prefix[prefix.length - 1]!;
    if (before.type === 'param' || !startsWithSlash(prefix)) return false;
    for (const n of prefix) if (n.type === 'group' || n.type === 'glob') return false;
    let slash = prefix.length - 1;
    while (prefix[slash]!.type !== 'slash') slash--;
    if (prefix[slash - 1]?.type === 'slash') this.rawWalks = false;
    const names: string[] = [];
    // The glob's segment is plain text up to the glob: insert it without its closing part.
    let node = this.insertNodes(prefix.slice(0, slash), names, key, route.spec.requirements);
    let text = '/';
    for (let k = slash + 1; k < prefix.length; k++) {
      const n = prefix[k]!;
      text += n.type === 'literal' ? n.text : '.';
    }
    node = this.insertText(node, text, key);
    if (key < node.min) node.min = key;
    names.push(glob.name);
    const leaf = new Leaf(route, key, this.names(names));
    const formatLeaf = formatName === null ? null : new Leaf(route, key, this.names([...names, formatName]));
    (node.globs ??= []).push({ key, leaf, withFormat: formatLeaf });
    node.branches = true;
    return true;
  }
}

export interface StaticEntry {
  leaf: Leaf;
  /** Whether an earlier dynamic route also matches this path; found out on first use. */
  contested: boolean | undefined;
  /** Whether the path is already normalized (a request spelling it exactly needs no normalizing). */
  normal: boolean;
}

const FORMAT_GROUP = '(.:format)';

/**
 * `/word/:name/word...`: segments of word chars, `-` and `~`, or one param each; no dots,
 * groups, globs, escapes or anything normalizing would change. (A regexp: this runs once per
 * route on a cold start, when native regexp code beats a char loop not yet compiled.)
 */
const SIMPLE = /^(?:\/(?:[\w~-]+|:\w+))+$/;
const SIMPLE_FORMATTED = /^(?:\/(?:[\w~-]+|:\w+))+\(\.:format\)$/;

/** A path with no leading param: `/word` then words and params; '' too (the root scope's path). */
const SIMPLE_BASE = /^(?:\/[\w~-]+(?:\/(?:[\w~-]+|:\w+))*)?$/;
/** A resource's scope path (`photos`, `photos/:id`): a word, then words and params. */
const SIMPLE_SCOPE = /^[\w~-]+(?:\/(?:[\w~-]+|:\w+))*$/;
/** A path name (`new`, `edit`, `nuevo`). */
const SIMPLE_WORD = /^[\w~-]+$/;

/**
 * The first word of every path of a resource record when each of them is simple (see
 * `addSimple`), read off the parts its paths are made of rather than the paths: a base path
 * and scope paths of words and params, path names that are words. Each path is then
 * `base/scope[/name](.:format)`, which normalizing, escaping and formatting leave as it is
 * but for the format group, and starts with the base's first word (or the scope's). Null when
 * the parts are anything else: the matcher then reads each route's path.
 */
export function simpleFirstWord(record: ResourceRoutes): string | null {
  const { base, resource } = record;
  if (!isSimple(base, SIMPLE_BASE) || !SIMPLE_SCOPE.test(resource.collectionScope)) return null;
  if (!SIMPLE_SCOPE.test(resource.memberScope)) return null;
  if (!isSimple(record.newName, SIMPLE_WORD) || !isSimple(record.editName, SIMPLE_WORD)) return null;
  const path = base === '' ? `/${resource.collectionScope}` : base;
  const end = path.indexOf('/', 1);
  return end === -1 ? path.slice(1) : path.slice(1, end);
}

/** The last answers of `isSimple` by regexp: a parent's nested resources share their base, most resources their path names. */
const lastSimple = new Map<RegExp, { text: string; simple: boolean }>();

/** `pattern.test(text)`, remembered for the last text of each pattern. */
function isSimple(text: string, pattern: RegExp): boolean {
  let last = lastSimple.get(pattern);
  if (last === undefined) lastSimple.set(pattern, (last = { text: '', simple: pattern.test('') }));
  if (last.text !== text) {
    last.text = text;
    last.simple = pattern.test(text);
  }
  return last.simple;
}

/** The first segment of a simple path when it is a word (`/posts/:id` → `posts`), else null. */
function firstWord(path: string): string | null {
  if (path.charCodeAt(1) === 58) return null; // ':', a param
  // A simple path's first segment ends at a slash, at its `(.:format)` or at the end.
  let end = path.indexOf('/', 1);
  if (end === -1) end = path.indexOf('(');
  return end === -1 ? path.slice(1) : path.slice(1, end);
}

/** Text a normalized request path cannot hold as is (cut at `?`/`#`, squeezed, escapes upper-cased). */
const UNNORMAL_TEXT = /[?#]|\/\/|%(?:[a-f][0-9a-f]|[0-9][a-f])/;

/**
 * A shape as the tree takes it: one that is empty (every group left out) means "/", and one
 * starting with something else (`.:format` of `(/a)(.:format)`) has that first node read as
 * the leading slash, as the segment trie before this one always did.
 */
function fromSlash(shape: PathNode[]): PathNode[] {
  if (shape.length === 0) return SLASH_ONLY;
  if (shape[0]!.type === 'slash') return shape;
  return [SLASH_ONLY[0]!, ...shape.slice(1)];
}

function startsWithSlash(shape: PathNode[]): boolean {
  return shape.length === 0 || shape[0]!.type === 'slash';
}

function hasGlob(nodes: PathNode[]): boolean {
  return nodes.some((n) => n.type === 'glob' || (n.type === 'group' && hasGlob(n.children)));
}

/**
 * Whether the tree can hold every shape of a route as its constraints ask: each constraint on
 * a path param is one the walk can check in place (segment-constraint.ts), none is on a glob,
 * and the route's shapes cannot overlap (`shapesStayApart`).
 */
function constraintsFitTree(route: Route): boolean {
  const requirements = route.spec.requirements;
  for (const _ in requirements) {
    const keys = route.segmentKeys;
    const dotted = new Set<string>();
    for (const key in requirements) {
      if (!keys.includes(key)) continue;
      const fit = segmentFit(inlineFlags(requirements[key]!));
      if (!fit.fits || globNamed(route.ast, key)) return false;
      if (fit.dot) dotted.add(key);
    }
    return shapesStayApart(route.ast, dotted);
  }
  return true;
}

function globNamed(nodes: PathNode[], name: string): boolean {
  return nodes.some(
    (n) => (n.type === 'glob' && n.name === name) || (n.type === 'group' && globNamed(n.children, name)),
  );
}

/**
 * Whether no path matches two shapes of a route with constrained params (then the first shape
 * that matches, the tree's choice, is the regexp's too). The tree takes the shape with a group
 * before the one without, where the regexp first lets a greedy constraint take what it can: on
 * `/files/:id(.:format)` with `id: /[^\/]+/`, `/files/a.b` is `id: 'a.b'`, not `a` and format `b`.
 * So every group must start with a `/` or a `.`, and no segment holding a group may hold a
 * param whose constraint takes a `.` (`dotted`); the routes left keep their regexp.
 */
function shapesStayApart(nodes: PathNode[], dotted: ReadonlySet<string>): boolean {
  let group = false;
  let dot = false;
  for (const n of nodes) {
    if (n.type === 'slash') {
      if (group && dot) return false;
      group = dot = false;
    } else if (n.type === 'group') {
      const first = n.children[0];
      if ((first?.type !== 'slash' && first?.type !== 'dot') || !shapesStayApart(n.children, dotted)) return false;
      group = true;
      dot ||= hasParamOf(n.children, dotted);
    } else if (n.type === 'param' && dotted.has(n.name)) dot = true;
  }
  return !(group && dot);
}

function hasParamOf(nodes: PathNode[], names: ReadonlySet<string>): boolean {
  return nodes.some(
    (n) => (n.type === 'param' && names.has(n.name)) || (n.type === 'group' && hasParamOf(n.children, names)),
  );
}

/** Whether a segment holds a constrained param. */
function constrainsSegment(
  shape: PathNode[],
  from: number,
  to: number,
  requirements: Readonly<Record<string, RegExp>>,
): boolean {
  for (let k = from; k < to; k++) {
    const n = shape[k]!;
    if (n.type === 'param' && requirements[n.name] !== undefined) return true;
  }
  return false;
}

/** A segment is text and params when every param ends at a slash, a dot or the segment's end. */
function isSplittable(shape: PathNode[], from: number, to: number): boolean {
  for (let k = from; k < to; k++) {
    const n = shape[k]!;
    if (n.type === 'glob' || n.type === 'group') return false;
    if (n.type === 'param' && k + 1 < to && shape[k + 1]!.type !== 'dot') return false;
  }
  return true;
}

/**
 * The regexp source of a whole segment, run sticky from the segment's start and held to its
 * end; pushes its param names and each one's group number (a constraint may hold groups of its own).
 */
function segmentSource(
  shape: PathNode[],
  from: number,
  to: number,
  names: string[],
  groups: number[],
  requirements: Readonly<Record<string, RegExp>>,
): string {
  let source = '';
  let group = 1;
  for (let k = from; k < to; k++) {
    const n = shape[k]!;
    if (n.type === 'literal') source += escapeRegExp(n.text);
    else if (n.type === 'dot') source += '\\.';
    else if (n.type === 'param') {
      const requirement = requirements[n.name];
      const pattern = requirement === undefined ? '[^/.?]+' : inlineFlags(requirement);
      source += `(${pattern})`;
      names.push(n.name);
      groups.push(group);
      group += 1 + innerGroups(pattern);
    }
  }
  return `${source}(?=\\/|$)`;
}

/** The capturing groups a regexp source holds. */
function innerGroups(source: string): number {
  return new RegExp(`${source}|`).exec('')!.length - 1;
}

function staticText(shape: PathNode[]): string {
  let text = '';
  for (const n of shape) text += n.type === 'slash' ? '/' : n.type === 'dot' ? '.' : n.type === 'literal' ? n.text : '';
  return text;
}
