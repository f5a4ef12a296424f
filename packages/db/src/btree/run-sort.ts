/**
 * External sort of (key, value) byte records, for bulk builds that must not hold every record
 * in memory (a view index build from empty: rows of a million documents).
 *
 * Records are packed as `[keyLen varint][key][valueLen varint][value]` into one buffer (no JS
 * object per record); when it holds `memoryBytes`, it is sorted (./sort.ts radix sort on the
 * keys) and appended to a temporary file as one sorted run. `sorted()` then gives every record
 * in key order: straight from memory when nothing was spilled, else by a k-way merge of the runs
 * read in chunks. Equal keys come out in the order they were added.
 *
 * The key and value given out are views into the sorter's buffers, valid until about
 * `VIEW_LIFETIME` more bytes of records have been given out (merge chunks are recycled, so that
 * a build does not leave a trail of garbage buffers behind): copy what must be kept longer.
 */
import type { ScratchFile } from '../storage/view-index-store.js';
import { readVarint, tryVarint, varintSize as varintBytes, writeVarint } from '../support/varint.js';
import { compareKeys } from './node.js';
import { sortedOrderPacked } from './sort.js';

export type SortRecord = readonly [key: Buffer, value: Buffer];

export interface ExternalSorterOptions {
  /** Temporary file for the spilled runs: written on the first spill, removed by `dispose`. */
  file: ScratchFile;
  /** Packed record bytes kept in memory before a sorted run goes to the file. Default 16 MB. */
  memoryBytes?: number;
}

const DEFAULT_MEMORY = 16 * 1024 * 1024;
const FIRST_BUFFER = 64 * 1024;
const READ_CHUNK = 64 * 1024;
/** Chunk buffers a run reader cycles through (a chunk is refilled after this many others were). */
const READ_BUFFERS = 4;
/** Bytes of records given out after which a record's views may be overwritten. */
export const VIEW_LIFETIME = (READ_BUFFERS - 2) * READ_CHUNK;
const WRITE_CHUNK = 1024 * 1024;

export class ExternalSorter {
  readonly file: ScratchFile;
  private readonly memoryBytes: number;
  private buf: Buffer;
  private used = 0;
  /** Per record in `buf`: where it starts, where its key starts, the key's length. */
  private starts: Int32Array = new Int32Array(1024);
  private keyStarts: Int32Array = new Int32Array(1024);
  private keyLengths: Int32Array = new Int32Array(1024);
  private records = 0;
  private spilled = false;
  private fileEnd = 0;
  private readonly runs: { start: number; end: number }[] = [];
  private count = 0;
  private addedBytes = 0;

  constructor(options: ExternalSorterOptions) {
    this.file = options.file;
    this.memoryBytes = Math.max(1024, options.memoryBytes ?? DEFAULT_MEMORY);
    this.buf = Buffer.allocUnsafe(Math.min(FIRST_BUFFER, this.memoryBytes));
  }

  /** Records added so far. */
  get size(): number {
    return this.count;
  }

  /** Encoded bytes of the records added so far (length-prefixed key and value, as a B-tree leaf holds them). */
  get bytes(): number {
    return this.addedBytes;
  }

  add(key: Uint8Array, value: Uint8Array): void {
    const need = varintBytes(key.length) + key.length + varintBytes(value.length) + value.length;
    if (this.used + need > this.buf.length) {
      if (this.used > 0 && this.used + need > this.memoryBytes) this.spill();
      if (this.used + need > this.buf.length) {
        let size = Math.max(this.buf.length, 1024);
        while (size < this.used + need) size *= 2;
        const grown = Buffer.allocUnsafe(
          Math.min(Math.max(size, this.used + need), Math.max(this.memoryBytes, this.used + need)),
        );
        this.buf.copy(grown, 0, 0, this.used);
        this.buf = grown;
      }
    }
    const buf = this.buf;
    let at = this.used;
    const r = this.records;
    if (r === this.starts.length) {
      this.starts = grow(this.starts);
      this.keyStarts = grow(this.keyStarts);
      this.keyLengths = grow(this.keyLengths);
    }
    this.starts[r] = at;
    at = writeVarint(buf, at, key.length);
    this.keyStarts[r] = at;
    this.keyLengths[r] = key.length;
    this.records = r + 1;
    buf.set(key, at);
    at += key.length;
    at = writeVarint(buf, at, value.length);
    buf.set(value, at);
    this.used = at + value.length;
    this.count++;
    this.addedBytes += need;
  }

  /** Every record, in key order. Call once, after the last `add`. */
  *sorted(): Generator<SortRecord> {
    if (this.runs.length === 0) {
      const n = this.records;
      const order = sortedOrderPacked(this.buf, this.keyStarts, this.keyLengths, n);
      const { buf, keyStarts, keyLengths } = this;
      this.release();
      const at = { i: 0 };
      for (let i = 0; i < n; i++) {
        const r = order[i]!;
        const keyEnd = keyStarts[r]! + keyLengths[r]!;
        at.i = keyEnd;
        const vl = readVarint(buf, at);
        yield [buf.subarray(keyStarts[r]!, keyEnd), buf.subarray(at.i, at.i + vl)];
      }
      return;
    }
    // What is still in memory is merged from there as the last run, not written and read back.
    const readers: SortedRun[] = this.runs.map((run, i) => new RunReader(this.file, run.start, run.end, i));
    if (this.records > 0) {
      const { buf, keyStarts, keyLengths, records } = this;
      readers.push(
        new MemoryRun(
          buf,
          keyStarts,
          keyLengths,
          sortedOrderPacked(buf, keyStarts, keyLengths, records),
          readers.length,
        ),
      );
    }
    this.release();
    // A binary min-heap of the readers by (current key, run number).
    const heap: SortedRun[] = [];
    const less = (a: SortedRun, b: SortedRun): boolean => {
      const c = compareKeys(a.key, b.key);
      return c < 0 || (c === 0 && a.run < b.run);
    };
    const down = (i: number): void => {
      const n = heap.length;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) return;
        const r = l + 1;
        const m = r < n && less(heap[r]!, heap[l]!) ? r : l;
        if (!less(heap[m]!, heap[i]!)) return;
        [heap[m], heap[i]] = [heap[i]!, heap[m]!];
        i = m;
      }
    };
    for (const r of readers) if (r.next()) heap.push(r);
    for (let i = (heap.length >> 1) - 1; i >= 0; i--) down(i);
    while (heap.length > 0) {
      const top = heap[0]!;
      yield [top.key, top.value];
      if (!top.next()) {
        const last = heap.pop()!;
        if (heap.length === 0) break;
        heap[0] = last;
      }
      down(0);
    }
  }

  /** Removes the temporary file. */
  dispose(): void {
    this.release();
    if (this.spilled) {
      this.spilled = false;
      this.file.remove();
    }
  }

  private release(): void {
    this.buf = EMPTY;
    this.used = 0;
    this.records = 0;
    this.starts = this.keyStarts = this.keyLengths = new Int32Array(0);
  }

  /** Sorts what is in memory and appends it to the file as one run. */
  private spill(): void {
    const n = this.records;
    const order = sortedOrderPacked(this.buf, this.keyStarts, this.keyLengths, n);
    const starts = this.starts;
    const buf = this.buf;
    const used = this.used;
    this.spilled = true;
    const file = this.file;
    const out = Buffer.allocUnsafe(Math.min(WRITE_CHUNK, used));
    let fill = 0;
    const start = this.fileEnd;
    const flush = (): void => {
      let done = 0;
      while (done < fill) done += file.write(out, done, fill - done, this.fileEnd + done);
      this.fileEnd += fill;
      fill = 0;
    };
    for (let i = 0; i < order.length; i++) {
      const j = order[i]!;
      const from = starts[j]!;
      const to = j + 1 < n ? starts[j + 1]! : used;
      const len = to - from;
      if (fill + len > out.length) flush();
      if (len > out.length) {
        let done = 0;
        while (done < len) done += file.write(buf, from + done, len - done, this.fileEnd + done);
        this.fileEnd += len;
        continue;
      }
      buf.copy(out, fill, from, to);
      fill += len;
    }
    flush();
    this.runs.push({ start, end: this.fileEnd });
    this.used = 0;
    this.records = 0;
  }
}

/** One sorted run of a merge: its current record (views), `next` moves on (false at its end). */
interface SortedRun {
  readonly key: Buffer;
  readonly value: Buffer;
  /** Its place among the runs (equal keys come out in run order: the order they were added). */
  readonly run: number;
  next(): boolean;
}

/** The records still in memory at the merge, in sorted order (the last run). */
class MemoryRun implements SortedRun {
  key: Buffer = EMPTY;
  value: Buffer = EMPTY;
  private i = 0;
  private readonly at = { i: 0 };

  constructor(
    private readonly buf: Buffer,
    private readonly keyStarts: Int32Array,
    private readonly keyLengths: Int32Array,
    private readonly order: Int32Array,
    readonly run: number,
  ) {}

  next(): boolean {
    if (this.i >= this.order.length) return false;
    const r = this.order[this.i++]!;
    const keyStart = this.keyStarts[r]!;
    const keyEnd = keyStart + this.keyLengths[r]!;
    this.at.i = keyEnd;
    const vl = readVarint(this.buf, this.at);
    this.key = this.buf.subarray(keyStart, keyEnd);
    this.value = this.buf.subarray(this.at.i, this.at.i + vl);
    return true;
  }
}

/** Reads one sorted run back, a chunk at a time (each chunk a fresh buffer: views stay valid). */
class RunReader implements SortedRun {
  key: Buffer = EMPTY;
  value: Buffer = EMPTY;
  private buf: Buffer = EMPTY;
  /** The chunk buffer `buf` is a view of, and the older ones waiting for reuse. */
  private whole: Buffer = EMPTY;
  private readonly spare: Buffer[] = [];
  private pos = 0;
  private readonly at = { i: 0 };

  constructor(
    private readonly file: ScratchFile,
    private filePos: number,
    private readonly fileEnd: number,
    readonly run: number,
  ) {}

  next(): boolean {
    for (;;) {
      if (this.parse()) return true;
      if (this.filePos >= this.fileEnd) {
        if (this.pos < this.buf.length) throw new Error('sort run truncated');
        return false;
      }
      this.refill();
    }
  }

  private parse(): boolean {
    const buf = this.buf;
    const n = buf.length;
    const at = this.at;
    at.i = this.pos;
    const kl = tryVarint(buf, at);
    if (kl < 0 || at.i + kl > n) return false;
    const key = buf.subarray(at.i, at.i + kl);
    at.i += kl;
    const vl = tryVarint(buf, at);
    if (vl < 0 || at.i + vl > n) return false;
    this.key = key;
    this.value = buf.subarray(at.i, at.i + vl);
    this.pos = at.i + vl;
    return true;
  }

  private refill(): void {
    const rest = this.buf.length - this.pos;
    const want = Math.min(Math.max(READ_CHUNK, rest * 2), rest + (this.fileEnd - this.filePos));
    // The oldest of the reader's chunk buffers, if big enough (records given out from it are at
    // least READ_BUFFERS - 2 chunks old), else a new one.
    let next = this.spare.length >= READ_BUFFERS - 1 ? this.spare.shift()! : undefined;
    if (next === undefined || next.length < want) next = Buffer.allocUnsafe(Math.max(want, READ_CHUNK));
    this.buf.copy(next, 0, this.pos);
    let got = rest;
    while (got < want) {
      const n = this.file.read(next, got, want - got, this.filePos);
      if (n === 0) throw new Error('sort run truncated');
      got += n;
      this.filePos += n;
    }
    if (this.whole.length > 0) this.spare.push(this.whole);
    this.whole = next;
    this.buf = next.subarray(0, got);
    this.pos = 0;
  }
}

const EMPTY = Buffer.alloc(0);

function grow(a: Int32Array): Int32Array {
  const out = new Int32Array(Math.max(1024, a.length * 2));
  out.set(a);
  return out;
}
