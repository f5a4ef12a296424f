/**
 * Recognition with Rails' precedence: of all routes whose path and verb match, the one
 * declared first wins (not the most specific, as in find-my-way or rou3).
 *
 * Each verb gets its own tree (build.ts, walk.ts), holding only the routes that answer it,
 * built the first time a request uses that verb (most routes, those under a first path word,
 * only once a request starts with that word: see Tree.expand). In a tree, fastest first:
 *  1. a map of the paths with no params (`/posts`), authoritative unless an earlier dynamic
 *     route also matches that path (found out on the entry's first use);
 *  2. the radix tree walk;
 *  3. the routes the tree cannot express, tried in declaration order with their own regexps.
 */
import type { Route } from '../route.js';
import { ResourceRoutes, type ResourceRoute, type RouteEntry } from '../resource-routes.js';
import type { Match } from '../types.js';
import { normalizeRequestPath } from '../pattern/normalize.js';
import { compileRecognizer, compileWalk, type CompiledWalk, type Recognizer, type StaticRoute } from './codegen.js';
import { simpleFirstWord, Tree, type StaticEntry } from './build.js';
import { paramsFromValues, type Leaf, type RegexpLeaf } from './params.js';
import { SearchState, walk } from './walk.js';

/**
 * How a matcher searches: `auto` as shipped (statics map, then the walk, compiled once a tree
 * is used often). The others force one tier for every lookup, so that tests run each of them
 * over the same cases: `static-map` (the map, then the interpreted walk, never compiled),
 * `walk` (the interpreted walk alone, no map), `compiled-walk` and `recognizer` (compiled when
 * a tree is built; where code generation is disallowed both fall back to the interpreter).
 */
export type MatcherTier = 'auto' | 'static-map' | 'walk' | 'compiled-walk' | 'recognizer';

/** What a match ends on: a tree leaf, or a route matched by its regexp. */
export type Found = Leaf | RegexpLeaf;

/** Walks (or lookups) of a tree after which its walk and its recognizer are compiled (codegen.ts). */
const TREE_CODEGEN_AFTER_LOOKUPS = 32;

/** Static paths from this length on are compared whole by the recognizer (see `wholeStatics`). */
const LONG_STATIC = 12;

/** HEAD requests fall back to GET routes (method names are case-insensitive). */
function isHead(method: string): boolean {
  return method === 'HEAD' || (method.length === 4 && method.toUpperCase() === 'HEAD');
}

/** The answer for a route and its params (the compiled recognizer spells the same object inline). */
export function matchOf(route: Route, params: Record<string, unknown>): Match {
  const spec = route.spec;
  return {
    route: route.info,
    handler: spec.handler || String(params.handler ?? ''),
    action: spec.action || String(params.action ?? ''),
    params,
  };
}

/** Verbs a request may name without any route declaring them (their tree is the any-verb routes'). */
const STANDARD_VERBS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

/** The index of a standard verb as a request spells it (upper case) in `standardTrees`; -1 for another method. */
function standardSlot(method: string): number {
  switch (method) {
    case 'GET':
      return 0;
    case 'POST':
      return 1;
    case 'PUT':
      return 2;
    case 'PATCH':
      return 3;
    case 'DELETE':
      return 4;
    case 'HEAD':
      return 5;
    case 'OPTIONS':
      return 6;
    default:
      return -1;
  }
}

export class Matcher {
  /** Trees by request method as spelled by the request (upper case) and by declared verb. */
  private readonly trees = new Map<string, Tree>();
  /**
   * The trees of the standard verbs by `standardSlot`, once looked up: requests mixing verbs
   * (GET, POST, PATCH, DELETE in turn) find theirs without a map lookup, which cost ~8% of a
   * Rails-shaped mix in a CPU profile.
   */
  private readonly standardTrees: (Tree | null)[] = [null, null, null, null, null, null, null];
  /**
   * The compiled recognizers of the standard verbs' trees by `standardSlot`, once a lookup found
   * them. `recognize` reads the five verbs routes name from here, each in its own branch: the tree
   * lookup and its checks stay out of the hot path (calling the recognizers directly was 1.2-1.3x
   * faster than through them), and each branch's call site sees one recognizer, which V8 calls
   * directly, where a shared one called four trees' recognizers in turn (with several route sets in
   * one process the sites see several again, as before).
   */
  private readonly recognizers: (Recognizer | null)[] = [null, null, null, null, null, null, null];
  /** The last other method and its tree: requests often repeat a method. */
  private lastMethod = '';
  private lastTree: Tree | null = null;
  /** Verbs some route names (routes with no verb answer every verb); gathered by the first `build`. */
  private verbSet: Set<string> | null = null;
  private anyVerb: Tree | null = null;
  private readonly state = new SearchState(8);
  /** Lookups (and walks) of a tree after which it is compiled. */
  private readonly compileAfter: number;
  /** Whether the statics map answers static paths before the walk. */
  private readonly useStatics: boolean;

  constructor(
    /** The declared specs and resource records in order; `routeAt(i)` is the route of the `i`th route (made on first read). */
    private readonly entries: readonly RouteEntry[],
    private readonly routeAt: (index: number) => Route,
    private readonly tier: MatcherTier = 'auto',
  ) {
    this.compileAfter = tier === 'auto' ? TREE_CODEGEN_AFTER_LOOKUPS : Number.POSITIVE_INFINITY;
    this.useStatics = tier !== 'walk' && tier !== 'compiled-walk';
  }

  /** Verbs some route names (routes with no verb answer every verb). */
  get verbs(): ReadonlySet<string> {
    if (this.verbSet === null) this.anyVerb ??= this.build(null);
    return this.verbSet!;
  }

  /**
   * The answer to a request: `recognize('GET', '/posts/1.json')`; HEAD falls back to GET routes.
   * A tree looked up often answers with its compiled recognizer (codegen.ts), which does
   * the whole search in one generated function when the request path is normal as it comes.
   */
  recognize(method: string, raw: string): Match | null {
    const r = this.recognizers;
    let match: Match | null | undefined;
    // One branch per verb, each with its own call site (see `recognizers`); HEAD, OPTIONS, other
    // methods and trees not compiled yet take `recognizeTree`.
    switch (method) {
      case 'GET': {
        const f = r[0]!;
        if (f === null) return this.recognizeTree(method, raw);
        match = f(raw);
        break;
      }
      case 'POST': {
        const f = r[1]!;
        if (f === null) return this.recognizeTree(method, raw);
        match = f(raw);
        break;
      }
      case 'PUT': {
        const f = r[2]!;
        if (f === null) return this.recognizeTree(method, raw);
        match = f(raw);
        break;
      }
      case 'PATCH': {
        const f = r[3]!;
        if (f === null) return this.recognizeTree(method, raw);
        match = f(raw);
        break;
      }
      case 'DELETE': {
        const f = r[4]!;
        if (f === null) return this.recognizeTree(method, raw);
        match = f(raw);
        break;
      }
      default:
        return this.recognizeTree(method, raw);
    }
    if (match != null) return match;
    return this.afterRecognizer(method, raw, match);
  }

  /** `recognize` for a method whose recognizer is not in `recognizers` (not compiled yet, or not a standard verb). */
  private recognizeTree(method: string, raw: string): Match | null {
    const tree = this.cachedTree(method) ?? this.treeFor(method);
    const fast = tree.recognizer;
    if (fast !== null) {
      const slot = standardSlot(method);
      if (slot >= 0) this.recognizers[slot] = fast;
      const match = fast(raw);
      if (match != null) return match;
      return this.afterRecognizer(method, raw, match);
    }
    if (++tree.lookups === this.compileAfter) this.compileTree(tree);
    return this.recognizeFound(method, this.find(method, raw), raw);
  }

  /** `recognize` after the recognizer found no route (null) or left the path to the general search (undefined). */
  private afterRecognizer(method: string, raw: string, match: null | undefined): Match | null {
    // A miss counts only for a path that is normal as it came (else the general search decides).
    if (match === null && normalizeRequestPath(raw) === raw) return isHead(method) ? this.recognize('GET', raw) : null;
    return this.recognizeFound(method, this.find(method, raw), raw);
  }

  /** The answer from what `find` returned (with HEAD's fallback to GET). */
  private recognizeFound(method: string, found: Found | null, raw: string): Match | null {
    if (found === null && isHead(method)) found = this.find('GET', raw);
    if (found === null) return null;
    return matchOf(found.route, this.params(found));
  }

  /**
   * The recognizer, for a tree it can answer for alone; else the compiled walk, which then does
   * every lookup. (With a recognizer, the walk is compiled only if the tree goes on being walked, see `walk`.)
   */
  private compileTree(tree: Tree): void {
    this.expandAll(tree);
    if (tree.custom.length === 0 && tree.rawWalks)
      tree.recognizer = compileRecognizer(tree.root, this.wholeStatics(tree), this.state, matchOf);
    if (tree.recognizer === null && tree.compiled === null) tree.compiled = compileWalk(tree.root);
  }

  /**
   * The winning route for a request path (raw or normalized) and a request method (any case),
   * or null. Its params are read with `params` before the next search.
   *
   * A path spelled exactly like a static route is normal already; any other is walked as it
   * comes, and only normalized when the walk met something normalizing would change (or found
   * nothing): most requests are then scanned once, by the walk itself. This holds because a
   * match consumes every char of the path, each either compared with route text that holds
   * nothing normalizing changes (else `rawWalks` is off) or scanned by a param or glob, which
   * flag `?`, `#`, `%` and extra slashes; so a match with no flag was made on a normal path.
   */
  find(method: string, raw: string): Found | null {
    const tree = this.cachedTree(method) ?? this.treeFor(method);
    tree.expand(raw);
    const state = this.state;
    const entry = this.useStatics ? tree.statics.get(raw) : undefined;
    if (entry?.normal) return this.fromStatic(tree, entry, raw);
    if (tree.compiled !== null) return this.findCompiled(tree, tree.compiled, raw);
    if (tree.rawWalks) {
      this.walk(tree, raw, false);
      if (!state.abnormal && (state.best !== null || normalizeRequestPath(raw) === raw)) {
        // The walk consumed the path with no '%' in a value: nothing to decode.
        state.decode = false;
        return this.tryCustom(tree, raw);
      }
    }
    const path = normalizeRequestPath(raw);
    if (path !== raw) {
      tree.expand(path);
      const normalEntry = this.useStatics ? tree.statics.get(path) : undefined;
      if (normalEntry !== undefined) return this.fromStatic(tree, normalEntry, path);
    } else if (entry !== undefined) return this.fromStatic(tree, entry, path);
    return this.search(tree, path);
  }

  /** `find` past the statics map, with the tree's compiled walk (which is then the whole search). */
  private findCompiled(tree: Tree, compiled: CompiledWalk, raw: string): Found | null {
    const state = this.state;
    if (tree.rawWalks) {
      const leaf = compiled(raw, state, false);
      if (!state.abnormal && (leaf !== null || normalizeRequestPath(raw) === raw)) {
        state.decode = false;
        return tree.custom.length === 0 ? leaf : this.tryCustom(tree, raw);
      }
    }
    return this.search(tree, normalizeRequestPath(raw));
  }

  /**
   * The static routes a recognizer compares whole with the request path (one string comparison
   * beats a walk over a long text, char by char): those of LONG_STATIC chars or more that no
   * earlier route contests.
   */
  private wholeStatics(tree: Tree): StaticRoute[] {
    const statics: StaticRoute[] = [];
    for (const [path, entry] of tree.statics) {
      if (path.length < LONG_STATIC || !entry.normal) continue;
      if (!this.contested(tree, entry, path)) statics.push({ path, leaf: entry.leaf });
    }
    return statics;
  }

  /** Whether an earlier route also matches a static entry's (normal) path: found out on first use. */
  private contested(tree: Tree, entry: StaticEntry, path: string): boolean {
    if (entry.contested === undefined) entry.contested = this.search(tree, path) !== entry.leaf;
    return entry.contested;
  }

  /** A static entry answers alone unless an earlier route also matches its (normal) path. */
  private fromStatic(tree: Tree, entry: StaticEntry, path: string): Found | null {
    if (this.contested(tree, entry, path)) return this.search(tree, path);
    const state = this.state;
    state.path = path;
    state.values = null;
    state.params = null;
    state.decode = false; // a static route has no values
    return entry.leaf;
  }

  /** The params of what the last `find` returned. */
  params(found: Found): Record<string, unknown> {
    const state = this.state;
    if (state.values !== null) return paramsFromValues(found.route, found.route.regexp.captures, state.values);
    if (state.params !== null) return state.params; // built by the compiled walk
    return (found as Leaf).params(state.path, state.bestPos, state.decode);
  }

  /** Whether a route with no verb matches the path (it answers every verb). */
  matchesAnyVerb(path: string): boolean {
    return this.search((this.anyVerb ??= this.build(null)), path) !== null;
  }

  /** The tree of a method looked up before, without the map; null when not cached. */
  private cachedTree(method: string): Tree | null {
    const slot = standardSlot(method);
    if (slot >= 0) return this.standardTrees[slot]!;
    return this.lastMethod === method ? this.lastTree : null;
  }

  private treeFor(method: string): Tree {
    let tree = this.trees.get(method);
    if (tree === undefined) tree = this.treeOfVerb(method.toUpperCase());
    else {
      // The next lookup skips the map.
      const slot = standardSlot(method);
      if (slot >= 0) this.standardTrees[slot] = tree;
      else {
        this.lastMethod = method;
        this.lastTree = tree;
      }
    }
    return tree;
  }

  private treeOfVerb(verb: string): Tree {
    let tree = this.trees.get(verb);
    if (tree === undefined) {
      if (this.verbSet === null) {
        // The first tree: its pass over the routes gathers the verbs too. A verb no route
        // names gets the routes of no verb, which is the any-verb tree.
        tree = this.build(verb);
        if (!this.verbSet!.has(verb)) tree = this.anyVerb ??= tree;
      } else if (this.verbSet.has(verb)) tree = this.build(verb);
      else tree = this.anyVerb ??= this.build(null);
      if (this.tier === 'recognizer') this.compileTree(tree);
      else if (this.tier === 'compiled-walk' && tree.compiled === null) {
        this.expandAll(tree);
        tree.compiled = compileWalk(tree.root);
      }
      // Only names that routes or HTTP define are kept: a request cannot grow the map.
      if (this.verbs.has(verb) || STANDARD_VERBS.includes(verb)) this.trees.set(verb, tree);
    }
    return tree;
  }

  /** The tree of the routes answering `verb` (null: only the routes answering every verb). */
  private build(verb: string | null): Tree {
    const tree = new Tree(this.routeAt);
    const entries = this.entries;
    // The first build gathers the verbs of every route in the same pass. Verb lists are
    // interned: a set of 10,000 routes holds a handful, each added once.
    const gathered = this.verbSet === null ? new Set<string>() : null;
    const seen: (string[] | readonly ResourceRoute[])[] = [];
    // The routes of the last layout seen that answer `verb` (most records share one layout).
    let lastLayout: readonly ResourceRoute[] | null = null;
    let answering: number[] = [];
    // An indexed loop: this runs cold, once per verb, where for-of's iterator calls cost.
    let index = 0;
    for (let e = 0; e < entries.length; e++) {
      const entry = entries[e]!;
      if (entry instanceof ResourceRoutes) {
        // A resource's routes: read from its layout (shared by most resources), their specs left unmade.
        const layout = entry.layout;
        if (gathered !== null && !seen.includes(layout)) {
          seen.push(layout);
          for (let k = 0; k < layout.length; k++) for (const v of layout[k]!.verbs) gathered.add(v);
        }
        // Most records' paths are simple and share a first word: put aside without reading them.
        if (entry.simpleWord === undefined) entry.simpleWord = simpleFirstWord(entry);
        const word = entry.simpleWord;
        if (layout !== lastLayout) {
          lastLayout = layout;
          answering = [];
          for (let k = 0; k < layout.length; k++) {
            const verbs = layout[k]!.verbs;
            if (verbs.length === 0 || (verb !== null && verbs.includes(verb))) answering.push(k);
          }
        }
        for (let a = 0; a < answering.length; a++) {
          const k = answering[a]!;
          if (word !== null) tree.defer(word, index + k);
          else tree.addLean(index + k, entry.pathAt(k));
        }
        index += layout.length;
        continue;
      }
      const verbs = entry.verbs;
      if (gathered !== null && !seen.includes(verbs)) {
        seen.push(verbs);
        for (let v = 0; v < verbs.length; v++) gathered.add(verbs[v]!);
      }
      if (verbs.length === 0 || (verb !== null && verbs.includes(verb))) tree.add(this.routeAt(index));
      index++;
    }
    if (gathered !== null) this.verbSet = gathered;
    return tree;
  }

  /** The tree walk and then the regexp routes, over a normalized path. */
  private search(tree: Tree, path: string): Found | null {
    tree.expand(path);
    this.walk(tree, path, true);
    this.state.decode = true;
    return this.tryCustom(tree, path);
  }

  /** Walks the tree over `path`; a compiled walk also builds the params (decoded when `decode`). */
  private walk(tree: Tree, path: string, decode: boolean): void {
    // One state serves every search: a search never runs inside another.
    const state = this.state;
    const compiled = tree.compiled;
    if (compiled !== null) {
      compiled(path, state, decode);
      return;
    }
    state.reset(path, tree.slots);
    walk(tree.root, state, 0, 0);
    // A tree walked often gets its walk compiled; one used once or twice (a cold start) never pays for it.
    if (++tree.walks === this.compileAfter && tree.compiled === null) {
      this.expandAll(tree);
      tree.compiled = compileWalk(tree.root);
    }
  }

  /**
   * Completes a tree about to be compiled, with room in the state for its positions (which
   * compiled code writes unchecked; they never shrink).
   */
  private expandAll(tree: Tree): void {
    tree.expandAll();
    this.state.reserve(tree.slots);
  }

  /** The regexp routes declared before the tree's best match, in order; the first to match wins. */
  private tryCustom(tree: Tree, path: string): Found | null {
    const state = this.state;
    const custom = tree.custom;
    for (let i = 0; i < custom.length; i++) {
      const leaf = custom[i]!;
      if (leaf.key >= state.bestKey) break;
      const m = leaf.route.regexp.regexp.exec(path);
      if (m === null) continue;
      state.best = leaf;
      state.bestKey = leaf.key;
      state.values = m.slice(1);
      break;
    }
    return state.best;
  }
}
