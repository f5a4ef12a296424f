/**
 * The back-index: for each document, the row keys it put in each view, so that an update or a
 * deletion removes exactly the rows the document emitted before (CouchDB's id B-tree).
 *
 * Stored compactly, per row: a varint, the key length as a varint, then the key. Format 1: the
 * varint is the view number. Format 2: it is `view * 2 + small`, and a small row (key and value
 * JSON of at most SMALL_ROW characters together) is followed by its key JSON and value JSON
 * (each a varint length and UTF-8): then a document updated without changing that row (same row
 * key, key JSON and value) leaves the view's tree alone, without even reading the leaf.
 */

import { readVarint, varintSize, writeVarint } from '../../support/varint.js';
import { writeUtf8 } from './short-utf8.js';

export type BackEntry = [view: number, rowKey: Buffer, keyJson?: string, valueJson?: string];

/** Rows whose key and value JSON are at most this many characters keep them in the back-index. */
export const SMALL_ROW = 64;

/** Whether a row is small: its back-index entry keeps its key and value JSON (format 2). */
export function isSmallRow(keyJson: string, valueJson: string): boolean {
  return keyJson.length + valueJson.length <= SMALL_ROW;
}

export function encodeBackIndex(entries: readonly BackEntry[], format: 1 | 2): Buffer {
  const view = encodeBackIndexScratch(entries, format);
  const out = Buffer.allocUnsafe(view.length);
  view.copy(out);
  return out;
}

/**
 * `encodeBackIndex` into one buffer reused by every call (an index build copies each entry
 * into its sorter at once), valid until the next call.
 */
export function encodeBackIndexScratch(entries: readonly BackEntry[], format: 1 | 2): Buffer {
  const out = scratchEntries;
  out.clear();
  for (const [view, key, keyJson, valueJson] of entries) out.append(view, key, keyJson, valueJson, format);
  return out.bytes();
}

/**
 * A document's back-index entry written row by row (an index build appends each row as it is
 * made, its row key a view valid only until the next; `encodeBackIndex` writes them this way too).
 */
export class BackEntryWriter {
  private buf = Buffer.allocUnsafe(16 * 1024);
  private at = 0;

  /** Starts the next document's entry. */
  clear(): void {
    this.at = 0;
  }

  append(
    view: number,
    key: Uint8Array,
    keyJson: string | undefined,
    valueJson: string | undefined,
    format: 1 | 2 = 2,
  ): void {
    const small = format === 2 && keyJson !== undefined && valueJson !== undefined;
    let at = this.head(view, key.length, keyJson, valueJson, small, format);
    this.buf.set(key, at);
    at += key.length;
    this.at = small ? this.texts(at, keyJson!, valueJson!) : at;
  }

  /** `append` (format 2) of a row key copied from `src`'s bytes [start, end): no view of them made. */
  appendFrom(
    view: number,
    src: Buffer,
    start: number,
    end: number,
    keyJson: string | undefined,
    valueJson: string | undefined,
  ): void {
    const small = keyJson !== undefined && valueJson !== undefined;
    const at = this.head(view, end - start, keyJson, valueJson, small, 2);
    // A loop: `copy` of part of a buffer makes a view of it first (row keys are short).
    const out = this.buf;
    for (let i = start; i < end; i++) out[at + i - start] = src[i]!;
    this.at = small ? this.texts(at + end - start, keyJson!, valueJson!) : at + end - start;
  }

  /** Room for the row, then its varint and key length; returns where the key goes. */
  private head(
    view: number,
    keyLength: number,
    keyJson: string | undefined,
    valueJson: string | undefined,
    small: boolean,
    format: 1 | 2,
  ): number {
    const most =
      this.at +
      20 +
      keyLength +
      (keyJson === undefined || valueJson === undefined ? 0 : 3 * (keyJson.length + valueJson.length));
    if (most > this.buf.length) {
      const grown = Buffer.allocUnsafe(Math.max(most, 2 * this.buf.length));
      this.buf.copy(grown, 0, 0, this.at);
      this.buf = grown;
    }
    const at = writeVarint(this.buf, this.at, format === 1 ? view : view * 2 + (small ? 1 : 0));
    return writeVarint(this.buf, at, keyLength);
  }

  private texts(at: number, keyJson: string, valueJson: string): number {
    return writeLengthAndText(this.buf, writeLengthAndText(this.buf, at, keyJson), valueJson);
  }

  /** The entry so far, a view valid until the next `clear` or `append`. */
  bytes(): Buffer {
    return this.buf.subarray(0, this.at);
  }

  /** Whether the entry so far is `bytes` (compared in place). */
  sameAs(bytes: Buffer): boolean {
    return bytes.length === this.at && bytes.compare(this.buf, 0, this.at) === 0;
  }

  /** A copy of the entry so far. */
  copy(): Buffer {
    const out = Buffer.allocUnsafe(this.at);
    const buf = this.buf;
    for (let i = 0; i < out.length; i++) out[i] = buf[i]!;
    return out;
  }

  /** Rows appended since `clear` (none: the document has no rows). */
  get empty(): boolean {
    return this.at === 0;
  }
}

const scratchEntries = new BackEntryWriter();

/** A varint byte length, then the text's UTF-8 (written first, after a one-byte length, moved if that is short). */
function writeLengthAndText(out: Buffer, at: number, text: string): number {
  const n = writeUtf8(out, text, at + 1);
  const size = varintSize(n);
  if (size > 1) out.copyWithin(at + size, at + 1, at + 1 + n);
  return writeVarint(out, at, n) + n;
}

export function decodeBackIndex(bytes: Uint8Array, format: 1 | 2): BackEntry[] {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: BackEntry[] = [];
  const at = { i: 0 };
  while (at.i < buf.length) {
    const head = readVarint(buf, at);
    const length = readVarint(buf, at);
    // A view, not a copy: entries live as long as an update's staging or a reader's rows, and
    // the bytes read are never written to (a copy per row key was ~5% of a 1% update's CPU).
    const key = buf.subarray(at.i, at.i + length);
    at.i += length;
    if (format === 1) {
      out.push([head, key]);
      continue;
    }
    if ((head & 1) === 0) {
      out.push([head / 2, key]);
      continue;
    }
    const k = readVarint(buf, at);
    const keyJson = buf.toString('utf8', at.i, at.i + k);
    at.i += k;
    const v = readVarint(buf, at);
    const valueJson = buf.toString('utf8', at.i, at.i + v);
    at.i += v;
    out.push([(head - 1) / 2, key, keyJson, valueJson]);
  }
  return out;
}

/** Numbers per row in BackRowScan's `fields`. */
export const FIELDS = 7;

/**
 * A document's back-index entry (format 2) read in place: per row its view and the byte ranges
 * of its row key and (small rows) key and value JSON, in one typed array reused entry after
 * entry. An update compares a document's new rows with these ranges, allocating nothing for the
 * rows it leaves alone (decodeBackIndex's arrays, Buffers and strings per row add up to about a
 * young-generation GC per 1,000-document update).
 */
export class BackRowScan {
  /** Per row, FIELDS numbers: view, row key start and end, key JSON start and end, value JSON start and end (-1: none kept). */
  fields = new Int32Array(FIELDS * 8);
  /** Rows of the entry scanned last. */
  rows = 0;
  private readonly at = { i: 0 };

  /** Scans a format 2 entry (its rows then in `fields`). */
  scan(buf: Buffer): void {
    const at = this.at;
    at.i = 0;
    let rows = 0;
    while (at.i < buf.length) {
      if (FIELDS * (rows + 1) > this.fields.length) {
        const grown = new Int32Array(2 * this.fields.length);
        grown.set(this.fields);
        this.fields = grown;
      }
      const f = this.fields;
      const o = FIELDS * rows;
      const head = readVarint(buf, at);
      const length = readVarint(buf, at);
      f[o] = Math.floor(head / 2);
      f[o + 1] = at.i;
      at.i += length;
      f[o + 2] = at.i;
      if (head % 2 === 0) {
        f[o + 3] = -1;
      } else {
        const k = readVarint(buf, at);
        f[o + 3] = at.i;
        at.i += k;
        f[o + 4] = at.i;
        const v = readVarint(buf, at);
        f[o + 5] = at.i;
        at.i += v;
        f[o + 6] = at.i;
      }
      rows++;
    }
    this.rows = rows;
  }
}
