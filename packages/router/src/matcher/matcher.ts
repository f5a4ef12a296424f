/**
 * Recognition with Rails' precedence: of all routes whose path and verb match, the one
 * declared first wins (not the most specific, as in find-my-way or rou3).
 *
 * Layout, fastest first:
 *  1. a static map for paths with no params (`/posts`), authoritative unless an earlier
 *     dynamic route could also match that path (checked once, at compile time);
 *  2. a segment trie for routes whose params use the default segment pattern. Each route
 *     is inserted once per shape of its optional groups (`/posts/:id` and
 *     `/posts/:id.:format`). A node has static children, at most one plain-param child
 *     (shared by `:id` and `:post_id`: param names live on the leaves, not the nodes) and
 *     a few segment-pattern children (`:id.:format`). Leaves carry a sort key
 *     (declaration index, then shape order), and every node knows the smallest key below
 *     it, so the walk skips subtrees that cannot beat the best match found so far;
 *  3. the routes the trie cannot express (custom constraints, globs, `anchor: false`),
 *     tried in declaration order with their own regexps, as Journey does.
 */
import { expandOptional, parsePath, type PathNode } from '../pattern/ast.js';
import { decodeParam } from '../pattern/normalize.js';
import type { Route } from '../route.js';

/** Shapes per route are numbered below this; keys are `index * SHAPES + shape`. */
const SHAPES = 64;
const NO_VALUES: string[] = [];
const ANY_VERB = 0x7fffffff;

const VERB_BITS: Record<string, number> = Object.assign(Object.create(null), {
  GET: 1,
  POST: 2,
  PUT: 4,
  PATCH: 8,
  DELETE: 16,
  HEAD: 32,
  OPTIONS: 64,
});
let nextVerbBit = 128;

/** The bit of a verb; verbs no route names share one bit that only any-verb routes include. */
function verbBit(verb: string, create: boolean): number {
  const bit = VERB_BITS[verb];
  if (bit !== undefined) return bit;
  if (!create || nextVerbBit >= 1 << 29) return 1 << 30;
  VERB_BITS[verb] = nextVerbBit;
  nextVerbBit *= 2;
  return VERB_BITS[verb]!;
}

/** The bit of a request method, any case; `GET` and `HEAD` bits are exported for the HEAD fallback. */
export function verbBitOf(method: string): number {
  return VERB_BITS[method] ?? verbBit(method.toUpperCase(), false);
}
export const GET_BIT = 1;
export const HEAD_BIT = 32;

export interface Leaf {
  route: Route;
  /** The route's declared defaults, or null when it has none (most routes). */
  defaults: Record<string, unknown> | null;
  key: number;
  verbs: number;
  /** Param name of each captured value, in capture order. */
  names: string[];
}

interface PatternEdge {
  source: string;
  regexp: RegExp;
  node: TrieNode;
}

class TrieNode {
  statics: Map<string, TrieNode> | null = null;
  param: TrieNode | null = null;
  patterns: PatternEdge[] | null = null;
  leaves: Leaf[] | null = null;
  /** Leaves of routes whose last segment continues with `.:format` after this node's segment. */
  formatLeaves: Leaf[] | null = null;
  /** Smallest leaf key in this subtree. */
  min = Infinity;
}

export interface Found {
  leaf: Leaf;
  values: string[];
}

function defaultsOf(route: Route): Record<string, unknown> | null {
  const defaults = route.spec.defaults;
  for (const _ in defaults) return defaults;
  return null;
}

function routeVerbs(route: Route): number {
  if (route.spec.verbs.length === 0) return ANY_VERB;
  let bits = 0;
  for (const v of route.spec.verbs) bits |= verbBit(v, true);
  return bits;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

export class Matcher {
  private readonly root = new TrieNode();
  private readonly statics = new Map<string, { leaves: Leaf[]; contested: boolean | undefined }>();
  private readonly custom: Leaf[] = [];
  private readonly state: SearchState = { path: '', bit: 0, bestKey: Infinity, best: null, values: [], stack: [], dynamicOnly: false };

  constructor(routes: readonly Route[]) {
    for (const route of routes) {
      const verbs = routeVerbs(route);
      const ast = parsePath(route.spec.path);
      if (!route.isSimple(ast)) {
        this.custom.push({ route, defaults: defaultsOf(route), key: route.index * SHAPES, verbs, names: route.regexp.captures });
        continue;
      }
      const shapes = expandOptional(ast);
      for (let s = 0; s < shapes.length && s < SHAPES; s++) this.insert(route, verbs, s, shapes[s]!);
    }
  }

  private insert(route: Route, verbs: number, shape: number, nodes: PathNode[]): void {
    const names: string[] = [];
    const key = route.index * SHAPES + shape;
    let node = this.root;
    if (key < node.min) node.min = key;
    let staticPath = '';
    let isStatic = true;
    // A last segment `x.:format` (x a word or a param) ends on x's node, in its formatLeaves:
    // the walk splits the format off the request's last segment instead of running a regexp.
    let end = nodes.length;
    let formatName: string | null = null;
    const last = nodes[end - 1];
    const beforeDot = nodes[end - 3];
    if (
      end >= 4 && last!.type === 'param' && nodes[end - 2]!.type === 'dot' && nodes[end - 4]!.type === 'slash' &&
      (beforeDot!.type === 'literal' || beforeDot!.type === 'param')
    ) {
      formatName = last!.name;
      end -= 2;
    }
    let i = 0;
    while (i < end) {
      // nodes[i] is a slash; the segment runs to the next slash.
      let j = i + 1;
      while (j < end && nodes[j]!.type !== 'slash') j++;
      const first = nodes[i + 1];
      if (j === i + 2 && first!.type === 'param') {
        isStatic = false;
        names.push(first!.name);
        node = node.param ??= new TrieNode();
      } else {
        let text = '';
        let plain = true;
        for (let k = i + 1; k < j; k++) {
          const n = nodes[k]!;
          if (n.type === 'literal') text += n.text;
          else if (n.type === 'dot') text += '.';
          else plain = false;
        }
        if (plain) {
          if (j === i + 1 && j === end && i === 0) {
            // "/" alone: the root node itself.
          } else {
            staticPath += '/' + text;
            node.statics ??= new Map();
            let child = node.statics.get(text);
            if (child === undefined) node.statics.set(text, (child = new TrieNode()));
            node = child;
          }
        } else {
          isStatic = false;
          let source = '^';
          for (let k = i + 1; k < j; k++) {
            const n = nodes[k]!;
            if (n.type === 'literal') source += escapeRegExp(n.text);
            else if (n.type === 'dot') source += '\\.';
            else if (n.type === 'param') {
              source += '([^/.?]+)';
              names.push(n.name);
            }
          }
          source += '$';
          node.patterns ??= [];
          let edge = node.patterns.find((e) => e.source === source);
          if (edge === undefined) node.patterns.push((edge = { source, regexp: new RegExp(source), node: new TrieNode() }));
          node = edge.node;
        }
      }
      if (key < node.min) node.min = key;
      i = j;
    }
    // Routes arrive in declaration order, so appending keeps every leaf list sorted by key.
    if (formatName !== null) {
      names.push(formatName);
      (node.formatLeaves ??= []).push({ route, defaults: defaultsOf(route), key, verbs, names });
      return;
    }
    const leaf: Leaf = { route, defaults: defaultsOf(route), key, verbs, names };
    (node.leaves ??= []).push(leaf);
    if (isStatic) {
      const path = staticPath === '' ? '/' : staticPath;
      const entry = this.statics.get(path);
      if (entry) entry.leaves.push(leaf);
      else this.statics.set(path, { leaves: [leaf], contested: undefined });
    }
  }

    /** The winning route for a normalized path and a verb bit (see `verbBitOf`), or null. */
  find(path: string, bit: number): Found | null {
    const entry = this.statics.get(path);
    if (entry !== undefined && !(entry.contested ?? this.isContested(path, entry.leaves))) {
      const leaves = entry.leaves;
      for (let i = 0; i < leaves.length; i++) {
        if ((leaves[i]!.verbs & bit) !== 0) return { leaf: leaves[i]!, values: [] };
      }
    }
    return this.search(path, bit, false);
  }

  /**
   * A static entry answers alone unless a dynamic route declared before its last leaf also
   * matches the path; decided on the entry's first use and remembered.
   */
  private isContested(path: string, leaves: Leaf[]): boolean {
    const entry = this.statics.get(path)!;
    const dynamic = this.search(path, ANY_VERB, true);
    return (entry.contested = dynamic !== null && dynamic.leaf.key < leaves[leaves.length - 1]!.key);
  }

  /** Trie walk plus the custom routes; `dynamicOnly` skips leaves reached by static segments alone. */
  private search(path: string, bit: number, dynamicOnly: boolean): Found | null {
    // One state object serves every search: a search never runs inside another.
    const state = this.state;
    state.path = path;
    state.bit = bit;
    state.bestKey = Infinity;
    state.best = null;
    state.values = NO_VALUES;
    state.stack.length = 0;
    state.dynamicOnly = dynamicOnly;
    walk(this.root, state, 1, false);
    const custom = this.custom;
    for (let i = 0; i < custom.length; i++) {
      const leaf = custom[i]!;
      if (leaf.key >= state.bestKey) break;
      if ((leaf.verbs & bit) === 0) continue;
      const m = leaf.route.regexp.regexp.exec(path);
      if (m === null) continue;
      const values: string[] = [];
      for (let g = 1; g < m.length; g++) values.push(m[g] as string);
      state.best = leaf;
      state.bestKey = leaf.key;
      state.values = values;
      break;
    }
    return state.best === null ? null : { leaf: state.best, values: state.values };
  }

  /** Every route whose path matches, whatever its verb (for 405 answers). */
  matchingRoutes(path: string): Route[] {
    const found: Route[] = [];
    const seen = new Set<Route>();
    const collect = (node: TrieNode, start: number) => {
      if (start > path.length || (start === path.length && path.length === 1)) {
        for (const leaf of node.leaves ?? []) if (!seen.has(leaf.route)) seen.add(leaf.route), found.push(leaf.route);
        return;
      }
      let end = path.indexOf('/', start);
      if (end === -1) end = path.length;
      const segment = path.slice(start, end);
      const next = end + 1;
      const s = node.statics?.get(segment);
      if (s) collect(s, next);
      if (segment !== '') {
        for (const edge of node.patterns ?? []) if (edge.regexp.test(segment)) collect(edge.node, next);
        if (node.param && isPlainValue(segment)) collect(node.param, next);
      }
      const dot = segment.lastIndexOf('.');
      if (end === path.length && dot > 0 && dot < segment.length - 1) {
        const base = segment.slice(0, dot);
        const children = [node.statics?.get(base), isPlainValue(base) ? node.param : null];
        for (const child of children) {
          for (const leaf of child?.formatLeaves ?? []) if (!seen.has(leaf.route)) seen.add(leaf.route), found.push(leaf.route);
        }
      }
    };
    collect(this.root, 1);
    for (const leaf of this.custom) if (leaf.route.regexp.regexp.test(path) && !seen.has(leaf.route)) seen.add(leaf.route), found.push(leaf.route);
    return found.sort((a, b) => a.index - b.index);
  }
}

interface SearchState {
  path: string;
  bit: number;
  bestKey: number;
  best: Leaf | null;
  values: string[];
  stack: string[];
  dynamicOnly: boolean;
}

/** The static child named by `path[start, end)`. */
function staticChild(node: TrieNode, path: string, start: number, end: number): TrieNode | undefined {
  return node.statics === null ? undefined : node.statics.get(path.slice(start, end));
}

/** A default-pattern param value: non-empty, no `.` (a `?` never reaches the matcher). */
function isPlainValue(segment: string): boolean {
  return segment !== '' && segment.indexOf('.') === -1;
}

/** Takes the first leaf (lowest key) that answers the verb, if it beats the best so far. */
function take(leaves: Leaf[], state: SearchState): void {
  for (let i = 0; i < leaves.length; i++) {
    const leaf = leaves[i]!;
    if (leaf.key >= state.bestKey) return;
    if ((leaf.verbs & state.bit) !== 0) {
      state.best = leaf;
      state.bestKey = leaf.key;
      state.values = state.stack.slice();
      return;
    }
  }
}

function walk(node: TrieNode, state: SearchState, start: number, dynamic: boolean): void {
  if (node.min >= state.bestKey) return;
  const path = state.path;
  // Past the end: every segment consumed ("/" alone has none).
  if (start > path.length || (start === 1 && path.length === 1)) {
    if (node.leaves !== null && (dynamic || !state.dynamicOnly)) take(node.leaves, state);
    return;
  }
  let end = path.indexOf('/', start);
  if (end === -1) end = path.length;
  const next = end + 1;
  const child = staticChild(node, path, start, end);
  if (child !== undefined) walk(child, state, next, dynamic);
  if (end === start) return; // an empty segment matches no param
  const patterns = node.patterns;
  if (patterns !== null) {
    const segment = path.slice(start, end);
    for (let i = 0; i < patterns.length; i++) {
      const edge = patterns[i]!;
      if (edge.node.min >= state.bestKey) continue;
      const m = edge.regexp.exec(segment);
      if (m === null) continue;
      const depth = state.stack.length;
      for (let g = 1; g < m.length; g++) state.stack.push(m[g]!);
      walk(edge.node, state, next, true);
      state.stack.length = depth;
    }
  }
  // Where the dots are decides both the plain param (none allowed) and the format split (last one).
  let firstDot = -1;
  let lastDot = -1;
  for (let i = start; i < end; i++) {
    if (path.charCodeAt(i) === 46) {
      if (firstDot === -1) firstDot = i;
      lastDot = i;
    }
  }
  const param = node.param;
  if (param !== null && firstDot === -1 && param.min < state.bestKey) {
    state.stack.push(path.slice(start, end));
    walk(param, state, next, true);
    state.stack.pop();
  }
  // The last segment `base.ext` may be a route's `x(.:format)`: base matches x, ext is the format.
  if (end === path.length && lastDot > start && lastDot < end - 1) {
    const stack = state.stack;
    const ext = path.slice(lastDot + 1, end);
    const base = staticChild(node, path, start, lastDot);
    if (base !== undefined && base.formatLeaves !== null) {
      stack.push(ext);
      take(base.formatLeaves, state);
      stack.pop();
    }
    if (param !== null && param.formatLeaves !== null && firstDot === lastDot) {
      stack.push(path.slice(start, lastDot), ext);
      take(param.formatLeaves, state);
      stack.length -= 2;
    }
  }
}

/** Builds the params object of a match: declared defaults, then the decoded path values. */
export function buildParams(leaf: Leaf, values: string[]): Record<string, unknown> {
  const defaults = leaf.defaults;
  const params: Record<string, unknown> = {};
  if (defaults !== null) for (const key in defaults) params[key] = defaults[key];
  const names = leaf.names;
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    const value = values[i];
    if (name !== '' && value !== undefined) params[name] = decodeParam(value);
  }
  return params;
}
