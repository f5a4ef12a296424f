import type { NodeStore } from './store.js';

/** A node deleted since the last flush. */
const DELETED = null;
/** In an undo log: the id had no pending write before. */
const ABSENT = undefined;

/**
 * A NodeStore that keeps a tree's writes in memory and hands them to its backing store only when
 * told (`writePending`, in a transaction of the caller's, who writes the rest of its state there
 * too, so what is on disk stays consistent): an update of the tree then costs what the tree's
 * own work costs, and the backing store's writes (for SQLite: B-tree pages, WAL frames,
 * checkpoints; about half of a 1% update of a view) are made later, together for several
 * updates. Reads see the pending writes first.
 *
 * The caller makes a group of trees' updates atomic with `begin`/`end`/`rollback` (an undo log
 * of the pending writes), and sets `buffering = false` for bulk writes that would not fit in
 * memory (an index build, once nothing is pending): those go straight to the backing store.
 */
export class WriteBackNodeStore implements NodeStore {
  /** Pending writes by node id: bytes, or DELETED. (Fields are cleared, never replaced: a field V8 saw assigned once is a constant to its optimized code, which a new assignment throws away.) */
  private readonly pending = new Map<number, Uint8Array | null>();
  /** The root as of the last write (undefined root = empty tree), when it changed since the flush. */
  private root: { id: number | undefined } | undefined;
  /** `clear` ran since the last flush: every backing node is gone. */
  private cleared = false;
  private gen = 1;
  private bytes = 0;
  private undo:
    | {
        writes: Map<number, Uint8Array | null | undefined>;
        root: { id: number | undefined } | undefined;
        cleared: boolean;
        bytes: number;
      }
    | undefined;
  /** Whether writes are kept (true) or go straight to the backing store (false; nothing pending). */
  buffering = true;

  constructor(readonly backing: NodeStore) {}

  /** Bytes of the node writes waiting for `writePending`. */
  get pendingBytes(): number {
    return this.bytes;
  }

  /** Whether anything waits for `writePending`. */
  get dirty(): boolean {
    return this.pending.size > 0 || this.root !== undefined || this.cleared;
  }

  get(id: number): Uint8Array | undefined {
    const bytes = this.pending.get(id);
    if (bytes !== undefined) return bytes ?? undefined;
    return this.cleared ? undefined : this.backing.get(id);
  }

  put(id: number, bytes: Uint8Array, owned = false): void {
    if (!this.buffering) return this.backing.put(id, bytes);
    // A copy unless the tree gave the bytes away (see NodeStore.put).
    this.write(id, owned ? bytes : Uint8Array.prototype.slice.call(bytes));
  }

  delete(id: number): void {
    if (!this.buffering) return this.backing.delete(id);
    this.write(id, DELETED);
  }

  allocate(): number {
    // The backing store counts on from its largest id once (SqliteNodeStore): ids only pending
    // here are never handed out twice, as this store never asks it for its generation.
    return this.backing.allocate();
  }

  getRoot(): number | undefined {
    if (this.root !== undefined) return this.root.id;
    return this.cleared ? undefined : this.backing.getRoot();
  }

  setRoot(id: number | undefined): void {
    this.gen++;
    if (!this.buffering) return this.backing.setRoot(id);
    this.root = { id };
  }

  /** Changes with every `setRoot` and `rollback`: the store is its tree's only writer. */
  generation(): number {
    return this.gen;
  }

  clear(): void {
    this.gen++;
    if (!this.buffering) {
      if (this.backing.clear !== undefined) this.backing.clear();
      else throw new Error('The backing store cannot clear');
      return;
    }
    for (const id of this.pending.keys()) this.rememberWrite(id);
    this.pending.clear();
    this.bytes = 0;
    this.cleared = true;
    this.root = { id: undefined };
  }

  /**
   * The backing store changed behind this one (another node's update, taken in while nothing
   * was pending): a new generation, so the tree drops its cache.
   */
  changedBehind(): void {
    if (this.dirty) throw new Error('the backing store changed under pending writes');
    this.gen++;
  }

  /** Forgets every pending write (they could not be stored): reads see the backing store again. */
  discard(): void {
    this.undo = undefined;
    this.flushed();
    this.gen++;
  }

  /** Starts recording what `rollback` undoes (until `end`). */
  begin(): void {
    this.undo = { writes: new Map(), root: this.root, cleared: this.cleared, bytes: this.bytes };
  }

  /** Keeps the writes since `begin`. */
  end(): void {
    this.undo = undefined;
  }

  /** Forgets the writes since `begin`, and tells the tree (new generation) to drop its cache. */
  rollback(): void {
    const undo = this.undo;
    if (undo === undefined) return;
    this.undo = undefined;
    for (const [id, before] of undo.writes) {
      if (before === ABSENT) this.pending.delete(id);
      else this.pending.set(id, before);
    }
    this.root = undo.root;
    this.cleared = undo.cleared;
    this.bytes = undo.bytes;
    this.gen++;
  }

  /**
   * Writes the pending state to the backing store (inside the caller's transaction). It stays
   * pending too, until the caller says the transaction committed (`flushed`).
   */
  writePending(): void {
    if (this.cleared) {
      if (this.backing.clear === undefined) throw new Error('The backing store cannot clear');
      this.backing.clear();
    }
    for (const [id, bytes] of this.pending) {
      if (bytes === DELETED) this.backing.delete(id);
      else this.backing.put(id, bytes);
    }
    if (this.root !== undefined) this.backing.setRoot(this.root.id);
  }

  /** The transaction holding `writePending` committed: nothing is pending any more. */
  flushed(): void {
    this.pending.clear();
    this.root = undefined;
    if (this.cleared) this.cleared = false;
    this.bytes = 0;
  }

  private write(id: number, bytes: Uint8Array | null): void {
    this.rememberWrite(id);
    const before = this.pending.get(id);
    if (before) this.bytes -= before.length;
    if (bytes !== DELETED) this.bytes += bytes.length;
    this.pending.set(id, bytes);
  }

  private rememberWrite(id: number): void {
    const undo = this.undo;
    if (undo !== undefined && !undo.writes.has(id)) undo.writes.set(id, this.pending.get(id));
  }
}
