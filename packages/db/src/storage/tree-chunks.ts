/**
 * Long one-line revision histories, stored so that a write appends to them (issue #31): the
 * engine-neutral part, what to store; each engine keeps the chunks in a table of its own
 * (./sqlite/tree-chunks.ts, ./postgres/tree-chunks.ts). A tree's text is opaque to
 * storage except here, where one shape is recognised: one line of revisions,
 * `pos:node.node.….node` (no quotes, brackets or semicolons: ../revisions/serialize.ts), the
 * history of every document only ever updated interactively. Stored whole, a document at the
 * default revs limit has a ~33 KB tree, rewritten on every update. From CHUNKED_FROM revisions
 * on, such a text is kept as immutable chunks of CHUNK_NODES nodes (numbered per document) and
 * a short head in the document's row:
 *
 *     head = "~" k ":" first ":" count ":" skip ":" rootPos ":" tail
 *
 * the tree being rootPos ":" (the nodes of chunks first … first+count-1, less the first `skip`)
 * "." tail; `k` is the document's key where an engine keys chunks by it (SQLite), 0 where not
 * (PostgreSQL keys them by database and id). A write that only stems the oldest revisions and
 * adds new ones on the leaf (the planner says so with `DocWrite.treeGrowth`) then moves `skip`,
 * drops chunks it has passed, appends to the tail and writes a new chunk once the tail is full;
 * any other write of such a document stores its text afresh. Chunks exist for a document exactly
 * while its head names them.
 */
import type { TreeGrowth } from './records.js';

/** Nodes per chunk: 48 nodes of ≤ 34 bytes stay in the row itself (a WITHOUT ROWID row of an 8 KiB page keeps ~2,000 bytes). */
export const CHUNK_NODES = 48;
/** Histories of this many revisions or more are chunked; shorter ones are stored as they are. */
const CHUNKED_FROM = 2 * CHUNK_NODES + 1;
/** The shortest text of CHUNKED_FROM nodes (`1:` and 33 bytes a node less the last dot): a quick test before splitting. */
const CHUNKED_FROM_LENGTH = 2 + CHUNKED_FROM * 33 - 1;
const TILDE = 0x7e;

export interface TreeHead {
  k: number;
  first: number;
  count: number;
  skip: number;
  rootPos: number;
  tail: string;
}

/**
 * What storing a tree takes: the value for the document's row, and the chunk changes, applied
 * in this order: every chunk of the document dropped (`dropAll`), chunks `drop[0]` ≤ n <
 * `drop[1]` dropped, `puts` inserted.
 */
export interface StoredTree {
  stored: string;
  dropAll: boolean;
  drop: [number, number] | undefined;
  puts: { n: number; nodes: string }[];
}

/** True when a stored tree value is a head (its text is in chunks). */
export function isHead(stored: string): boolean {
  return stored.charCodeAt(0) === TILDE;
}

/**
 * How to store the tree `text` of document `k`: `old` is the value stored now (undefined for a
 * new row), `growth` what the planner says the write did to the tree.
 */
export function planStoredTree(
  k: number,
  text: string,
  old: string | undefined,
  growth: TreeGrowth | undefined,
): StoredTree {
  // The usual write: a short history stored as it is, over a value that is not a head either.
  if (text.length < CHUNKED_FROM_LENGTH && (old === undefined || !isHead(old)))
    return { stored: text, dropAll: false, drop: undefined, puts: [] };
  let dropAll = false;
  if (old !== undefined && isHead(old)) {
    if (growth !== undefined) {
      const grown = grow(parseHead(old), text, growth);
      if (grown !== undefined) return { ...grown, dropAll: false };
    }
    dropAll = true;
  }
  return { ...chunk(k, text), dropAll, drop: undefined };
}

/** The tree text of `head`, given the nodes of its chunks first … first+count-1 in order. */
export function joinChunks(head: TreeHead, chunks: string[]): string {
  // `skip` < CHUNK_NODES: the stemmed revisions are all in the first chunk. One join, one copy.
  chunks[0] = chunks[0]!.slice(afterNodes(chunks[0]!, 0, head.skip));
  chunks.push(head.tail);
  return `${head.rootPos}:${chunks.join('.')}`;
}

/** `text` stored afresh: chunked when it is a long one-line history, else as it is. */
function chunk(k: number, text: string): { stored: string; puts: { n: number; nodes: string }[] } {
  if (text.length < CHUNKED_FROM_LENGTH || !isOneLine(text)) return { stored: text, puts: [] };
  const colon = text.indexOf(':');
  const nodes = text.slice(colon + 1).split('.');
  if (nodes.length < CHUNKED_FROM) return { stored: text, puts: [] };
  // The tail keeps 1 to CHUNK_NODES nodes.
  const count = Math.floor((nodes.length - 1) / CHUNK_NODES);
  const puts: { n: number; nodes: string }[] = [];
  for (let n = 0; n < count; n++)
    puts.push({ n, nodes: nodes.slice(n * CHUNK_NODES, (n + 1) * CHUNK_NODES).join('.') });
  const tail = nodes.slice(count * CHUNK_NODES).join('.');
  return { stored: formatHead({ k, first: 0, count, skip: 0, rootPos: Number(text.slice(0, colon)), tail }), puts };
}

/** The head after a write that stemmed `dropped` revisions and added `added`; undefined when `text` is not that. */
function grow(head: TreeHead, text: string, { dropped, added }: TreeGrowth): Omit<StoredTree, 'dropAll'> | undefined {
  const rootPos = head.rootPos + dropped;
  let skip = head.skip + dropped;
  // Stemming into the tail (a revs limit lowered below a chunk's worth) rewrites the tree.
  if (!(added >= 1) || skip >= head.count * CHUNK_NODES) return undefined;
  if (!text.startsWith(`${rootPos}:`)) return undefined;
  let start = text.length;
  for (let i = 0; i < added; i++) {
    start = text.lastIndexOf('.', start - 1);
    if (start < 0) return undefined;
  }
  const nodes = text.slice(start);
  if (isBranching(nodes)) return undefined;
  let tail = `${head.tail}${nodes}`;
  // The text must end with the stored tail and the new nodes (its middle is the stored chunks).
  if (!text.endsWith(tail)) return undefined;
  let { first, count } = head;
  let drop: [number, number] | undefined;
  const passed = Math.floor(skip / CHUNK_NODES);
  if (passed > 0) {
    drop = [first, first + passed];
    first += passed;
    count -= passed;
    skip -= passed * CHUNK_NODES;
  }
  const puts: { n: number; nodes: string }[] = [];
  // A full tail (more than a chunk) gives its first CHUNK_NODES nodes to a new chunk.
  for (let cut = afterNodes(tail, 0, CHUNK_NODES); cut < tail.length; cut = afterNodes(tail, 0, CHUNK_NODES)) {
    puts.push({ n: first + count, nodes: tail.slice(0, cut - 1) });
    count++;
    tail = tail.slice(cut);
  }
  return { stored: formatHead({ k: head.k, first, count, skip, rootPos, tail }), drop, puts };
}

/**
 * Whether `text` has what only a tree that is not one line of plain ids has: JSON-string ids'
 * quotes, branches' parentheses, second roots' semicolons. Three `indexOf`s, not the regex
 * /["(;]/: on a 1,000-revision text (~33 KB) ~2 µs against ~50 µs. revisions/linear-append.ts
 * asks it too.
 */
export function isBranching(text: string): boolean {
  return text.indexOf('"') >= 0 || text.indexOf('(') >= 0 || text.indexOf(';') >= 0;
}

/** True for a tree of one line of revisions with plain ids. */
function isOneLine(text: string): boolean {
  return !isBranching(text) && /^[0-9]+:/.test(text);
}

/** The index just after the `n`th "." from `from` in `nodes` (the start of node n), or its length when it has fewer. */
function afterNodes(nodes: string, from: number, n: number): number {
  let at = from;
  for (let i = 0; i < n; i++) {
    const dot = nodes.indexOf('.', at);
    if (dot < 0) return nodes.length;
    at = dot + 1;
  }
  return at;
}

function formatHead({ k, first, count, skip, rootPos, tail }: TreeHead): string {
  return `~${k}:${first}:${count}:${skip}:${rootPos}:${tail}`;
}

export function parseHead(stored: string): TreeHead {
  const fields: number[] = [];
  let at = 1;
  for (let i = 0; i < 5; i++) {
    const colon = stored.indexOf(':', at);
    fields.push(Number(stored.slice(at, colon)));
    at = colon + 1;
  }
  const [k, first, count, skip, rootPos] = fields as [number, number, number, number, number];
  return { k, first, count, skip, rootPos, tail: stored.slice(at) };
}
