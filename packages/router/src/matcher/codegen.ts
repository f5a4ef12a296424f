/**
 * The tree walk of walk.ts, compiled to JavaScript for one tree (the only generated matching
 * code of the package). A tree becomes a function whose static text is constants in
 * `charCodeAt` comparisons, whose branches are nested blocks, and whose positions are locals:
 * no node objects, lookup tables or stack are touched while matching. A big tree is cut into
 * subtrees of at most MAX_NODES nodes (`partition`), each a function the one above calls where
 * the subtree starts, so that every function stays small enough to be optimized; the nodes
 * above the cuts stay thin, so that a lookup mostly makes one such call.
 *
 * The generated code does exactly what `walk` does, in the same order: at a node, the path's
 * end takes the node's leaf; otherwise the static kid of the next char is followed first, then
 * (once that subtree is done) the node's globs, segment regexps and param, each skipped when
 * its subtree's smallest key cannot beat the best match so far, then its constrained params. A subtree is a nested block, so
 * coming back to a node is leaving a block: the interpreter's stack becomes the JS block nesting.
 *
 * Fallback: when code generation is disallowed (`--disallow-code-generation-from-strings`, a
 * CSP) or the tree is too large for generated code to pay off (MAX_TOTAL), `compileWalk` returns
 * null and the matcher keeps the interpreter.
 */
import { decodeParam } from '../pattern/normalize.js';
import type { Route } from '../route.js';
import type { Match } from '../types.js';
import { defaultsOf, paramsLiteral, type Leaf } from './params.js';
import { NONE, walkPatterns, type Node, type SearchState } from './walk.js';

/**
 * Resets `state` and walks the whole tree over `path`: returns the best leaf, left in `state`
 * too, with its params already built in `state.params` (their values decoded when `decode`).
 */
export type CompiledWalk = (path: string, state: SearchState, decode: boolean) => Leaf | null;

/**
 * Nodes per generated function at most: V8 optimizes a function only after running it for a
 * while in proportion to its size, so small functions are fast soon after a tree is compiled.
 */
const MAX_NODES = 96;
/**
 * A node over MAX_NODES cuts off every child subtree bigger than this, so that it becomes a
 * thin dispatcher its parent keeps inline: `/res3` → `/res39/...` is then one call from the
 * root instead of a call per level (each call cost ~10% of a Rails-shaped lookup).
 */
const THIN_NODES = 24;
/** Nodes on a path through one function at most (its source would nest too far). */
const MAX_DEPTH = 48;
/** Trees with more nodes stay interpreted: their code would cost more memory than it saves time. */
const MAX_TOTAL = 8192;
/** Static texts up to this length are compared char by char; longer ones with startsWith. */
const UNROLL = 64;

export function compileWalk(root: Node): CompiledWalk | null {
  return generate(root, null) as CompiledWalk | null;
}

/**
 * The tree's whole recognition compiled into one function, for a tree without regexp routes
 * whose raw request paths may be walked (Tree.rawWalks): the walk of `compileWalk`, with the
 * answer built where the winner is known. It returns the Match, null for a path no route
 * matches, or undefined when the walk met what normalizing the path would change (`%`, `?`,
 * `#`, extra slashes), where the caller's general search takes over.
 *
 * A leaf nothing left to try can beat (its key is below every alternative still pending on the
 * way back up) returns at once, its params built from the walk's locals; any other is recorded
 * and built at the end, as in `compileWalk`.
 */
export function compileRecognizer(
  root: Node,
  statics: StaticRoute[],
  state: SearchState,
  matchOf: MatchOf,
): Recognizer | null {
  return generate(root, { statics, state, matchOf }) as Recognizer | null;
}

/** A static route the recognizer answers for by comparing the whole path with its text first. */
export interface StaticRoute {
  path: string;
  leaf: Leaf;
}

/** The function of a cut off subtree (see `enter` in `generate`). */
type Chunk = (...args: unknown[]) => unknown;

/** A request path (raw) → its Match, null (no route), undefined (the general search decides). */
export type Recognizer = (path: string) => Match | null | undefined;
/** The Match of a route and its params, for routes whose handler or action come from the params. */
export type MatchOf = (route: Route, params: Record<string, unknown>) => Match;

function generate(
  root: Node,
  recognize: { statics: StaticRoute[]; state: SearchState; matchOf: MatchOf } | null,
): CompiledWalk | Recognizer | null {
  if (recognize !== null && hasPatterns(root)) return null;
  const chunkRoots = partition(root);
  if (chunkRoots === null) return null;
  const chunked = chunkRoots.size > 0;
  const constants: unknown[] = [];
  const refs = new Map<unknown, number>();
  /** The constants the function being generated uses: each is bound to a `const` it closes over. */
  let used = new Set<number>();
  const ref = (value: unknown): string => {
    let k = refs.get(value);
    if (k === undefined) refs.set(value, (k = constants.push(value) - 1));
    used.add(k);
    return `k${k}`;
  };
  /** Position locals of the function being generated. */
  let slots = 0;
  let vars = 0;
  /** Every leaf the walk can take, by the id the generated code records when taking it. */
  const leaves: Leaf[] = [];
  const leafIds = new Map<Leaf, number>();
  /**
   * The leaves the root function records: they get their own case in its final switch. Those
   * a chunk records are built by the leaf itself (a switch over every leaf of a big tree would
   * make the root too big to optimize, and chunks are generated after it).
   */
  const rootLeafIds = new Set<number>();
  let inChunk = false;
  /** The leaves the chunk being generated records (a recognizer's chunk may answer for them itself). */
  let chunkLeaves: Leaf[] = [];
  /**
   * The functions of the subtrees cut off from the root's (`partition`), called as `C[k]`: each
   * is generated on its first call, so that a big tree pays only for the parts requests reach.
   */
  const C: Chunk[] = [];
  /** Where positions go for a leaf's own params builder (a chunk's winner, an unusual name). */
  const B: number[] = [];
  /** How the walk flags a char normalizing would change. */
  const flag = recognize === null ? 'state.abnormal = true' : 'ab = true';
  /**
   * Where a recorded winner's positions go: the state's (a compiled walk), the recognizer's
   * locals, or, when the recognizer is chunked, one array every chunk writes.
   */
  const b =
    recognize === null ? (k: number) => `bp[${k}]` : chunked ? (k: number) => `B[${k}]` : (k: number) => `b${k}`;

  /** A recognizer's answer for `leaf`, its values' positions given as expressions. */
  const answer = (leaf: Leaf, at: (k: number) => string): string => {
    const defaults = defaultsOf(leaf.route);
    const params = paramsLiteral(leaf.names, defaults, false, defaults === null ? '' : ref(defaults), at);
    if (params === null) {
      // A name an object literal cannot spell: the leaf builds its params from positions in B.
      let out = '(';
      for (let k = 0; k < 2 * leaf.names.length; k++) out += `B[${k}] = ${at(k)}, `;
      return `${out}matchOf(${ref(leaf.route)}, ${ref(leaf)}.params(path, B, false)))`;
    }
    const spec = leaf.route.spec;
    if (spec.handler === '' || spec.action === '') return `matchOf(${ref(leaf.route)}, ${params})`;
    // The fields in the order matchOf gives them (one object shape for every answer).
    return `{ route: ${ref(leaf.route.info)}, handler: ${JSON.stringify(spec.handler)}, action: ${JSON.stringify(spec.action)}, params: ${params} }`;
  };

  /**
   * Takes `leaf` at the current branch (its `depth` positions, then the extra ones given);
   * `pending` is the smallest key of what is left to try after this point.
   */
  const take = (leaf: Leaf, depth: number, extra: string[], pending: number): string => {
    slots = Math.max(slots, depth + extra.length);
    if (recognize !== null && leaf.key < pending) {
      const at = (k: number) => (k < depth ? `p${k}` : extra[k - depth]!);
      return `if (ab) return undefined; return ${answer(leaf, at)};`;
    }
    let id = leafIds.get(leaf);
    if (id === undefined) leafIds.set(leaf, (id = leaves.push(leaf) - 1));
    if (!inChunk) rootLeafIds.add(id);
    else if (!chunkLeaves.includes(leaf)) chunkLeaves.push(leaf);
    let out = `best = ${leaf.key}; id = ${id};`;
    if (recognize === null) out += ' bp = state.bestPos;';
    for (let d = 0; d < depth; d++) out += ` ${b(d)} = p${d};`;
    extra.forEach((x, k) => {
      out += ` ${b(depth + k)} = ${x};`;
    });
    return out;
  };

  /** The code of a node whose text is matched, the path index being in variable `i`. */
  const visit = (node: Node, i: string, depth: number, pending: number): string => {
    slots = Math.max(slots, depth);
    let out = `if (${i} === len) {`;
    if (node.leaf !== null) out += ` if (best > ${node.leaf.key}) { ${take(node.leaf, depth, [], pending)} }`;
    out += ' } else {\n';
    // What this node tries after a kid's subtree, then after its globs.
    const param = node.param === null ? NONE : node.param.min;
    let patterns = NONE;
    if (node.patterns !== null) for (const edge of node.patterns) patterns = Math.min(patterns, edge.node.min);
    let globs = NONE;
    if (node.globs !== null) for (const glob of node.globs) globs = Math.min(globs, glob.key);
    let constrained = NONE;
    if (node.constrained !== null)
      for (const edge of node.constrained) constrained = Math.min(constrained, edge.node.min);
    const afterGlobs = Math.min(pending, patterns, constrained, param);
    if (node.kids !== null) {
      out += `switch (path.charCodeAt(${i})) {\n`;
      for (const kid of node.kids) {
        const j = `i${++vars}`;
        out += `case ${kid.first}: if (best > ${kid.min}${rest(kid.prefix, i)}) { const ${j} = ${i} + ${kid.prefix.length};\n${enter(kid, j, depth, Math.min(afterGlobs, globs))}\n} break;\n`;
      }
      out += '}\n';
    }
    if (node.globs !== null) {
      // As matchGlobs: the rest is scanned even when no glob can win, for its abnormal flags;
      // the scan is scanGlobRest's, forward: the last dot unless a slash follows it, the first line break.
      const dot = `d${++vars}`;
      out +=
        `{ let ${dot} = -1, lb = len; e = ${i}; do { c = path.charCodeAt(e); if (c < 48 || c === 63 || c > 8231) { ` +
        `if (c === 46) ${dot} = e; else if (c === 47) { ${dot} = -2; if (path.charCodeAt(e - 1) === 47) ${flag}; } ` +
        `else if (c === 10 || c === 13 || c === 8232 || c === 8233) { if (lb === len) lb = e; } else if (c === 35 || c === 37 || c === 63) ${flag}; } } while (++e < len);\n` +
        `if (path.charCodeAt(len - 1) === 47) ${flag}; g: {\n`;
      for (const glob of node.globs) {
        out += `if (best <= ${glob.key}) break g;\n`;
        if (glob.withFormat !== null) {
          out += `if (${dot} > ${i} && ${dot} < len - 1) { if (lb >= ${dot}) { ${take(glob.withFormat, depth, [i, dot, `${dot} + 1`, 'len'], afterGlobs)} break g; } }\n else `;
        }
        out += `if (lb >= len) { ${take(glob.leaf, depth, [i, 'len'], afterGlobs)} break g; }\n`;
      }
      out += '} }\n';
    }
    if (node.patterns !== null) {
      // Rare (`:a-:b` segments): handed to the interpreter, with the branch's state synced.
      out += `{ const pos = state.pos;`;
      for (let d = 0; d < depth; d++) out += ` pos[${d}] = p${d};`;
      // A leaf the interpreter takes there is known by `id = -2` (it is left in `state.best`).
      out += ` state.bestKey = best; walkPatterns(${ref(node.patterns)}, state, ${i}, ${depth}); if (state.bestKey !== best) { best = state.bestKey; id = -2; } }\n`;
    }
    if (node.constrained !== null) {
      // As walkConstrained: a non-empty run up to the next '/', which each constraint must match whole.
      const end = `s${++vars}`;
      slots = Math.max(slots, depth + 2);
      out +=
        `if (best > ${constrained}) { e = ${i}; do { c = path.charCodeAt(e); if (c === 47) break; ` +
        `if (c === 37 || c === 35 || c === 63) ${flag}; } while (++e < len);\n` +
        `if (e > ${i}) { const ${end} = e;\n`;
      const edges = node.constrained;
      edges.forEach((edge, k) => {
        // What is left after this edge: the later edges, then the param.
        let after = Math.min(pending, param);
        for (let l = k + 1; l < edges.length; l++) after = Math.min(after, edges[l]!.node.min);
        const check =
          edge.regexp === null ? '' : ` && (${ref(edge.regexp)}.lastIndex = ${i}, ${ref(edge.regexp)}.test(path))`;
        const j = `i${++vars}`;
        out += `if (best > ${edge.node.min}${check}) { p${depth} = ${i}; p${depth + 1} = ${end}; const ${j} = ${end};\n${enter(edge.node, j, depth + 2, after)}\n}\n`;
      });
      out += '} }\n';
    }
    if (node.param !== null) {
      const j = `i${++vars}`;
      slots = Math.max(slots, depth + 2); // the param's positions are set here, even when its node is a chunk's
      // A default-pattern param: a non-empty run up to the next '/' or '.' (as in walk).
      out +=
        `if (best > ${param}) { e = ${i}; do { c = path.charCodeAt(e); if (c < 48 || c === 63) { if (c === 47 || c === 46) break; ` +
        `if (c === 37 || c === 35 || c === 63) ${flag}; } } while (++e < len);\n` +
        `if (e > ${i}) { p${depth} = ${i}; p${depth + 1} = e; const ${j} = e;\n${enter(node.param, j, depth + 2, pending)}\n} }\n`;
    }
    return `${out}}`;
  };

  /**
   * The code of a node reached with the path index in `i`: inline, or, for the root of a cut
   * off subtree, a call of its function. That function takes the branch's positions and the
   * best key so far, and returns the id of a better leaf it recorded (-1: none, -2: one taken by
   * `walkPatterns`); a recognizer's returns a Match or undefined to return at once as they are.
   */
  const enter = (node: Node, i: string, depth: number, pending: number): string => {
    if (!chunkRoots.has(node)) return visit(node, i, depth, pending);
    const k = C.length;
    C.push((...args: unknown[]) => (C[k] = chunk(node, depth, pending))(...args));
    let params = '';
    for (let d = 0; d < depth; d++) params += `, p${d}`;
    const call = `r = C[${k}](path, state, len, ${i}, best${params});`;
    if (recognize === null) return `${call} if (r !== -1) { id = r; best = r === -2 ? state.bestKey : L[r].key; }`;
    return `${call} if (typeof r !== 'number') return ab ? undefined : r; if (r !== -1) { id = r; best = L[r].key; }`;
  };

  /** The function of a cut off subtree, reached with `depth` positions (see `enter`). */
  const chunk = (node: Node, depth: number, pending: number): Chunk => {
    slots = depth;
    used = new Set();
    inChunk = true;
    chunkLeaves = [];
    const body = visit(node, 'i0', depth, pending);
    let params = '';
    for (let d = 0; d < depth; d++) params += `, p${d}`;
    // A recognizer's chunk answers for a leaf it recorded that nothing left to try after it can
    // beat (`/posts/new`, recorded while the param beside it is tried), as the root does for its own.
    let answers = '';
    if (recognize !== null)
      for (const leaf of chunkLeaves)
        if (leaf.key < pending) answers += `case ${leafIds.get(leaf)}: return ${answer(leaf, b)};\n`;
    return compile(`return function chunk(path, state, len, i0, best${params}) {
  let id = -1, r, c = 0, e = 0, ${recognize === null ? 'bp = null' : 'ab = false'}${positionLocals(depth)};
${body}
  ${recognize === null ? '' : 'if (ab) return undefined; '}${answers === '' ? '' : `switch (id) {\n${answers}}\n`}return id;
};`) as Chunk;
  };

  /** `, p{from} = 0, ...` for the positions the current function keeps in locals. */
  const positionLocals = (from: number): string => {
    let locals = '';
    for (let d = from; d < slots; d++) locals += `, p${d} = 0`;
    return locals;
  };

  /** Compiles `source`, its constants bound as `const k{n} = K[n]` (a closure's constants fold, an array's loads stay). */
  const compile = (source: string): unknown => {
    let bindings = '';
    for (const k of used) bindings += `${bindings === '' ? 'const ' : ', '}k${k} = K[${k}]`;
    return new Function(
      'K',
      'L',
      'B',
      'C',
      'NONE',
      'walkPatterns',
      'dec',
      'state',
      'matchOf',
      `"use strict";\n${bindings};\n${source}`,
    )(constants, leaves, B, C, NONE, walkPatterns, decodeParam, recognize?.state, recognize?.matchOf);
  };

  const body = visit(root, 'i0', 0, NONE);
  let locals = positionLocals(0);
  let source: string;
  if (recognize === null) {
    // The winner's params, each leaf's object literal in its own case (a fixed shape per site).
    let build = chunked ? 'default: state.params = L[id].params(path, bp, decode); return state.best = L[id];\n' : '';
    rootLeafIds.forEach((id) => {
      const leaf = leaves[id]!;
      const defaults = defaultsOf(leaf.route);
      const D = defaults === null ? '' : ref(defaults);
      const plain = paramsLiteral(leaf.names, defaults, false, D, (k) => `bp[${k}]`);
      const decoding = paramsLiteral(leaf.names, defaults, true, D, (k) => `bp[${k}]`);
      const literal =
        plain === null || decoding === null
          ? `${ref(leaf)}.params(path, bp, decode)`
          : plain === decoding
            ? plain
            : `decode ? ${decoding} : ${plain}`;
      build += `case ${id}: state.params = ${literal}; return state.best = ${ref(leaf)};\n`;
    });
    source = `return function compiledWalk(path, state, decode) {
  state.path = path; state.abnormal = false; state.values = null; state.sp = 0;
  const len = path.length, i0 = 0;
  let best = NONE, id = -1, r, bp = null, c = 0, e = 0${locals};
${body}
  state.bestKey = best;
  if (id === -1) { state.params = null; return state.best = null; }
  bp = state.bestPos;
  if (id === -2) { state.params = state.best.params(path, bp, decode); return state.best; }
  switch (id) {
${build}  }
  return null;
};`;
  } else {
    if (!chunked) for (let d = 0; d < slots; d++) locals += `, b${d} = 0`;
    let build = chunked ? 'default: return matchOf(L[id].route, L[id].params(path, B, false));\n' : '';
    rootLeafIds.forEach((id) => {
      build += `case ${id}: return ${answer(leaves[id]!, b)};\n`;
    });
    // The statics compared whole, by length: `case 37: if (path === "/very/...") return ...`.
    const byLength = new Map<number, string>();
    for (const { path, leaf } of recognize.statics) {
      const test = `if (path === ${JSON.stringify(path)}) return ${answer(leaf, () => '')};\n`;
      byLength.set(path.length, (byLength.get(path.length) ?? '') + test);
    }
    let statics = '';
    for (const [length, tests] of byLength) statics += `case ${length}: ${tests}break;\n`;
    source = `return function recognize(path) {
  const len = path.length, i0 = 0;
  let best = NONE, id = -1, r, ab = false, c = 0, e = 0${locals};
${statics === '' ? '' : `switch (len) {\n${statics}}\n`}${body}
  if (ab) return undefined;
  if (id === -1) return null;
  switch (id) {
${build}  }
  return null;
};`;
  }
  try {
    return compile(source) as CompiledWalk | Recognizer;
  } catch {
    return null; // code generation disallowed: the interpreter walks
  }
}

/** The checks of `text` after its first char (known to match) at index `i`, as `&& ...` terms. */
function rest(text: string, i: string): string {
  const n = text.length;
  if (n === 1) return '';
  if (n > UNROLL) return ` && path.startsWith(${JSON.stringify(text)}, ${i})`;
  let out = ` && ${i} + ${n} <= len`;
  for (let k = 1; k < n; k++) out += ` && path.charCodeAt(${i} + ${k}) === ${text.charCodeAt(k)}`;
  return out;
}

/** Whether a segment regexp starts anywhere in the tree (a recognizer leaves those to the search). */
function hasPatterns(node: Node): boolean {
  if (node.patterns !== null) return true;
  if (node.kids !== null) for (const kid of node.kids) if (hasPatterns(kid)) return true;
  if (node.constrained !== null) for (const edge of node.constrained) if (hasPatterns(edge.node)) return true;
  return node.param !== null && hasPatterns(node.param);
}

/**
 * The nodes whose subtrees get generated functions of their own, so that no function holds
 * more than MAX_NODES nodes or nests deeper than MAX_DEPTH: bottom up, a node keeps its
 * children's subtrees inline; one over MAX_NODES cuts off those over THIN_NODES, then the
 * biggest of the rest while it is still over, then the deepest while too deep. Null for a tree
 * of more than MAX_TOTAL nodes, which stays interpreted.
 */
function partition(root: Node): Set<Node> | null {
  const cuts = new Set<Node>();
  let total = 0;
  const cut = (child: { node: Node; nodes: number }): number => {
    cuts.add(child.node);
    return child.nodes;
  };
  const measure = (node: Node): { node: Node; nodes: number; height: number } => {
    total++;
    const children: Node[] = node.kids === null ? [] : [...node.kids];
    if (node.constrained !== null) for (const edge of node.constrained) children.push(edge.node);
    if (node.param !== null) children.push(node.param);
    const kept = children.map(measure).sort((x, y) => y.nodes - x.nodes);
    let nodes = 1;
    for (const child of kept) nodes += child.nodes;
    if (nodes > MAX_NODES) {
      while (kept.length > 0 && kept[0]!.nodes > THIN_NODES) nodes -= cut(kept.shift()!);
      while (nodes > MAX_NODES) nodes -= cut(kept.shift()!);
    }
    kept.sort((x, y) => y.height - x.height);
    while (kept.length > 0 && kept[0]!.height >= MAX_DEPTH) nodes -= cut(kept.shift()!);
    return { node, nodes, height: 1 + (kept.length === 0 ? 0 : kept[0]!.height) };
  };
  measure(root);
  return total > MAX_TOTAL ? null : cuts;
}
