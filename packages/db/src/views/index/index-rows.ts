/**
 * The rows a mapped document puts in a view group's index: per emitted `[key, value]`, the row
 * key (collation bytes of the key and the doc id, ../../collation/encode.ts), the row value the
 * tree keeps, and the document's back-index entry for it (./back-index.ts).
 */
import { collateRaw, encodeRowKey, encodeRowKeyScratch } from '../../collation/index.js';
import { isSmallRow, type BackEntry, type BackEntryWriter } from './back-index.js';
import { isDesignId } from '../../documents/doc-id.js';
import { partitionOf } from '../../documents/partition.js';
import { partitionPrefix } from './partition-rows.js';
import { rowJson } from './row-json.js';
import type { ViewDef } from '../design.js';
import type { RowValue } from './row-tree.js';

/** What the map step produced for one changed document: rows per view, or none (deleted). */
export interface MappedDoc {
  id: string;
  /** `rows[view]` = the `[key, value]` pairs emitted; undefined when the doc has no rows any more. */
  rows: ReadonlyArray<ReadonlyArray<readonly [unknown, unknown]>> | undefined;
  /** The sequence of the change (a view's update_seq is that of the last change to its rows). */
  seq?: number;
}

export type RowSink = (view: number, key: Buffer, value: RowValue) => void;

/**
 * The row key a document's only row in a view had before, if its key JSON was this one (the
 * row key is a function of the key and the doc id: no need to encode it again).
 */
export type KnownRowKey = (view: number, keyJson: string) => Buffer | undefined;

/** Calls `out` for each row of a mapped doc (with its row key); returns its back-index entries. */
export function rowsOf(views: readonly ViewDef[], doc: MappedDoc, out: RowSink, known?: KnownRowKey): BackEntry[] {
  const back: BackEntry[] = [];
  const all = doc.rows;
  if (all === undefined) return back;
  // A partitioned view's row keys start with the document's partition (./partition-rows.ts); a
  // document without one (a design document) has no rows there.
  let prefix: Buffer | undefined | null;
  for (let view = 0; view < all.length; view++) {
    const rows = all[view];
    if (rows === undefined || rows.length === 0) continue;
    const { raw, partitioned } = views[view]!;
    if (partitioned) {
      if (prefix === undefined) {
        const partition = isDesignId(doc.id) ? undefined : partitionOf(doc.id);
        prefix = partition === undefined ? null : partitionPrefix(partition);
      }
      if (prefix === null) continue;
    }
    if (rows.length === 1) {
      // One row (the usual case): no duplicates to tell apart.
      const [key, value] = rows[0]!;
      const keyJson = rowJson(key);
      const rowKey = known?.(view, keyJson) ?? rowKeyOf(key, doc.id, raw, partitioned ? prefix! : undefined);
      const valueJson = rowJson(value ?? null);
      out(view, rowKey, [keyJson, doc.id, valueJson]);
      back.push(isSmallRow(keyJson, valueJson) ? [view, rowKey, keyJson, valueJson] : [view, rowKey]);
      continue;
    }
    const rowKeys: Buffer[] = new Array(rows.length);
    for (let n = 0; n < rows.length; n++) {
      rowKeys[n] = rowKeyOf(rows[n]![0], doc.id, raw, partitioned ? prefix! : undefined);
    }
    // A document may emit the same key twice: the rows after the first of a key get a suffix
    // that keeps them distinct (never 0xFF, which range bounds rely on), and CouchDB's order
    // among them: by value in Erlang term order (couch_mrview_updater sorts a doc's emits and
    // keeps a key's values as one sorted `dups` entry), which is the raw collation.
    withDuplicateSuffixes(rows, rowKeys);
    for (let n = 0; n < rows.length; n++) {
      const [key, value] = rows[n]!;
      const keyJson = rowJson(key);
      const rowKey = rowKeys[n]!;
      const valueJson = rowJson(value ?? null);
      out(view, rowKey, [keyJson, doc.id, valueJson]);
      back.push(isSmallRow(keyJson, valueJson) ? [view, rowKey, keyJson, valueJson] : [view, rowKey]);
    }
  }
  return back;
}

/** Where an index build's rows go: `rowKey` is a view valid only during the call (copy to keep). */
export type BuildRowSink = (view: number, rowKey: Buffer, keyJson: string, docId: string, valueJson: string) => void;

/**
 * `rowsOf` for an index build: each row's key is encoded into the encoder's own buffer and
 * handed to `out` and `back` (the document's back-index entry, format 2) at once, which copy it:
 * no Buffer, row value or entry array per row. A document with several rows in a view, or rows
 * in a partitioned view, goes through `rowsOf`.
 */
export function buildRowsOf(views: readonly ViewDef[], doc: MappedDoc, out: BuildRowSink, back: BackEntryWriter): void {
  back.clear();
  const all = doc.rows;
  if (all === undefined) return;
  if (!oneRowPerView(views, doc)) {
    for (const [v, rowKey, keyJson, valueJson] of rowsOf(views, doc, (at, key, [k, id, value]) =>
      out(at, key, k, id, value),
    )) {
      back.append(v, rowKey, keyJson, valueJson);
    }
    return;
  }
  const id = doc.id;
  for (let view = 0; view < all.length; view++) {
    const rows = all[view];
    if (rows === undefined || rows.length === 0) continue;
    // Indexed, not destructured: an iterator per row otherwise.
    const row = rows[0]!;
    const key = row[0];
    const keyJson = rowJson(key);
    const valueJson = rowJson(row[1] ?? null);
    const rowKey = encodeRowKeyScratch(key, id, views[view]!.raw);
    out(view, rowKey, keyJson, id, valueJson);
    if (isSmallRow(keyJson, valueJson)) back.append(view, rowKey, keyJson, valueJson);
    else back.append(view, rowKey, undefined, undefined);
  }
}

/**
 * Whether a document has at most one row in each view and none in a partitioned view (the usual
 * document): its rows' keys need no duplicate suffixes and no partition prefix, so a build and
 * an update take them one by one without `rowsOf`.
 */
export function oneRowPerView(views: readonly ViewDef[], doc: MappedDoc): boolean {
  const all = doc.rows;
  if (all === undefined) return true;
  for (let view = 0; view < all.length; view++) {
    const rows = all[view];
    if (rows !== undefined && (rows.length > 1 || (rows.length === 1 && views[view]!.partitioned))) return false;
  }
  return true;
}

/** A row's key: collation bytes of the key and doc id, after the partition's prefix in a partitioned view. */
function rowKeyOf(key: unknown, docId: string, raw: boolean, prefix: Buffer | undefined): Buffer {
  const bytes = encodeRowKey(key, docId, raw);
  return prefix === undefined ? bytes : Buffer.concat([prefix, bytes]);
}

/** Gives the rows of each repeated row key, by value in raw order, suffixes 1, 2, ... (the first none). */
function withDuplicateSuffixes(rows: ReadonlyArray<readonly [unknown, unknown]>, rowKeys: Buffer[]): void {
  let groups: Map<string, number[]> | undefined;
  const first = new Map<string, number>();
  for (let n = 0; n < rows.length; n++) {
    const bytes = rowKeys[n]!.toString('latin1');
    const at = first.get(bytes);
    if (at === undefined) {
      first.set(bytes, n);
      continue;
    }
    groups ??= new Map();
    const group = groups.get(bytes);
    if (group === undefined) groups.set(bytes, [at, n]);
    else group.push(n);
  }
  if (groups === undefined) return;
  for (const group of groups.values()) {
    const base = rowKeys[group[0]!]!;
    // Stable: equal values keep their emit order.
    const sorted = [...group].sort((a, b) => collateRaw(rows[a]![1] ?? null, rows[b]![1] ?? null) || a - b);
    sorted.forEach((n, rank) => {
      rowKeys[n] = rank === 0 ? base : Buffer.concat([base, duplicateSuffix(rank)]);
    });
  }
}

/** 0x01 then the rank among a key's duplicates as a u32: orders them, never starts with 0xFF. */
function duplicateSuffix(n: number): Buffer {
  const suffix = Buffer.allocUnsafe(5);
  suffix[0] = 0x01;
  suffix.writeUInt32BE(n, 1);
  return suffix;
}
