/**
 * View indexes in local SQLite files, one folder per database: both engines' (the SQLite
 * engine's indexes themselves, next to their database; the PostgreSQL engine's copies of the
 * shared indexes, ../postgres/shared-index.ts), so they live here, owned by neither.
 */
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { StoredIndex, ViewIndexStore } from '../view-index-store.js';
import { SqliteIndexFile } from './index-file.js';

/**
 * A database's view indexes as files in one folder, `<signature>.sqlite` each (with its WAL and
 * a build's temporary files next to it).
 */
export class IndexFolder implements ViewIndexStore {
  constructor(readonly dir: string) {}

  async open(signature: string, views: number): Promise<StoredIndex> {
    return this.openFile(signature, views);
  }

  openFile(signature: string, views: number): SqliteIndexFile {
    mkdirSync(this.dir, { recursive: true });
    return new SqliteIndexFile(this.pathOf(signature), signature, views);
  }

  async remove(signature: string): Promise<void> {
    for (const file of this.files()) {
      if (file.split('.')[0] === signature) rmSync(join(this.dir, file), { force: true });
    }
  }

  async signatures(): Promise<string[]> {
    return [...new Set(this.files().map((file) => file.split('.')[0]!))];
  }

  pathOf(signature: string): string {
    return join(this.dir, `${signature}.sqlite`);
  }

  private files(): string[] {
    try {
      return readdirSync(this.dir);
    } catch {
      return [];
    }
  }
}
