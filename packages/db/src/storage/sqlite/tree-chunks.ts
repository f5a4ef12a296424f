/**
 * Long one-line revision histories, stored so that a write appends to them (issue #31). A tree's
 * text is opaque to storage except here, where one shape is recognised: one line of revisions,
 * `pos:node.node.….node` (no quotes, brackets or semicolons: ../../revisions/serialize.ts), the
 * history of every document only ever updated interactively. Stored whole, a document at the
 * default revs limit has a ~33 KB tree, rewritten on every update (overflow pages, each a WAL
 * frame and a write(2) of its own). From CHUNKED_FROM revisions on, such a text is kept as
 * immutable rows of CHUNK_NODES nodes in `tree_chunks` and a short head in `docs.tree`:
 *
 *     head = "~" k ":" first ":" count ":" skip ":" rootPos ":" tail
 *
 * the tree being rootPos ":" (the nodes of chunks first … first+count-1, less the first `skip`)
 * "." tail. A write that only stems the oldest revisions and adds new ones on the leaf (the
 * planner says so with `DocWrite.treeGrowth`) then moves `skip`, drops chunks it has passed,
 * appends to the tail and writes a new chunk once the tail is full; any other write of such a
 * document stores its text afresh. Chunks exist for a document exactly while its head names them.
 */
import type Database from 'better-sqlite3';
import type { TreeGrowth } from '../records.js';

/** Nodes per chunk: 48 nodes of ≤ 34 bytes stay in the row itself (a WITHOUT ROWID row of an 8 KiB page keeps ~2,000 bytes). */
const CHUNK_NODES = 48;
/** Histories of this many revisions or more are chunked; shorter ones are stored as they are. */
const CHUNKED_FROM = 2 * CHUNK_NODES + 1;
/** The shortest text of CHUNKED_FROM nodes (`1:` and 33 bytes a node less the last dot): a quick test before splitting. */
const CHUNKED_FROM_LENGTH = 2 + CHUNKED_FROM * 33 - 1;
const TILDE = 0x7e;
/** Documents whose text is kept with their head (the documents just written: the next update reads it again). */
const KEPT_TEXTS = 32;

export const TREE_CHUNKS_SCHEMA = `
CREATE TABLE IF NOT EXISTS tree_chunks (
  doc INTEGER NOT NULL,
  n INTEGER NOT NULL,
  nodes TEXT NOT NULL,
  PRIMARY KEY (doc, n)
) WITHOUT ROWID;
`;

interface Head {
  k: number;
  first: number;
  count: number;
  skip: number;
  rootPos: number;
  tail: string;
}

export class TreeChunks {
  private readonly stmtRead: Database.Statement;
  private readonly stmtPut: Database.Statement;
  private readonly stmtDropRange: Database.Statement;
  private readonly stmtDropAll: Database.Statement;
  /** The text of a chunked tree by document, with the head it belongs to, for the last KEPT_TEXTS written (oldest first). */
  private readonly kept = new Map<number, { head: string; text: string }>();

  constructor(db: Database.Database) {
    this.stmtRead = db.prepare('SELECT nodes FROM tree_chunks WHERE doc = ? AND n >= ? AND n < ? ORDER BY n').pluck();
    this.stmtPut = db.prepare('INSERT INTO tree_chunks (doc, n, nodes) VALUES (?, ?, ?)');
    this.stmtDropRange = db.prepare('DELETE FROM tree_chunks WHERE doc = ? AND n >= ? AND n < ?');
    this.stmtDropAll = db.prepare('DELETE FROM tree_chunks WHERE doc = ?');
  }

  /** The tree text a stored `docs.tree` value stands for. */
  text(stored: string): string {
    if (stored.charCodeAt(0) !== TILDE) return stored;
    const head = parseHead(stored);
    const kept = this.kept.get(head.k);
    if (kept !== undefined && kept.head === stored) return kept.text;
    const chunks = this.stmtRead.all(head.k, head.first, head.first + head.count) as string[];
    if (chunks.length !== head.count) throw new Error(`tree_chunks: document ${head.k} lacks chunks of its tree`);
    // `skip` < CHUNK_NODES: the stemmed revisions are all in the first chunk. One join, one copy.
    chunks[0] = chunks[0]!.slice(afterNodes(chunks[0]!, 0, head.skip));
    chunks.push(head.tail);
    return `${head.rootPos}:${chunks.join('.')}`;
  }

  /**
   * The value to store in `docs.tree` of document `k` for the tree `text`, its chunks written:
   * `old` is the value stored now (undefined for a new row), `growth` what the planner says the
   * write did to the tree.
   */
  store(k: number, text: string, old: string | undefined, growth: TreeGrowth | undefined): string {
    this.kept.delete(k);
    let stored: string | undefined;
    if (old !== undefined && old.charCodeAt(0) === TILDE) {
      if (growth !== undefined) stored = this.grow(parseHead(old), text, growth);
      if (stored === undefined) this.stmtDropAll.run(k);
    }
    stored ??= this.chunk(k, text);
    // Kept for the next read (a transaction that fails leaves the old head stored, which this one is not).
    if (stored !== text) {
      this.kept.set(k, { head: stored, text });
      if (this.kept.size > KEPT_TEXTS) this.kept.delete(this.kept.keys().next().value!);
    }
    return stored;
  }

  /** Drops the chunks of a document whose row goes. */
  drop(k: number): void {
    this.kept.delete(k);
    this.stmtDropAll.run(k);
  }

  /** `text` stored afresh: chunked when it is a long one-line history, else as it is. */
  private chunk(k: number, text: string): string {
    if (text.length < CHUNKED_FROM_LENGTH || !isOneLine(text)) return text;
    const colon = text.indexOf(':');
    const nodes = text.slice(colon + 1).split('.');
    if (nodes.length < CHUNKED_FROM) return text;
    // The tail keeps 1 to CHUNK_NODES nodes.
    const count = Math.floor((nodes.length - 1) / CHUNK_NODES);
    for (let n = 0; n < count; n++) {
      this.stmtPut.run(k, n, nodes.slice(n * CHUNK_NODES, (n + 1) * CHUNK_NODES).join('.'));
    }
    const tail = nodes.slice(count * CHUNK_NODES).join('.');
    return formatHead({ k, first: 0, count, skip: 0, rootPos: Number(text.slice(0, colon)), tail });
  }

  /** The head after a write that stemmed `dropped` revisions and added `added`; undefined when `text` is not that. */
  private grow(head: Head, text: string, { dropped, added }: TreeGrowth): string | undefined {
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
    if (BRANCHING.test(nodes)) return undefined;
    let tail = `${head.tail}${nodes}`;
    // The text must end with the stored tail and the new nodes (its middle is the stored chunks).
    if (!text.endsWith(tail)) return undefined;
    let { first, count } = head;
    const passed = Math.floor(skip / CHUNK_NODES);
    if (passed > 0) {
      this.stmtDropRange.run(head.k, first, first + passed);
      first += passed;
      count -= passed;
      skip -= passed * CHUNK_NODES;
    }
    // A full tail (more than a chunk) gives its first CHUNK_NODES nodes to a new chunk.
    for (let cut = afterNodes(tail, 0, CHUNK_NODES); cut < tail.length; cut = afterNodes(tail, 0, CHUNK_NODES)) {
      this.stmtPut.run(head.k, first + count, tail.slice(0, cut - 1));
      count++;
      tail = tail.slice(cut);
    }
    return formatHead({ k: head.k, first, count, skip, rootPos, tail });
  }
}

/** What only a tree that is not one line of plain ids has: JSON-string ids, branches, second roots. */
const BRANCHING = /["(;]/;

/** True for a tree of one line of revisions with plain ids. */
function isOneLine(text: string): boolean {
  return !BRANCHING.test(text) && /^[0-9]+:/.test(text);
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

function formatHead({ k, first, count, skip, rootPos, tail }: Head): string {
  return `~${k}:${first}:${count}:${skip}:${rootPos}:${tail}`;
}

function parseHead(stored: string): Head {
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
