/**
 * The PostgreSQL engine's `tree_chunks`: where long one-line revision histories are kept so that
 * an update writes a short head and, once every CHUNK_NODES updates, a chunk, instead of a ~33 KB
 * TOASTed `tree` (what to store: ../tree-chunks.ts). Chunks are keyed by database, document id
 * and number (a head's `k` is 0). Reads get the whole text from PostgreSQL (`treeColumn`: the
 * `tree_text` function joins a head's chunks), so every statement that reads `tree` answers the
 * text as before; update() also reads the stored value (`stored_tree`) to plan from.
 */
import type { PoolClient } from 'pg';
import type { TreeGrowth } from '../records.js';
import { CHUNK_NODES, planStoredTree } from '../tree-chunks.js';
import type { DbTarget } from './statements.js';

/**
 * Migration 12: the chunks' table, the function that joins a head's chunks, and every long
 * one-line history stored so far converted to chunks (as `planStoredTree` stores a text afresh).
 * Runs again harmlessly (a schema put back to an earlier version in tests): heads are left alone.
 */
export function treeChunksMigration(s: string): string {
  return `
    CREATE TABLE IF NOT EXISTS ${s}.tree_chunks (
      db_id bigint NOT NULL,
      id text COLLATE "C" NOT NULL,
      n integer NOT NULL,
      nodes text NOT NULL,
      PRIMARY KEY (db_id, id, n)
    );
    -- The text a head stands for: rootPos ":" the nodes of its chunks less the first skip, "." tail.
    CREATE OR REPLACE FUNCTION ${s}.tree_text(p_db bigint, p_id text, p_head text) RETURNS text
    LANGUAGE sql STABLE PARALLEL SAFE AS $f$
      SELECT split_part(p_head, ':', 5) || ':' ||
        (SELECT string_agg(CASE WHEN c.n = h.first THEN array_to_string((string_to_array(c.nodes, '.'))[h.skip + 1:], '.')
                                ELSE c.nodes END, '.' ORDER BY c.n)
           FROM ${s}.tree_chunks c WHERE c.db_id = p_db AND c.id = p_id AND c.n >= h.first AND c.n < h.first + h.count)
        || '.' || regexp_replace(p_head, '^~([0-9]+:){5}', '')
      FROM (SELECT split_part(p_head, ':', 2)::int AS first, split_part(p_head, ':', 3)::int AS count,
                   split_part(p_head, ':', 4)::int AS skip) h
    $f$;
    CREATE TEMP TABLE long_trees ON COMMIT DROP AS
      SELECT db_id, id, root_pos, nodes, (cardinality(nodes) - 1) / ${CHUNK_NODES} AS count
      FROM (SELECT db_id, id, split_part(tree, ':', 1) AS root_pos,
                   string_to_array(substr(tree, strpos(tree, ':') + 1), '.') AS nodes
            FROM ${s}.docs WHERE length(tree) >= ${2 + (2 * CHUNK_NODES + 1) * 33 - 1} AND tree ~ '^[0-9]+:[^"(;]*$') t
      WHERE cardinality(nodes) >= ${2 * CHUNK_NODES + 1};
    INSERT INTO ${s}.tree_chunks (db_id, id, n, nodes)
      SELECT db_id, id, n, array_to_string(nodes[n * ${CHUNK_NODES} + 1 : (n + 1) * ${CHUNK_NODES}], '.')
      FROM long_trees, generate_series(0, count - 1) AS n;
    UPDATE ${s}.docs d SET tree = '~0:0:' || l.count || ':0:' || l.root_pos || ':' ||
        array_to_string(l.nodes[l.count * ${CHUNK_NODES} + 1 :], '.')
      FROM long_trees l WHERE d.db_id = l.db_id AND d.id = l.id;
    `;
}

/** The `tree` column's text in a statement on `docs` (as `alias`, or unqualified). */
export function treeColumn(s: string, alias?: string): string {
  return `${treeText(s, alias)} AS tree`;
}

/** The expression of a `docs` row's tree text (`treeColumn` without its name). */
export function treeText(s: string, alias?: string): string {
  const p = alias === undefined ? '' : `${alias}.`;
  return `CASE WHEN left(${p}tree, 1) = '~' THEN ${s}.tree_text(${p}db_id, ${p}id, ${p}tree) ELSE ${p}tree END`;
}

/**
 * The chunk changes of one write transaction's documents, gathered in write order and applied
 * with as few statements as keep that order (usually none: an update writes a chunk once every
 * CHUNK_NODES updates).
 */
export class TreeChunkWrites {
  private dropAllIds: string[] = [];
  private dropIds: string[] = [];
  private dropFrom: number[] = [];
  private dropTo: number[] = [];
  private putIds: string[] = [];
  private putNs: number[] = [];
  private putNodes: string[] = [];
  /** Statements waiting for their turn: a drop after a put of the same document goes after it. */
  private readonly flushed: { drops: unknown[][]; puts: unknown[][] }[] = [];
  /** The value last stored this transaction, by id (a later write of a document in the batch plans from it). */
  private readonly storedNow = new Map<string, string>();

  /** The value to store in `docs.tree` for `text`; `old` the stored value read (undefined: no row). */
  store(id: string, text: string, old: string | undefined, growth: TreeGrowth | undefined): string {
    const previous = this.storedNow.has(id) ? this.storedNow.get(id) : old;
    const { stored, dropAll, drop, puts } = planStoredTree(0, text, previous, growth);
    if ((dropAll || drop !== undefined) && this.putIds.includes(id)) this.cut();
    if (dropAll) this.dropAllIds.push(id);
    if (drop !== undefined) {
      this.dropIds.push(id);
      this.dropFrom.push(drop[0]);
      this.dropTo.push(drop[1]);
    }
    for (const { n, nodes } of puts) {
      this.putIds.push(id);
      this.putNs.push(n);
      this.putNodes.push(nodes);
    }
    this.storedNow.set(id, stored);
    return stored;
  }

  /** The document's row goes: its chunks with it. */
  forget(id: string): void {
    if (this.putIds.includes(id)) this.cut();
    this.dropAllIds.push(id);
    this.storedNow.delete(id);
  }

  /** Whether no chunk changes were gathered (the write stores its trees in the rows alone). */
  isEmpty(): boolean {
    return this.flushed.length === 0 && this.dropAllIds.length + this.dropIds.length + this.putIds.length === 0;
  }

  /** Applies the gathered changes on `client` (inside the write's transaction). */
  async apply(client: PoolClient, db: DbTarget): Promise<void> {
    this.cut();
    for (const { drops, puts } of this.flushed) {
      if (drops.length > 0) await client.query({ ...db.sql.dropTreeChunks, values: [db.dbId, ...drops] });
      if (puts.length > 0) await client.query({ ...db.sql.putTreeChunks, values: [db.dbId, ...puts] });
    }
    this.flushed.length = 0;
  }

  private cut(): void {
    const drops =
      this.dropAllIds.length + this.dropIds.length > 0
        ? [this.dropAllIds, this.dropIds, this.dropFrom, this.dropTo]
        : [];
    const puts = this.putIds.length > 0 ? [this.putIds, this.putNs, this.putNodes] : [];
    if (drops.length + puts.length > 0) this.flushed.push({ drops, puts });
    this.dropAllIds = [];
    this.dropIds = [];
    this.dropFrom = [];
    this.dropTo = [];
    this.putIds = [];
    this.putNs = [];
    this.putNodes = [];
  }
}

/** Texts of chunked trees kept per database (the last written, oldest first). */
const KEPT_TEXTS = 32;

/** A chunked tree's text as this node wrote it: its row's sequence and stored head then. */
interface KeptText {
  seq: number;
  head: string;
  text: string;
}

/**
 * The texts of the chunked trees this node wrote last in one database, so that the next update
 * of such a document reads its short head and not the whole text (~33 KB joined from its chunks
 * by `tree_text`, most of an update's work in PostgreSQL). A text is used only while the row
 * still has the sequence and head it was written with: any later write, on any node, gives the
 * row a new sequence; compaction (which keeps the sequence) stores a changed text under a
 * changed head. Kept only once the write's transaction committed.
 */
export class KeptTreeTexts {
  private readonly kept = new Map<string, KeptText>();

  /** Remembers what a committed write stored (`stored` a head) for the document `id` (well-formed). */
  keep(id: string, seq: number, stored: string, text: string): void {
    this.kept.delete(id);
    if (stored === text) return;
    this.kept.set(id, { seq, head: stored, text });
    if (this.kept.size > KEPT_TEXTS) this.kept.delete(this.kept.keys().next().value!);
  }

  /** Forgets documents whose trees changed in ways a head may not show (purge). */
  forget(ids: Iterable<string>): void {
    for (const id of ids) this.kept.delete(id);
  }

  /**
   * What a read of the documents `ids` (well-formed) is given of the texts kept here (the
   * `readForUpdateKept` parameters), and the texts to put back into its rows (`withKeptTexts`):
   * those kept now, as a write that ends meanwhile may replace or drop them.
   */
  read(ids: readonly string[]): { ids: string[]; seqs: number[]; heads: string[]; texts: ReadonlyMap<string, string> } {
    const out = { ids: [] as string[], seqs: [] as number[], heads: [] as string[], texts: new Map<string, string>() };
    for (const id of ids) {
      const kept = this.kept.get(id);
      if (kept === undefined) continue;
      out.ids.push(id);
      out.seqs.push(kept.seq);
      out.heads.push(kept.head);
      out.texts.set(id, kept.text);
    }
    return out;
  }
}

/** Rows read by `readForUpdateKept`, their NULL trees put back from `KeptTreeTexts.read`'s `texts`. */
export function withKeptTexts<Row extends { id: string; tree: string }>(
  rows: Row[],
  texts: ReadonlyMap<string, string>,
): Row[] {
  if (texts.size === 0) return rows;
  for (const row of rows) {
    if (row.tree !== null) continue;
    const text = texts.get(row.id);
    if (text === undefined) throw new Error(`tree of ${row.id}: no text kept`);
    row.tree = text;
  }
  return rows;
}
