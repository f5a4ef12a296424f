/**
 * An incremental update of a view group's index, staged before it is written: mapped documents
 * are added batch by batch (each diffed against its back-index entry while the sandbox maps the
 * next batch), then ./view-index.ts `commit` writes all staged changes in one transaction.
 *
 * A row found again under the same view and row key with the same key and value JSON (kept in
 * the back-index for small rows) is left alone: its view's tree is not even read. A document
 * that emits exactly what it emitted before writes nothing at all.
 */
import { decodeBackIndex, encodeBackIndex, type BackEntry } from './back-index.js';
import type { ViewDef } from '../design.js';
import { rowsOf, type MappedDoc } from './index-rows.js';
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
