/**
 * An incremental update of a view group's index, staged before it is written: mapped documents
 * are added batch by batch (each diffed against its back-index entry while the sandbox maps the
 * next batch), then ./view-index.ts `commit` writes all staged changes in one transaction.
 *
 * A row found again under the same view and row key with the same key and value JSON (kept in
 * the back-index for small rows) is left alone: its view's tree is not even read. A document
 * that emits exactly what it emitted before writes nothing at all.
 */
import { encodeRowKeyScratch } from '../../collation/index.js';
import {
  BackEntryWriter,
  BackRowScan,
  decodeBackIndex,
  encodeBackIndex,
  FIELDS,
  isSmallRow,
  type BackEntry,
} from './back-index.js';
import type { ViewDef } from '../design.js';
import { oneRowPerView, rowsOf, type MappedDoc } from './index-rows.js';
import { rowJson } from './row-json.js';
import type { RowEntry } from './row-tree.js';

export class IndexUpdate {
  /** Per view: rows to insert (or replace) and row keys to remove. */
  readonly inserts: RowEntry[][];
  readonly removes: Buffer[][];
  /** Back-index writes: a new entry, or undefined to delete the document's entry. */
  readonly backWrites = new Map<string, Buffer | undefined>();
  /** Per view, the latest sequence of a staged document that changes its rows (0: none). */
  readonly changedSeqs: number[];
  private readonly ids = new Set<string>();

  constructor(
    private readonly views: readonly ViewDef[],
    private readonly readBack: (docs: readonly { id: string }[]) => Map<string, Uint8Array>,
    private readonly format: 1 | 2,
  ) {
    this.inserts = views.map(() => []);
    this.removes = views.map(() => []);
    this.changedSeqs = views.map(() => 0);
  }

  /** Documents added so far. */
  get size(): number {
    return this.ids.size;
  }

  /** Whether a document was added already: its back-index entry read now would be stale. */
  has(id: string): boolean {
    return this.ids.has(id);
  }

  /**
   * The back-index entries of documents, by id: what `add` diffs them against. Read ahead (say
   * while the sandbox maps them) it must be passed to `add` before anything else is committed.
   */
  readOld(docs: readonly { id: string }[]): Map<string, Uint8Array> {
    return this.readBack(docs);
  }

  /** Stages mapped documents, none of them added before, each once (`olds`: their readOld). */
  add(docs: readonly MappedDoc[], olds = this.readOld(docs)): void {
    const { inserts, removes, format, changedSeqs } = this;
    for (const doc of docs) {
      this.ids.add(doc.id);
      const seq = doc.seq ?? 0;
      const old = olds.get(doc.id);
      if (format === 2 && this.addOneRowPerView(doc, seq, old)) continue;
      const before = old === undefined ? NO_ROWS : decodeBackIndex(old, format);
      // Rows of `before` found again (same view and row key): unchanged ones are left alone,
      // changed ones are replaced by their insert; the others are removed.
      const found = before.length === 0 ? undefined : new Uint8Array(before.length);
      let unchanged = 0;
      const known =
        before.length === 0 ? undefined : (view: number, keyJson: string) => knownRowKey(before, view, keyJson);
      const back = rowsOf(
        this.views,
        doc,
        (view, key, value) => {
          if (found !== undefined) {
            const k = findRow(before, found, view, key);
            if (k >= 0) {
              found[k] = 1;
              const [, , keyJson, valueJson] = before[k]!;
              if (keyJson === value[0] && valueJson === value[2]) {
                unchanged++;
                return;
              }
            }
          }
          inserts[view]!.push({ key, value });
          if (seq > changedSeqs[view]!) changedSeqs[view] = seq;
        },
        known,
      );
      if (found !== undefined) {
        for (let k = 0; k < before.length; k++) {
          if (found[k] !== 0) continue;
          const [view, rowKey] = before[k]!;
          removes[view]?.push(rowKey);
          if (seq > (changedSeqs[view] ?? seq)) changedSeqs[view] = seq;
        }
      }
      if (back.length > 0) {
        // Same rows (or same keys, with values too big to keep here): nothing to write.
        if (unchanged === back.length && back.length === before.length) continue;
        const bytes = encodeBackIndex(back, format);
        if (old === undefined || !bytes.equals(old)) this.backWrites.set(doc.id, bytes);
      } else if (old !== undefined) this.backWrites.set(doc.id, undefined);
    }
  }

  /**
   * `add` of one document whose rows, old and new, are at most one per view and in no
   * partitioned view (the usual document): its new rows are compared with its back-index entry
   * in place (./back-index.ts BackRowScan) and its new entry is written into a reused buffer, so
   * a row left alone costs its key and value JSON and nothing else. False (nothing done) for any
   * other document.
   */
  private addOneRowPerView(doc: MappedDoc, seq: number, old: Uint8Array | undefined): boolean {
    const { views, inserts, removes, changedSeqs } = this;
    if (!oneRowPerView(views, doc)) return false;
    const all = doc.rows;
    const buf =
      old === undefined
        ? undefined
        : old instanceof Buffer
          ? old
          : Buffer.from(old.buffer, old.byteOffset, old.byteLength);
    const oldRows = rowOfView.length < views.length ? (rowOfView = new Int32Array(views.length)) : rowOfView;
    oldRows.fill(-1, 0, views.length);
    let count = 0;
    if (buf !== undefined) {
      scan.scan(buf);
      count = scan.rows;
      for (let k = 0; k < count; k++) {
        const view = scan.fields[FIELDS * k]!;
        if (view >= views.length || oldRows[view] !== -1) return false;
        oldRows[view] = k;
      }
    }
    const f = scan.fields;
    if (found.length < count) found = new Uint8Array(2 * count);
    found.fill(0, 0, count);
    writer.clear();
    if (all !== undefined) {
      for (let view = 0; view < all.length; view++) {
        const rows = all[view];
        if (rows === undefined || rows.length === 0) continue;
        const row = rows[0]!;
        const key = row[0];
        const keyJson = rowJson(key);
        const valueJson = rowJson(row[1] ?? null);
        const small = isSmallRow(keyJson, valueJson);
        const k = view < views.length ? oldRows[view]! : -1;
        const o = FIELDS * k;
        if (k >= 0 && f[o + 3]! >= 0 && sameText(buf!, f[o + 3]!, f[o + 4]!, keyJson)) {
          // Same key JSON: same row key (a function of the key and the doc id).
          found[k] = 1;
          const start = f[o + 1]!;
          const end = f[o + 2]!;
          writer.appendFrom(view, buf!, start, end, small ? keyJson : undefined, small ? valueJson : undefined);
          if (sameText(buf!, f[o + 5]!, f[o + 6]!, valueJson)) continue;
          inserts[view]!.push({ key: buf!.subarray(start, end), value: [keyJson, doc.id, valueJson] });
        } else {
          // Encoded into the encoder's buffer: the old row key's bytes serve when they are the same.
          const encoded = encodeRowKeyScratch(key, doc.id, views[view]!.raw);
          let rowKey: Buffer;
          if (k >= 0 && encoded.compare(buf!, f[o + 1]!, f[o + 2]!) === 0) {
            found[k] = 1;
            rowKey = buf!.subarray(f[o + 1]!, f[o + 2]!);
          } else rowKey = Buffer.from(encoded);
          writer.append(view, rowKey, small ? keyJson : undefined, small ? valueJson : undefined);
          inserts[view]!.push({ key: rowKey, value: [keyJson, doc.id, valueJson] });
        }
        if (seq > changedSeqs[view]!) changedSeqs[view] = seq;
      }
    }
    for (let k = 0; k < count; k++) {
      if (found[k] !== 0) continue;
      const o = FIELDS * k;
      const view = f[o]!;
      removes[view]!.push(buf!.subarray(f[o + 1]!, f[o + 2]!));
      if (seq > changedSeqs[view]!) changedSeqs[view] = seq;
    }
    if (writer.empty) {
      if (old !== undefined) this.backWrites.set(doc.id, undefined);
    } else {
      if (buf === undefined || !writer.sameAs(buf)) this.backWrites.set(doc.id, writer.copy());
    }
    return true;
  }
}

/** Reused by every `addOneRowPerView`: the old entry's rows, which were found again, the new entry. */
const scan = new BackRowScan();
let rowOfView = new Int32Array(8);
let found = new Uint8Array(16);
const writer = new BackEntryWriter();

/** Whether `buf`'s UTF-8 bytes [start, end) are `text` (decoded only when it is not ASCII). */
function sameText(buf: Buffer, start: number, end: number, text: string): boolean {
  const n = text.length;
  if (end - start < n) return false;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return buf.toString('utf8', start, end) === text;
    if (buf[start + i] !== c) return false;
  }
  return end - start === n;
}

const NO_ROWS: BackEntry[] = [];

/** The row key of the only row `rows` had in `view`, when its key JSON is `keyJson` (kept for small rows). */
function knownRowKey(rows: readonly BackEntry[], view: number, keyJson: string): Buffer | undefined {
  let match: Buffer | undefined;
  for (const [v, rowKey, json] of rows) {
    if (v !== view) continue;
    if (match !== undefined || json !== keyJson) return undefined;
    match = rowKey;
  }
  return match;
}

/** The first row of `rows` not yet `found` with this view and row key, or -1. */
function findRow(rows: readonly BackEntry[], found: Uint8Array, view: number, key: Buffer): number {
  if (rows.length > 16) return findRowIndexed(rows, found, view, key);
  for (let k = 0; k < rows.length; k++) {
    if (found[k] === 0 && rows[k]![0] === view && rows[k]![1].equals(key)) return k;
  }
  return -1;
}

/** findRow for documents with many rows: through a map built once per row list. */
const rowMaps = new WeakMap<readonly BackEntry[], Map<string, number[]>>();
function findRowIndexed(rows: readonly BackEntry[], found: Uint8Array, view: number, key: Buffer): number {
  let map = rowMaps.get(rows);
  if (map === undefined) {
    map = new Map();
    rows.forEach(([v, k], i) => {
      const name = `${v}:${k.toString('latin1')}`;
      const list = map!.get(name);
      if (list === undefined) map!.set(name, [i]);
      else list.push(i);
    });
    rowMaps.set(rows, map);
  }
  for (const k of map.get(`${view}:${key.toString('latin1')}`) ?? []) if (found[k] === 0) return k;
  return -1;
}
