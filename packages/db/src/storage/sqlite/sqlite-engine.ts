import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { StorageExistsError } from '../contract.js';
import type { SqliteOptions, SqliteSyncEngine, SqliteSyncStore } from './sync-store.js';
import { illegalDbName, isValidDbName } from '../db-names.js';
import { dbNameOf, fileNameOf } from './file-names.js';
import { SqliteDatabase } from './sqlite-database.js';

/** A data folder holding one `<name>.sqlite` file (plus its WAL while open) per database. */
export function openSqliteEngine(options: SqliteOptions): SqliteSyncEngine {
  return new SqliteEngine(options.dir, options.durability ?? 'normal');
}

class SqliteEngine implements SqliteSyncEngine {
  private readonly handles = new Map<string, SqliteDatabase>();

  constructor(
    private readonly dir: string,
    private readonly durability: 'normal' | 'full',
  ) {
    mkdirSync(dir, { recursive: true });
  }

  listDatabases(): string[] {
    const names: string[] = [];
    for (const file of readdirSync(this.dir)) {
      const name = dbNameOf(file);
      if (name !== undefined) names.push(name);
    }
    // Names are ASCII, so the default sort is code point order.
    return names.sort();
  }

  exists(name: string): boolean {
    return isValidDbName(name) && (this.handles.has(name) || existsSync(this.pathOf(name)));
  }

  create(name: string): SqliteSyncStore {
    if (!isValidDbName(name)) throw illegalDbName(name);
    if (this.exists(name)) throw new StorageExistsError(name);
    const path = this.pathOf(name);
    // Journals left by a database destroyed mid-way must not be replayed into the new file.
    removeJournals(path);
    return this.openFile(name, path);
  }

  open(name: string): SqliteSyncStore | undefined {
    const cached = this.handles.get(name);
    if (cached !== undefined) return cached;
    if (!this.exists(name)) return undefined;
    return this.openFile(name, this.pathOf(name));
  }

  destroy(name: string): boolean {
    if (!isValidDbName(name)) return false;
    this.handles.get(name)?.close();
    const path = this.pathOf(name);
    const existed = existsSync(path);
    // The main file first: once it is gone the database no longer exists, whatever happens next.
    rmSync(path, { force: true });
    removeJournals(path);
    rmSync(this.indexDir(name), { recursive: true, force: true });
    return existed;
  }

  indexDir(name: string): string {
    return `${this.pathOf(name)}.views`;
  }

  close(): void {
    for (const db of [...this.handles.values()]) db.close();
  }

  private pathOf(name: string): string {
    return join(this.dir, fileNameOf(name));
  }

  private openFile(name: string, path: string): SqliteDatabase {
    const db = new SqliteDatabase(name, path, {
      durability: this.durability,
      onClose: (closed) => {
        if (this.handles.get(name) === closed) this.handles.delete(name);
      },
    });
    this.handles.set(name, db);
    return db;
  }
}

function removeJournals(path: string): void {
  rmSync(`${path}-wal`, { force: true });
  rmSync(`${path}-shm`, { force: true });
}
