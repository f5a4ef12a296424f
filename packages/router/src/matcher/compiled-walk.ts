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
const UNROLL = 12;

export function compileWalk(root: Node): CompiledWalk | null {
  if (!fits(root, 0, { nodes: 0 })) return null;
  const constants: unknown[] = [];
  const ref = (value: unknown): string => {
    let k = constants.indexOf(value);
    if (k === -1) k = constants.push(value) - 1;
    return `K[${k}]`;
  };
  let slots = 0;
  let vars = 0;
  /** Every leaf the walk can take, by the id the generated code records when taking it. */
  const leaves: Leaf[] = [];

  /** `state.bestPos` gets the `depth` positions of the current branch, then the extra ones given. */
  const take = (leaf: Leaf, depth: number, extra: string[] = []): string => {
    let id = leaves.indexOf(leaf);
    if (id === -1) id = leaves.push(leaf) - 1;
    let out = `best = ${leaf.key}; id = ${id}; bp = state.bestPos;`;
    for (let d = 0; d < depth; d++) out += ` bp[${d}] = p${d};`;
    extra.forEach((x, k) => (out += ` bp[${depth + k}] = ${x};`));
    slots = Math.max(slots, depth + extra.length);
    return out;
  };

  /** The code of a node whose text is matched, the path index being in variable `i`. */
  const visit = (node: Node, i: string, depth: number): string => {
    slots = Math.max(slots, depth);
    let out = `if (${i} === len) {`;
    if (node.leaf !== null) out += ` if (best > ${node.leaf.key}) { ${take(node.leaf, depth)} }`;
    out += ' } else {\n';
    if (node.kids !== null) {
      out += `switch (path.charCodeAt(${i})) {\n`;
      for (const kid of node.kids) {
        const j = `i${++vars}`;
        out += `case ${kid.first}: if (best > ${kid.min}${rest(kid.prefix, i)}) { const ${j} = ${i} + ${kid.prefix.length};\n${visit(kid, j, depth)}\n} break;\n`;
      }
      out += '}\n';
    }
    if (node.globs !== null) {
      // As matchGlobs: the rest is scanned even when no glob can win, for its abnormal flags.
      const dot = `d${++vars}`;
      out += `{ const ${dot} = scanGlobRest(state, ${i}), lb = state.lineBreak; g: {\n`;
      for (const glob of node.globs) {
        out += `if (best <= ${glob.key}) break g;\n`;
        if (glob.withFormat !== null) {
          out += `if (${dot} > ${i} && ${dot} < len - 1) { if (lb >= ${dot}) { ${take(glob.withFormat, depth, [i, dot, `${dot} + 1`, 'len'])} break g; } }\n else `;
        }
        out += `if (lb >= len) { ${take(glob.leaf, depth, [i, 'len'])} break g; }\n`;
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
      const param = node.param;
      const j = `i${++vars}`;
      // A default-pattern param: a non-empty run up to the next '/' or '.' (as in walk).
      out +=
        `if (best > ${param.min}) { e = ${i}; do { c = path.charCodeAt(e); if (c < 48 || c === 63) { if (c === 47 || c === 46) break; ` +
        `if (c === 37 || c === 35 || c === 63) state.abnormal = true; } } while (++e < len);\n` +
        `if (e > ${i}) { p${depth} = ${i}; p${depth + 1} = e; const ${j} = e;\n${visit(param, j, depth + 2)}\n} }\n`;
    }
    return out + '}';
  };

  const body = visit(root, 'i0', 0);
  let locals = '';
  for (let d = 0; d < slots; d++) locals += `, p${d} = 0`;
  // The winner's params, each leaf's object literal in its own case (a fixed shape per site).
  let build = '';
  leaves.forEach((leaf, id) => {
    const defaults = defaultsOf(leaf.route);
    const D = defaults === null ? '' : ref(defaults);
    const plain = paramsLiteral(leaf.names, defaults, false, D, 'bp');
    const decoding = paramsLiteral(leaf.names, defaults, true, D, 'bp');
    const literal = plain === null || decoding === null ? `${ref(leaf)}.params(path, bp, decode)` : plain === decoding ? plain : `decode ? ${decoding} : ${plain}`;
    build += `case ${id}: state.params = ${literal}; return state.best = ${ref(leaf)};\n`;
  });
  const source = `"use strict";
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
  try {
    return new Function('K', 'NONE', 'scanGlobRest', 'walkPatterns', 'dec', source)(constants, NONE, scanGlobRest, walkPatterns, decodeParam) as CompiledWalk;
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

/** Whether the tree is small and shallow enough to compile. */
function fits(node: Node, depth: number, count: { nodes: number }): boolean {
  if (++count.nodes > MAX_NODES || depth > MAX_DEPTH) return false;
  if (node.kids !== null) for (const kid of node.kids) if (!fits(kid, depth + 1, count)) return false;
  if (node.param !== null && !fits(node.param, depth + 1, count)) return false;
  return true;
}
