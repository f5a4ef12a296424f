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
import { expandOptional, type PathNode } from '../pattern/ast.js';
import { decodeParam } from '../pattern/normalize.js';
import type { Route } from '../route.js';

/** Shapes per route are numbered below this; keys are `index * SHAPES + shape`. */
const SHAPES = 64;
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

export interface Leaf {
  route: Route;
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
  /** Smallest leaf key in this subtree. */
  min = Infinity;
}

export interface Found {
  leaf: Leaf;
  values: string[];
}

function routeVerbs(route: Route): number {
  if (route.spec.verbs.length === 0) return ANY_VERB;
  let bits = 0;
  for (const v of route.spec.verbs) bits |= verbBit(v, true);
  return bits;
}

/** Splits a shape into segments (the tokens between slashes). */
function segmentsOf(shape: PathNode[]): PathNode[][] {
  const segments: PathNode[][] = [];
  let current: PathNode[] | null = null;
  for (const node of shape) {
    if (node.type === 'slash') {
      current = [];
      segments.push(current);
    } else {
      if (current === null) {
        current = [];
        segments.push(current);
      }
      current.push(node);
    }
  }
  // "/" alone is the root: no segments.
  if (segments.length === 1 && segments[0]!.length === 0) return [];
  return segments;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

export class Matcher {
  private readonly root = new TrieNode();
  private readonly statics = new Map<string, { leaves: Leaf[]; contested: boolean }>();
  private readonly custom: Leaf[] = [];

  constructor(routes: readonly Route[]) {
    for (const route of routes) {
      const verbs = routeVerbs(route);
      if (!route.simple) {
        this.custom.push({ route, key: route.index * SHAPES, verbs, names: route.regexp.captures });
        continue;
      }
      const shapes = expandOptional(route.ast);
      for (let s = 0; s < shapes.length && s < SHAPES; s++) this.insert(route, verbs, s, shapes[s]!);
    }
    // A static entry is authoritative unless a dynamic route declared earlier may match it too.
    for (const [path, entry] of this.statics) {
      const last = entry.leaves[entry.leaves.length - 1]!.key;
      const dynamic = this.search(path, ANY_VERB, true);
      entry.contested = dynamic !== null && dynamic.leaf.key < last;
    }
  }

  private insert(route: Route, verbs: number, shape: number, nodes: PathNode[]): void {
    const names: string[] = [];
    let node = this.root;
    let staticPath = '';
    let isStatic = true;
    const key = route.index * SHAPES + shape;
    const trail: TrieNode[] = [node];
    for (const segment of segmentsOf(nodes)) {
      const params = segment.filter((n) => n.type === 'param') as Array<{ type: 'param'; name: string }>;
      if (params.length === 0) {
        const text = segment.map((n) => (n.type === 'dot' ? '.' : n.type === 'literal' ? n.text : '')).join('');
        staticPath += '/' + text;
        node.statics ??= new Map();
        let child = node.statics.get(text);
        if (!child) node.statics.set(text, (child = new TrieNode()));
        node = child;
      } else if (segment.length === 1) {
        isStatic = false;
        names.push(params[0]!.name);
        node = node.param ??= new TrieNode();
      } else {
        isStatic = false;
        let source = '^';
        for (const n of segment) {
          if (n.type === 'dot') source += '\\.';
          else if (n.type === 'literal') source += escapeRegExp(n.text);
          else if (n.type === 'param') {
            source += '([^/.?]+)';
            names.push(n.name);
          }
        }
        source += '$';
        node.patterns ??= [];
        let edge = node.patterns.find((e) => e.source === source);
        if (!edge) node.patterns.push((edge = { source, regexp: new RegExp(source), node: new TrieNode() }));
        node = edge.node;
      }
      trail.push(node);
    }
    const leaf: Leaf = { route, key, verbs, names };
    (node.leaves ??= []).push(leaf);
    node.leaves.sort((a, b) => a.key - b.key);
    for (const n of trail) if (key < n.min) n.min = key;
    if (isStatic) {
      const path = staticPath === '' ? '/' : staticPath;
      const entry = this.statics.get(path);
      if (entry) entry.leaves.push(leaf);
      else this.statics.set(path, { leaves: [leaf], contested: false });
    }
  }

  /** The winning route for a normalized path and an upper-case verb, or null. */
  find(path: string, verb: string): Found | null {
    const bit = verbBit(verb, false);
    const entry = this.statics.get(path);
    if (entry !== undefined && !entry.contested) {
      const leaves = entry.leaves;
      for (let i = 0; i < leaves.length; i++) {
        if ((leaves[i]!.verbs & bit) !== 0) return { leaf: leaves[i]!, values: [] };
      }
    }
    return this.search(path, bit, false);
  }

  /** Trie walk plus the custom routes; `dynamicOnly` skips leaves reached by static segments alone. */
  private search(path: string, bit: number, dynamicOnly: boolean): Found | null {
    const state: SearchState = { path, bit, bestKey: Infinity, best: null, values: [], stack: [], dynamicOnly };
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

/** A default-pattern param value: non-empty, no `.`, `/` or `?`. */
function isPlainValue(segment: string): boolean {
  return segment.indexOf('.') === -1 && segment.indexOf('?') === -1;
}

function walk(node: TrieNode, state: SearchState, start: number, dynamic: boolean): void {
  if (node.min >= state.bestKey) return;
  const path = state.path;
  // Past the end: every segment consumed ("/" alone has none).
  if (start > path.length || (start === 1 && path.length === 1)) {
    const leaves = node.leaves;
    if (leaves === null || (state.dynamicOnly && !dynamic)) return;
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
    return;
  }
  let end = path.indexOf('/', start);
  if (end === -1) end = path.length;
  const next = end + 1;
  if (node.statics !== null) {
    const child = node.statics.get(path.slice(start, end));
    if (child !== undefined) walk(child, state, next, dynamic);
  }
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
  const param = node.param;
  if (param !== null && param.min < state.bestKey) {
    // The default pattern [^/.?]+ : no dot or question mark in the segment.
    for (let i = start; i < end; i++) {
      const c = path.charCodeAt(i);
      if (c === 46 || c === 63) return;
    }
    state.stack.push(path.slice(start, end));
    walk(param, state, next, true);
    state.stack.pop();
  }
}

/** Builds the params object of a match: declared defaults, then the decoded path values. */
export function buildParams(leaf: Leaf, values: string[]): Record<string, unknown> {
  const defaults = leaf.route.spec.defaults;
  const params: Record<string, unknown> = {};
  for (const key in defaults) params[key] = defaults[key];
  const names = leaf.names;
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    const value = values[i];
    if (name !== '' && value !== undefined) params[name] = decodeParam(value);
  }
  return params;
}
