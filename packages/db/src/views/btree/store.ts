import type Database from 'better-sqlite3';

/**
 * Where a B-tree keeps its nodes: encoded node bytes by integer id, plus the root id.
 *
 * The tree writes nodes in place (a node keeps its id while it is rewritten), so a store must
 * either be used inside one writer's transactions or offer `atomic`. `generation` lets the tree
 * notice that the stored tree changed behind its node cache (a rolled-back transaction, another
 * handle): it must change on every `setRoot` and go back with a rollback.
 */
export interface NodeStore {
  get(id: number): Uint8Array | undefined;
  /**
   * Stores a node; `bytes` may be reused by the caller afterwards (copy it to keep it), unless
   * `owned`: then they are the store's (never changed again).
   */
  put(id: number, bytes: Uint8Array, owned?: boolean): void;
  delete(id: number): void;
  /** A fresh id (never one in use). */
  allocate(): number;
  getRoot(): number | undefined;
  /** Called once at the end of every tree update; must bump `generation`. */
  setRoot(id: number | undefined): void;
  /** Changes with every `setRoot`, and goes back on rollback. Without it the tree trusts its cache. */
  generation?(): number;
  /** Runs `fn` so that its writes happen all or not at all (a SAVEPOINT). */
  atomic?<T>(fn: () => T): T;
  /** Deletes every node and the root (faster than one delete per node). */
  clear?(): void;
}

/** Nodes in a Map, for tests and throwaway trees. `atomic` keeps an undo log. */
export class MemoryNodeStore implements NodeStore {
  private readonly nodes = new Map<number, Uint8Array>();
  private root: number | undefined;
  private gen = 0;
  private next = 1;
  private undo: Map<number, Uint8Array | undefined> | undefined;

  get size(): number {
    return this.nodes.size;
  }
  get(id: number): Uint8Array | undefined {
    return this.nodes.get(id);
  }
  put(id: number, bytes: Uint8Array): void {
    this.remember(id);
    this.nodes.set(id, Uint8Array.prototype.slice.call(bytes)); // a copy (Buffer#slice is a view)
  }
  delete(id: number): void {
    this.remember(id);
    this.nodes.delete(id);
  }
  allocate(): number {
    return this.next++;
  }
  getRoot(): number | undefined {
    return this.root;
  }
  setRoot(id: number | undefined): void {
    this.root = id;
    this.gen++;
  }
  generation(): number {
    return this.gen;
  }
  atomic<T>(fn: () => T): T {
    if (this.undo !== undefined) return fn();
    const undo = (this.undo = new Map());
    const root = this.root;
    const gen = this.gen;
    try {
      return fn();
    } catch (err) {
      for (const [id, bytes] of undo) {
        if (bytes === undefined) this.nodes.delete(id);
        else this.nodes.set(id, bytes);
      }
      this.root = root;
      this.gen = gen;
      throw err;
    } finally {
      this.undo = undefined;
    }
  }
  clear(): void {
    for (const id of this.nodes.keys()) this.remember(id);
    this.nodes.clear();
    this.setRoot(undefined);
  }
  private remember(id: number): void {
    if (this.undo !== undefined && !this.undo.has(id)) this.undo.set(id, this.nodes.get(id));
  }
}

const ROOT_ROW = -1;
const GENERATION_ROW = -2;

/**
 * Nodes in one SQLite table `<table>(id INTEGER PRIMARY KEY, node BLOB NOT NULL)` on the
 * caller's better-sqlite3 handle. Rows with negative ids hold the metadata: -1 the root id
 * (-1 when empty), -2 the generation. Nothing is written until the tree is updated, and every
 * write runs on the caller's connection, so it belongs to the caller's transaction; `atomic`
 * nests a SAVEPOINT (better-sqlite3 `transaction` inside a transaction), unless the caller says
 * its own transactions make updates atomic (`savepoints: false`).
 */
export class SqliteNodeStore implements NodeStore {
  private readonly getStmt: Database.Statement<[number], Buffer | number | undefined>;
  private readonly putStmt: Database.Statement<[number, Uint8Array | number]>;
  private readonly deleteStmt: Database.Statement<[number]>;
  private readonly maxStmt: Database.Statement<[], number | null>;
  private readonly clearStmt: Database.Statement<[]>;
  private readonly tx: (fn: () => unknown) => unknown;
  private next: number | undefined;
  private lastGeneration: number | undefined;

  /**
   * `savepoints: false`: every tree update runs inside a transaction of the caller, who rolls it
   * back if the update throws (and then calls the tree's `invalidate`). The update then skips its
   * own SAVEPOINT, whose page copies cost about a third of a small update.
   */
  private readonly savepoints: boolean;

  constructor(
    readonly db: Database.Database,
    readonly table: string,
    options: { savepoints?: boolean } = {},
  ) {
    this.savepoints = options.savepoints ?? true;
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(table)) throw new Error(`Invalid B-tree table name: ${table}`);
    db.exec(`CREATE TABLE IF NOT EXISTS "${table}" (id INTEGER PRIMARY KEY, node BLOB NOT NULL)`);
    this.getStmt = db
      .prepare<[number], Buffer | number | undefined>(`SELECT node FROM "${table}" WHERE id = ?`)
      .pluck();
    this.putStmt = db.prepare<[number, Uint8Array | number]>(
      `INSERT OR REPLACE INTO "${table}" (id, node) VALUES (?, ?)`,
    );
    this.deleteStmt = db.prepare<[number]>(`DELETE FROM "${table}" WHERE id = ?`);
    this.maxStmt = db.prepare<[], number | null>(`SELECT max(id) FROM "${table}"`).pluck();
    this.clearStmt = db.prepare<[]>(`DELETE FROM "${table}" WHERE id >= 0`);
    this.tx = db.transaction((fn: () => unknown) => fn());
  }

  get(id: number): Uint8Array | undefined {
    const node = this.getStmt.get(id);
    return typeof node === 'number' ? undefined : (node ?? undefined);
  }
  put(id: number, bytes: Uint8Array): void {
    this.putStmt.run(id, bytes);
  }
  delete(id: number): void {
    this.deleteStmt.run(id);
  }
  allocate(): number {
    this.next ??= Math.max(0, this.maxStmt.get() ?? 0) + 1;
    return this.next++;
  }
  getRoot(): number | undefined {
    const root = this.getStmt.get(ROOT_ROW);
    return typeof root === 'number' && root >= 0 ? root : undefined;
  }
  setRoot(id: number | undefined): void {
    this.putStmt.run(ROOT_ROW, id ?? -1);
    // Random rather than a counter: a rolled-back update and another handle's update must not
    // both end at the same value.
    let gen = Math.floor(Math.random() * 2 ** 48);
    if (gen === this.lastGeneration) gen++;
    this.putStmt.run(GENERATION_ROW, gen);
    this.lastGeneration = gen;
  }
  generation(): number {
    const gen = this.getStmt.get(GENERATION_ROW);
    const value = typeof gen === 'number' ? gen : 0;
    // Someone else changed the table, or a transaction rolled back: ids may have been taken back.
    if (value !== this.lastGeneration) this.next = undefined;
    this.lastGeneration = value;
    return value;
  }
  atomic<T>(fn: () => T): T {
    try {
      return this.savepoints ? (this.tx(fn) as T) : fn();
    } catch (err) {
      this.next = undefined;
      throw err;
    }
  }
  clear(): void {
    this.clearStmt.run();
    this.setRoot(undefined);
  }
}
