/**
 * The tree walk of tree.ts, compiled to JavaScript for one tree (the only generated matching
 * code of the package). A small tree becomes one function whose static text is constants in
 * `charCodeAt` comparisons, whose branches are nested blocks, and whose positions are locals:
 * no node objects, lookup tables or stack are touched while matching.
 *
 * The generated code does exactly what `walk` does, in the same order: at a node, the path's
 * end takes the node's leaf; otherwise the static kid of the next char is followed first, then
 * (once that subtree is done) the node's globs, segment regexps and param, each skipped when
 * its subtree's smallest key cannot beat the best match so far. A subtree is a nested block, so
 * coming back to a node is leaving a block: the interpreter's stack becomes the JS block nesting.
 *
 * Fallback: when code generation is disallowed (`--disallow-code-generation-from-strings`, a
 * CSP) or the tree is too large for a generated function to pay off, `compileWalk` returns null
 * and the matcher keeps the interpreter.
 */
import { decodeParam } from '../pattern/normalize.js';
import type { Route } from '../route.js';
import type { Match } from '../types.js';
import { defaultsOf, paramsLiteral, type Leaf } from './leaf.js';
import { NONE, scanGlobRest, walkPatterns, type Node, type SearchState } from './tree.js';

/**
 * Resets `state` and walks the whole tree over `path`: returns the best leaf, left in `state`
 * too, with its params already built in `state.params` (their values decoded when `decode`).
 */
export type CompiledWalk = (path: string, state: SearchState, decode: boolean) => Leaf | null;

/** Trees with more nodes stay interpreted: big functions are not optimized and cost memory. */
const MAX_NODES = 160;
/** Nested blocks deeper than this stay interpreted (the generated source would nest too far). */
const MAX_DEPTH = 48;
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
export function compileRecognizer(root: Node, state: SearchState, matchOf: MatchOf): Recognizer | null {
  return generate(root, { state, matchOf }) as Recognizer | null;
}

/** A request path (raw) → its Match, null (no route), undefined (the general search decides). */
export type Recognizer = (path: string) => Match | null | undefined;
/** The Match of a route and its params, for routes whose handler or action come from the params. */
export type MatchOf = (route: Route, params: Record<string, unknown>) => Match;

function generate(root: Node, recognize: { state: SearchState; matchOf: MatchOf } | null): CompiledWalk | Recognizer | null {
  if (!fits(root, 0, { nodes: 0 }, recognize !== null)) return null;
  const constants: unknown[] = [];
  const ref = (value: unknown): string => {
    let k = constants.indexOf(value);
    if (k === -1) k = constants.push(value) - 1;
    return `K[${k}]`;
  };
  let slots = 0;
  let vars = 0;
  let unsupported = false;
  /** Every leaf the walk can take, by the id the generated code records when taking it. */
  const leaves: Leaf[] = [];
  /** How the walk flags a char normalizing would change. */
  const flag = recognize === null ? 'state.abnormal = true' : 'ab = true';

  /** A recognizer's answer for `leaf`, its values' positions given as expressions. */
  const answer = (leaf: Leaf, at: (k: number) => string): string => {
    const defaults = defaultsOf(leaf.route);
    const params = paramsLiteral(leaf.names, defaults, false, defaults === null ? '' : ref(defaults), at);
    if (params === null) {
      unsupported = true; // a name an object literal cannot spell: the tree keeps the general search
      return 'undefined';
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
    let id = leaves.indexOf(leaf);
    if (id === -1) id = leaves.push(leaf) - 1;
    let out = `best = ${leaf.key}; id = ${id};`;
    const b = recognize === null ? (k: number) => `bp[${k}]` : (k: number) => `b${k}`;
    if (recognize === null) out += ' bp = state.bestPos;';
    for (let d = 0; d < depth; d++) out += ` ${b(d)} = p${d};`;
    extra.forEach((x, k) => (out += ` ${b(depth + k)} = ${x};`));
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
    const afterGlobs = Math.min(pending, patterns, param);
    if (node.kids !== null) {
      out += `switch (path.charCodeAt(${i})) {\n`;
      for (const kid of node.kids) {
        const j = `i${++vars}`;
        out += `case ${kid.first}: if (best > ${kid.min}${rest(kid.prefix, i)}) { const ${j} = ${i} + ${kid.prefix.length};\n${visit(kid, j, depth, Math.min(afterGlobs, globs))}\n} break;\n`;
      }
      out += '}\n';
    }
    if (node.globs !== null) {
      // As matchGlobs: the rest is scanned even when no glob can win, for its abnormal flags.
      const dot = `d${++vars}`;
      out +=
        recognize === null
          ? `{ const ${dot} = scanGlobRest(state, ${i}), lb = state.lineBreak; g: {\n`
          : `{ state.path = path; state.abnormal = false; const ${dot} = scanGlobRest(state, ${i}), lb = state.lineBreak; if (state.abnormal) ab = true; g: {\n`;
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
    if (node.param !== null) {
      const j = `i${++vars}`;
      // A default-pattern param: a non-empty run up to the next '/' or '.' (as in walk).
      out +=
        `if (best > ${param}) { e = ${i}; do { c = path.charCodeAt(e); if (c < 48 || c === 63) { if (c === 47 || c === 46) break; ` +
        `if (c === 37 || c === 35 || c === 63) ${flag}; } } while (++e < len);\n` +
        `if (e > ${i}) { p${depth} = ${i}; p${depth + 1} = e; const ${j} = e;\n${visit(node.param, j, depth + 2, pending)}\n} }\n`;
    }
    return out + '}';
  };

  const body = visit(root, 'i0', 0, NONE);
  let locals = '';
  for (let d = 0; d < slots; d++) locals += `, p${d} = 0`;
  let source: string;
  if (recognize === null) {
    // The winner's params, each leaf's object literal in its own case (a fixed shape per site).
    let build = '';
    leaves.forEach((leaf, id) => {
      const defaults = defaultsOf(leaf.route);
      const D = defaults === null ? '' : ref(defaults);
      const plain = paramsLiteral(leaf.names, defaults, false, D, (k) => `bp[${k}]`);
      const decoding = paramsLiteral(leaf.names, defaults, true, D, (k) => `bp[${k}]`);
      const literal = plain === null || decoding === null ? `${ref(leaf)}.params(path, bp, decode)` : plain === decoding ? plain : `decode ? ${decoding} : ${plain}`;
      build += `case ${id}: state.params = ${literal}; return state.best = ${ref(leaf)};\n`;
    });
    source = `"use strict";
return function compiledWalk(path, state, decode) {
  state.path = path; state.abnormal = false; state.values = null; state.sp = 0;
  const len = path.length, i0 = 0;
  let best = NONE, id = -1, bp = null, c = 0, e = 0${locals};
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
    for (let d = 0; d < slots; d++) locals += `, b${d} = 0`;
    let build = '';
    leaves.forEach((leaf, id) => (build += `case ${id}: return ${answer(leaf, (k) => `b${k}`)};\n`));
    if (unsupported) return null;
    source = `"use strict";
return function recognize(path) {
  const len = path.length, i0 = 0;
  let best = NONE, id = -1, ab = false, c = 0, e = 0${locals};
${body}
  if (ab) return undefined;
  switch (id) {
${build}  }
  return null;
};`;
  }
  try {
    return new Function('K', 'NONE', 'scanGlobRest', 'walkPatterns', 'dec', 'state', 'matchOf', source)(
      constants,
      NONE,
      scanGlobRest,
      walkPatterns,
      decodeParam,
      recognize?.state,
      recognize?.matchOf,
    ) as CompiledWalk | Recognizer;
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

/** Whether the tree is small and shallow enough to compile (and, for a recognizer, has no segment regexps). */
function fits(node: Node, depth: number, count: { nodes: number }, plain: boolean): boolean {
  if (++count.nodes > MAX_NODES || depth > MAX_DEPTH) return false;
  if (plain && node.patterns !== null) return false;
  if (node.kids !== null) for (const kid of node.kids) if (!fits(kid, depth + 1, count, plain)) return false;
  if (node.param !== null && !fits(node.param, depth + 1, count, plain)) return false;
  return true;
}
