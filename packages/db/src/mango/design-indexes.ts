/**
 * A database's Mango index definitions read from its design documents, kept per design document
 * while its revision is the same: every `_find` plans over them, and reading and parsing each
 * design document's body again was ~6% of an indexed `_find` (issue #31). JSON indexes
 * (./indexes.ts) and text indexes (./text-index.ts) keep one each.
 */
import type { Database } from '../documents/database.js';
import type { JsonValue } from '../json/index.js';

export class DesignIndexes<T> {
  private readonly parsed = new WeakMap<Database, Map<string, { rev: string; indexes: T[] }>>();

  constructor(private readonly parse: (ddocId: string, body: JsonValue, dbPartitioned: boolean) => T[]) {}

  /** The indexes of each live design document, in design document order. */
  async byDesignDoc(db: Database): Promise<T[][]> {
    let known = this.parsed.get(db);
    if (known === undefined) this.parsed.set(db, (known = new Map()));
    const seen = new Set<string>();
    const out: T[][] = [];
    for (const record of await db.designRecords()) {
      seen.add(record.id);
      let entry = known.get(record.id);
      if (entry?.rev !== record.rev) {
        const current = await db.winningBody(record.id);
        entry = {
          rev: current?.rev ?? record.rev,
          indexes: current === undefined ? [] : this.parse(record.id, current.body, db.partitioned),
        };
        known.set(record.id, entry);
      }
      out.push(entry.indexes);
    }
    for (const id of known.keys()) if (!seen.has(id)) known.delete(id);
    return out;
  }
}
