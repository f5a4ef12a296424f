/**
 * The rows a mapped document puts in a view group's index: per emitted `[key, value]`, the row
 * key (collation bytes of the key and the doc id, ./collation/encode.ts), the row value the
 * tree keeps, and the document's back-index entry for it (./back-index.ts).
 */
import { encodeRowKey } from './collation/index.js';
import { SMALL_ROW, type BackEntry } from './back-index.js';
import type { ViewDef } from './design.js';
import type { RowValue } from './row-tree.js';

/** What the map step produced for one changed document: rows per view, or none (deleted). */
export interface MappedDoc {
  id: string;
  /** `rows[view]` = the `[key, value]` pairs emitted; undefined when the doc has no rows any more. */
  rows: ReadonlyArray<ReadonlyArray<readonly [unknown, unknown]>> | undefined;
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
  for (let view = 0; view < all.length; view++) {
    const rows = all[view];
    if (rows === undefined || rows.length === 0) continue;
    const raw = views[view]!.raw;
    // A document may emit the same key twice: the later rows get a suffix that keeps
    // them distinct and in emit order (never 0xFF, which range bounds rely on).
    let seen: Set<string> | undefined;
    for (let n = 0; n < rows.length; n++) {
      const [key, value] = rows[n]!;
      const keyJson = JSON.stringify(key);
      let rowKey = (rows.length === 1 ? known?.(view, keyJson) : undefined) ?? encodeRowKey(key, doc.id, raw);
      if (rows.length > 1) {
        seen ??= new Set();
        const bytes = rowKey.toString('latin1');
        if (seen.has(bytes)) rowKey = Buffer.concat([rowKey, duplicateSuffix(n)]);
        else seen.add(bytes);
      }
      const valueJson = JSON.stringify(value ?? null);
      out(view, rowKey, [keyJson, doc.id, valueJson]);
      back.push(keyJson.length + valueJson.length <= SMALL_ROW ? [view, rowKey, keyJson, valueJson] : [view, rowKey]);
    }
  }
  return back;
}

/** 0x01 then the emit index as a u32: orders duplicates by emit, never starts with 0xFF. */
function duplicateSuffix(n: number): Buffer {
  const suffix = Buffer.allocUnsafe(5);
  suffix[0] = 0x01;
  suffix.writeUInt32BE(n, 1);
  return suffix;
}
