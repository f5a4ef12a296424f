import type Database from 'better-sqlite3';
import type { NodeStore } from '../view-index-store.js';

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
  /** The ids counted on since may have been taken back (a rolled-back transaction): count anew. */
  forgetAllocation(): void {
    this.next = undefined;
  }
  clear(): void {
    this.clearStmt.run();
    this.setRoot(undefined);
  }
}
