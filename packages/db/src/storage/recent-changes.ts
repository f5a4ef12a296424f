/**
 * A database's latest writes, kept in memory: a view index catching up just after a write (the
 * common "write, then query the view") reads the changed documents from here rather than from
 * the store: reading them back through SQLite is a seq-index walk joined to two tables, over
 * pages just written but spread out, several times slower than the update's whole read step
 * from here (docs/benchmarks.md).
 *
 * It covers the sequences from `first` to the last one recorded, without gaps, and forgets the
 * oldest writes beyond `maxBytes` of bodies and trees (bodies kept as UTF-8 Buffers: a string
 * might be a slice that holds a whole request body alive, and Buffers are counted exactly; a
 * tree counts its length: a document with a long history has a ~33 KB tree per write, which,
 * uncounted, kept 100,000 writes' worth alive).
 *
 * Copying bodies costs every write a little: it is only worth it while someone reads changes
 * soon after they are written. So it stops (and lets go of what it holds) when it would forget
 * a write nobody read, as during a bulk load with no index following it, and starts again at the
 * next read (from the next write on). A 100k-doc bulk load then copies the first 4 MiB only.
 */
import type { ChangedDoc } from './records.js';

interface Entry {
  seq: number;
  id: string;
  rev: string;
  deleted: boolean;
  /** The winner's body when this write carried it (a losing revision's write does not). */
  body: Buffer | undefined;
  tree: string;
}

/** One committed write, as `record` takes it. */
export interface RecentWrite {
  seq: number;
  id: string;
  rev: string;
  deleted: boolean;
  body: string | undefined;
  tree: string;
}

const MAX_ENTRIES = 100_000;

export class RecentChanges {
  private entries: Entry[] = [];
  /** Index in `entries` of the oldest entry kept. */
  private head = 0;
  /** The first sequence covered (everything from here on is kept). */
  private first: number;
  /**
   * Per document id, the sequence of its last write kept, up to `indexed`: brought up to date by
   * the reads (`next`), not by every write, which paid a Map entry of a new key each (~0.6% of a
   * c1 `PUT`'s main thread) whether anyone read the changes or not.
   */
  private readonly latest = new Map<string, number>();
  /** Entries up to this index in `entries` are in `latest`. */
  private indexed = 0;
  private bytes = 0;
  /** Whether writes are kept (see above). */
  private armed = true;
  /** Every change up to this sequence was handed out (or known to be there) by `next`. */
  private readUpTo: number;

  /** `updateSeq`: the store's sequence now (nothing recorded before it is covered). */
  constructor(
    updateSeq: number,
    private readonly maxBytes: number,
  ) {
    this.first = updateSeq + 1;
    this.readUpTo = updateSeq;
  }

  /** Whether every change after `since` is here. */
  covers(since: number): boolean {
    return since + 1 >= this.first;
  }

  /** Records committed writes, in sequence order, continuing the ones recorded before. */
  record(writes: readonly RecentWrite[]): void {
    if (writes.length === 0) return;
    if (!this.armed) {
      // Nothing kept: only the writes after these could be covered.
      this.first = writes[writes.length - 1]!.seq + 1;
      return;
    }
    for (const w of writes) {
      if (w.seq !== this.first + this.size) this.reset(w.seq);
      const body = w.deleted || w.body === undefined ? undefined : Buffer.from(w.body);
      this.entries.push({ seq: w.seq, id: w.id, rev: w.rev, deleted: w.deleted, body, tree: w.tree });
      this.bytes += entryBytes(body, w.tree);
    }
    while (this.armed && this.size > 0 && (this.bytes > this.maxBytes || this.size > MAX_ENTRIES)) this.dropOldest();
  }

  /**
   * The first change after `since` (a document's last write only, as the store lists changes),
   * with its winner's body from `bodyOf` when the write did not carry it; `null` when there is
   * none; undefined when `since` is not covered (any more).
   */
  next(since: number, bodyOf: (id: string, rev: string) => string | undefined): ChangedDoc | null | undefined {
    this.armed = true;
    if (!this.covers(since)) return undefined;
    const entries = this.entries;
    for (; this.indexed < entries.length; this.indexed++) {
      const e = entries[this.indexed]!;
      this.latest.set(e.id, e.seq);
    }
    for (let i = this.head + Math.max(0, since + 1 - this.first); i < entries.length; i++) {
      const e = entries[i]!;
      if (this.latest.get(e.id) !== e.seq) continue;
      if (e.seq > this.readUpTo) this.readUpTo = e.seq;
      const body = e.deleted ? undefined : (e.body?.toString() ?? bodyOf(e.id, e.rev));
      return { id: e.id, seq: e.seq, rev: e.rev, deleted: e.deleted, body, tree: e.tree };
    }
    const last = this.first + this.size - 1;
    if (last > this.readUpTo) this.readUpTo = last;
    return null;
  }

  /** Forgets everything (say a purge removed documents it holds): `updateSeq` is the store's now. */
  clear(updateSeq: number): void {
    this.reset(updateSeq + 1);
    this.readUpTo = Math.max(this.readUpTo, updateSeq);
  }

  private get size(): number {
    return this.entries.length - this.head;
  }

  private dropOldest(): void {
    const e = this.entries[this.head]!;
    if (e.seq > this.readUpTo) {
      // Nobody read it: stop keeping writes until someone reads again.
      const next = this.first + this.size;
      this.reset(next);
      this.armed = false;
      return;
    }
    // An entry not indexed yet has no `latest` of its own (nor any later write of its document).
    if (this.head < this.indexed && this.latest.get(e.id) === e.seq) this.latest.delete(e.id);
    this.head++;
    if (this.indexed < this.head) this.indexed = this.head;
    this.bytes -= entryBytes(e.body, e.tree);
    this.first = e.seq + 1;
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.indexed -= this.head;
      this.head = 0;
    }
  }

  /** Forgets everything: the next write is at `seq`. */
  private reset(seq: number): void {
    this.entries = [];
    this.head = 0;
    this.indexed = 0;
    this.latest.clear();
    this.bytes = 0;
    this.first = seq;
  }
}

/** What an entry counts against `maxBytes`: its body's bytes and its tree's length (ASCII but for JSON-string ids). */
function entryBytes(body: Buffer | undefined, tree: string): number {
  return (body?.length ?? 0) + tree.length;
}
