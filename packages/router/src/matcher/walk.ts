/**
 * A radix tree over the characters of a path, for routes whose params use the default segment
 * pattern `[^/.?]+`. Such a param always stops at the next `/`, `.` or the end, so a route like
 * `/posts/:id(.:format)` is plain text and params: "/posts/", param, ".", param. The walk
 * compares static text by char codes (no slicing, no hashing) and records where each param
 * starts and ends; strings are cut only for the winning route.
 *
 * A node holds at most one leaf: the tree of one verb keeps, per path shape, only the first
 * declared route (a later one can never win). Every node knows the smallest leaf key below
 * it, so the walk skips subtrees that cannot beat the best match found so far (Rails'
 * precedence: the first declared matching route wins, not the most specific).
 */
import type { Leaf, RegexpLeaf } from './params.js';

/**
 * A segment the tree cannot split (`:a-:b`, or a constrained param beside other text): matched
 * by its own regexp, sticky from the segment's start over the whole path up to the segment's end.
 */
export interface PatternEdge {
  source: string;
  /** Compiled on first use, with indices (the walk records positions, not strings). */
  regexp: RegExp | null;
  /** The group number of each param, in order (a constraint's own groups are not params). */
  groups: readonly number[];
  node: Node;
}

/**
 * A whole segment that is one constrained param (`:db` with `/[^/]+/`): a non-empty run up to
 * the next `/`, which the constraint must match whole (segment-constraint.ts says which
 * constraints can be matched so). A dynamic segment like a default param, beside the static
 * text of its node, so a request path is walked to its route instead of trying the routes'
 * regexps one by one.
 */
export interface ConstrainedEdge {
  /** The constraint's source (case folded). */
  source: string;
  /** The constraint, sticky and held to the segment's end; null when any segment will do (`[^/]+`). */
  regexp: RegExp | null;
  node: Node;
}

/** A trailing glob (`*path`, or `*path(.:format)` when `withFormat` is set). */
export interface GlobEdge {
  key: number;
  leaf: Leaf;
  /** The same route when the format is split off; null when the glob takes the rest as is. */
  withFormat: Leaf | null;
}

/** Kids from which a node gets a direct lookup table. */
const WIDE = 5;

/** Above every leaf key (a small integer, so that keys compare as such). */
export const NONE = 0x3fffffff;

export class Node {
  /** Char code of `prefix[0]`, what the parent dispatches on. */
  first: number;
  kids: Node[] | null = null;
  /** `first` of each kid, in a small-integer array the lookup scans without touching the kids. */
  codes: number[] | null = null;
  /** A default-pattern param starting here. */
  param: Node | null = null;
  patterns: PatternEdge[] | null = null;
  /** Constrained whole-segment params starting here, in the order routes put them here. */
  constrained: ConstrainedEdge[] | null = null;
  globs: GlobEdge[] | null = null;
  leaf: Leaf | null = null;
  /** Smallest leaf key in this subtree. */
  min = NONE;
  /** Whether a param (constrained or not), a segment regexp or a glob starts here (the walk comes back for them). */
  branches = false;

  constructor(
    /** Static text matched on entering this node (empty for the root and param nodes). */
    public prefix: string,
  ) {
    this.first = prefix.length > 0 ? prefix.charCodeAt(0) : -1;
  }

  /** With many kids: the kid of each code from `low` on, for a direct lookup. */
  table: Array<Node | undefined> | null = null;
  low = 0;

  kid(code: number): Node | undefined {
    const table = this.table;
    if (table !== null) {
      const k = code - this.low;
      return k >= 0 && k < table.length ? table[k] : undefined;
    }
    const codes = this.codes;
    if (codes === null) return undefined;
    for (let i = 0; i < codes.length; i++) if (codes[i] === code) return this.kids![i];
    return undefined;
  }

  addKid(kid: Node): void {
    (this.kids ??= []).push(kid);
    (this.codes ??= []).push(kid.first);
    if (this.kids.length >= WIDE) this.index();
  }

  /** Builds the direct lookup table (kept only when the codes are not too spread out). */
  private index(): void {
    const codes = this.codes!;
    const low = Math.min(...codes);
    const size = Math.max(...codes) - low + 1;
    if (size > 4 * codes.length + 16) {
      this.table = null;
      return;
    }
    const table: Array<Node | undefined> = new Array<Node | undefined>(size).fill(undefined);
    codes.forEach((code, i) => {
      table[code - low] = this.kids![i];
    });
    this.table = table;
    this.low = low;
  }
}

// ---------------------------------------------------------------------------- building

/** The node reached from `node` by the static `text`, splitting or adding nodes as needed. */
export function insertText(node: Node, text: string, key: number): Node {
  let i = 0;
  while (i < text.length) {
    let kid = node.kid(text.charCodeAt(i));
    if (kid === undefined) {
      kid = new Node(text.slice(i));
      node.addKid(kid);
      kid.min = key;
      return kid;
    }
    const p = kid.prefix;
    let k = 1;
    while (k < p.length && i + k < text.length && p.charCodeAt(k) === text.charCodeAt(i + k)) k++;
    if (k < p.length) split(kid, k);
    if (key < kid.min) kid.min = key;
    node = kid;
    i += k;
  }
  return node;
}

/** Cuts `node`'s prefix at `at`: the node keeps the head, a new child takes the tail and the contents. */
function split(node: Node, at: number): void {
  const tail = new Node(node.prefix.slice(at));
  tail.kids = node.kids;
  tail.codes = node.codes;
  tail.table = node.table;
  tail.low = node.low;
  node.table = null;
  tail.param = node.param;
  tail.patterns = node.patterns;
  tail.constrained = node.constrained;
  tail.globs = node.globs;
  tail.leaf = node.leaf;
  tail.min = node.min;
  tail.branches = node.branches;
  node.branches = false;
  node.prefix = node.prefix.slice(0, at);
  node.kids = [tail];
  node.codes = [tail.first];
  node.param = null;
  node.patterns = null;
  node.constrained = null;
  node.globs = null;
  node.leaf = null;
}

export function paramChild(node: Node, key: number): Node {
  node.branches = true;
  const child = (node.param ??= new Node(''));
  if (key < child.min) child.min = key;
  return child;
}

export function patternChild(node: Node, source: string, groups: readonly number[], key: number): Node {
  node.branches = true;
  node.patterns ??= [];
  let edge = node.patterns.find((e) => e.source === source);
  if (edge === undefined) node.patterns.push((edge = { source, regexp: null, groups, node: new Node('') }));
  if (key < edge.node.min) edge.node.min = key;
  return edge.node;
}

/** The constraint that lets any segment through: no regexp to run. */
const ANY_SEGMENT = /^\[\^(?:\\\/|\/)\]\+$/;

/** The node after a whole-segment param constrained by `source` (see ConstrainedEdge). */
export function constrainedChild(node: Node, source: string, key: number): Node {
  node.branches = true;
  node.constrained ??= [];
  let edge = node.constrained.find((e) => e.source === source);
  if (edge === undefined) {
    const regexp = ANY_SEGMENT.test(source) ? null : new RegExp(`(?:${source})(?=\\/|$)`, 'y');
    node.constrained.push((edge = { source, regexp, node: new Node('') }));
  }
  if (key < edge.node.min) edge.node.min = key;
  return edge.node;
}

// ---------------------------------------------------------------------------- matching

/** One search's scratch space, reused by every search of a matcher (searches never nest). */
export class SearchState {
  path = '';
  bestKey = NONE;
  best: Leaf | RegexpLeaf | null = null;
  /** Start and end of each captured value on the current branch, then of the best match. */
  pos: Int32Array;
  bestPos: Int32Array;
  /**
   * Set when the walk met a char that normalizing the path would change or cut (`%`, `?`,
   * `#`, doubled or trailing slashes): a walk over a raw path is then not to be trusted.
   */
  abnormal = false;
  /** Where a glob's rest of the path first holds a line terminator (see `scanGlobRest`). */
  lineBreak = 0;
  /** Whether the values of the best match may hold `%` escapes to decode. */
  decode = false;
  /** The params of the best match when the compiled walk built them (else null). */
  params: Record<string, unknown> | null = null;
  /** Values of a regexp-matched route (see Matcher), or null when `bestPos` holds them. */
  values: Array<string | undefined> | null = null;
  /** The walk's stack of nodes to come back to, with the path index and depth at each. */
  stack: Node[] = [];
  at: number[] = [];
  depths: number[] = [];
  sp = 0;

  constructor(slots: number) {
    this.pos = new Int32Array(slots);
    this.bestPos = new Int32Array(slots);
  }

  /** Makes room for `slots` positions, keeping those recorded (a tree grows as it is expanded). */
  reserve(slots: number): void {
    if (this.pos.length >= slots) return;
    const pos = new Int32Array(slots);
    pos.set(this.pos);
    this.pos = pos;
    const best = new Int32Array(slots);
    best.set(this.bestPos);
    this.bestPos = best;
  }

  reset(path: string, slots: number): void {
    this.reserve(slots);
    this.path = path;
    this.sp = 0;
    this.abnormal = false;
    this.bestKey = NONE;
    this.best = null;
    this.values = null;
    this.params = null;
  }

  take(leaf: Leaf, depth: number): void {
    this.best = leaf;
    this.bestKey = leaf.key;
    const pos = this.pos;
    const best = this.bestPos;
    for (let i = 0; i < depth; i++) best[i] = pos[i]!;
  }
}

/** Static texts shorter than this are compared char by char; longer ones with startsWith. */
const SHORT = 16;

/**
 * Matches `state.path` from index `i` below `node` (whose own text is already matched).
 * Depth first, without recursion: static text is followed first, and each node passed on the
 * way where a param, a segment regexp or a glob could also start is kept on a stack, to be
 * tried after (subtrees that cannot beat the best match are skipped).
 */
export function walk(node: Node, state: SearchState, i: number, depth: number): void {
  const path = state.path;
  const len = path.length;
  const { stack, at, depths, pos } = state;
  const base = state.sp;
  let sp = base;
  let best = state.bestKey;
  for (;;) {
    // Down by static text as far as it goes; `from` is a node where something else may start.
    let from: Node | null = null;
    let start = 0;
    let d = 0;
    for (;;) {
      if (i === len) {
        const leaf = node.leaf;
        if (leaf !== null && leaf.key < best) {
          state.take(leaf, depth);
          best = leaf.key;
        }
        break; // nothing else matches an empty rest
      }
      const kid = node.kid(path.charCodeAt(i));
      if (kid !== undefined && kid.min < best && matchesAt(path, i, kid.prefix)) {
        if (node.branches) {
          stack[sp] = node;
          at[sp] = i;
          depths[sp] = depth;
          sp++;
        }
        node = kid;
        i += kid.prefix.length;
        continue;
      }
      if (node.branches) {
        from = node;
        start = i;
        d = depth;
      }
      break;
    }
    // Then what else starts at `from`, or at the last node kept on the stack.
    for (;;) {
      if (from === null) {
        if (sp === base) return;
        sp--;
        from = stack[sp]!;
        start = at[sp]!;
        d = depths[sp]!;
      }
      if (from.globs !== null) {
        matchGlobs(from.globs, state, start, d);
        best = state.bestKey;
      }
      if (from.patterns !== null) {
        state.sp = sp;
        walkPatterns(from.patterns, state, start, d);
        best = state.bestKey;
      }
      if (from.constrained !== null) {
        state.sp = sp;
        walkConstrained(from.constrained, state, start, d);
        best = state.bestKey;
      }
      const param = from.param;
      from = null;
      if (param !== null && param.min < best) {
        // A default-pattern param: a non-empty run up to the next '/' or '.'.
        let e = start;
        do {
          const x = path.charCodeAt(e);
          if (x < 48 || x === 63) {
            if (x === 47 || x === 46) break;
            if (x === 37 || x === 35 || x === 63) state.abnormal = true; // '%', '#', '?'
          }
        } while (++e < len);
        if (e > start) {
          pos[d] = start;
          pos[d + 1] = e;
          node = param;
          i = e;
          depth = d + 2;
          break;
        }
      }
    }
  }
}

/** Whether `path` continues at `i` with `text` (whose first char is known to match). */
function matchesAt(path: string, i: number, text: string): boolean {
  const n = text.length;
  if (n === 1) return true;
  if (i + n > path.length) return false;
  if (n >= SHORT) return path.startsWith(text, i);
  for (let k = 1; k < n; k++) if (path.charCodeAt(i + k) !== text.charCodeAt(k)) return false;
  return true;
}

/**
 * The end of the segment starting at `i` (the next slash, or the path's end), flagging the
 * chars normalizing would change (`%`, `#`, `?`) on the way.
 */
function segmentEnd(state: SearchState, i: number): number {
  const path = state.path;
  const len = path.length;
  let e = i;
  for (; e < len; e++) {
    const c = path.charCodeAt(e);
    if (c === 47) break;
    if (c === 37 || c === 35 || c === 63) state.abnormal = true;
  }
  return e;
}

/** Segment regexps: each runs from `i` and must end where the segment does. */
export function walkPatterns(patterns: PatternEdge[], state: SearchState, i: number, depth: number): void {
  const path = state.path;
  const end = segmentEnd(state, i);
  for (let e = 0; e < patterns.length; e++) {
    const edge = patterns[e]!;
    if (edge.node.min >= state.bestKey) continue;
    const regexp = (edge.regexp ??= new RegExp(edge.source, 'dy'));
    regexp.lastIndex = i;
    const m = regexp.exec(path);
    if (m === null) continue;
    const indices = m.indices!;
    const groups = edge.groups;
    let d = depth;
    for (let g = 0; g < groups.length; g++) {
      const at = indices[groups[g]!]!;
      state.pos[d++] = at[0];
      state.pos[d++] = at[1];
    }
    walk(edge.node, state, end, d);
  }
}

/** Constrained whole-segment params (ConstrainedEdge) starting at `i`, tried in turn. */
export function walkConstrained(edges: ConstrainedEdge[], state: SearchState, i: number, depth: number): void {
  const end = segmentEnd(state, i);
  if (end === i) return;
  for (let e = 0; e < edges.length; e++) {
    const edge = edges[e]!;
    if (edge.node.min >= state.bestKey) continue;
    const regexp = edge.regexp;
    if (regexp !== null) {
      regexp.lastIndex = i;
      if (!regexp.test(state.path)) continue;
    }
    state.pos[depth] = i;
    state.pos[depth + 1] = end;
    walk(edge.node, state, end, depth + 2);
  }
}

/** Line terminators, which a glob's `.` does not match. */
function isLineBreak(c: number): boolean {
  return c === 10 || c === 13 || c === 0x2028 || c === 0x2029;
}

/**
 * Scans the rest of the path from `i` for a glob: returns the index of the dot a format could
 * be split off at (-1 or -2: none), sets `state.lineBreak` to the first line terminator (or the
 * length) and flags what normalizing would change. (codegen.ts generates the same scan.)
 */
function scanGlobRest(state: SearchState, i: number): number {
  const path = state.path;
  const len = path.length;
  let lastDot = -1;
  let lineBreak = len;
  if (path.charCodeAt(len - 1) === 47) state.abnormal = true; // a trailing slash
  for (let k = len - 1; k >= i; k--) {
    const c = path.charCodeAt(k);
    if (isLineBreak(c)) lineBreak = k;
    else if (c === 46) {
      if (lastDot === -1) lastDot = k;
    } else if (c === 47) {
      if (lastDot === -1) lastDot = -2; // a slash after the last dot: no format
      if (path.charCodeAt(k - 1) === 47) state.abnormal = true;
    } else if (c === 63 || c === 35 || c === 37) state.abnormal = true;
  }
  state.lineBreak = lineBreak;
  return lastDot;
}

/**
 * A glob takes the (non-empty) rest of the path, as the route's regexp `(.+?)(?:\.([^/.?]+))?$`
 * (or `(.+)$` with `format: false`) would: the format is split off at the last dot when no
 * slash follows it and the glob keeps at least one char.
 */
function matchGlobs(globs: GlobEdge[], state: SearchState, i: number, depth: number): void {
  const len = state.path.length;
  const lastDot = scanGlobRest(state, i);
  const lineBreak = state.lineBreak;
  for (let g = 0; g < globs.length; g++) {
    const glob = globs[g]!;
    if (glob.key >= state.bestKey) return;
    if (glob.withFormat !== null && lastDot > i && lastDot < len - 1) {
      if (lineBreak < lastDot) continue;
      state.pos[depth] = i;
      state.pos[depth + 1] = lastDot;
      state.pos[depth + 2] = lastDot + 1;
      state.pos[depth + 3] = len;
      state.take(glob.withFormat, depth + 4);
      return;
    }
    if (lineBreak < len) continue;
    state.pos[depth] = i;
    state.pos[depth + 1] = len;
    state.take(glob.leaf, depth + 2);
    return;
  }
}
