/**
 * Search index definitions read from design documents, kept per database and design document
 * while its revision is the same: every `_search` and `_nouveau` request names its index, and
 * reading the design document's body, making it plain and hashing each index's signature again
 * was ~8% of a term query's server CPU (issue #32). A design document not among the database's
 * live ones is read as before (its 404 says `missing` or `deleted`).
 */
import type { Database } from '../documents/database.js';
import { CouchError } from '../errors.js';
import { toPlain } from '../json/index.js';

interface Entry {
  rev: string;
  body: Record<string, unknown>;
  /** What was made of the body, by the maker's key (`search:{name}`, `nouveau:{name}`). */
  made: Map<string, unknown>;
}

const known = new WeakMap<Database, Map<string, Entry>>();

/**
 * What `make` makes of the current body of `ddocId` (a thrown error is not kept: the next
 * request makes it again); 404 as CouchDB answers when the design document is not live.
 */
export async function fromDesign<T>(
  db: Database,
  ddocId: string,
  key: string,
  make: (body: Record<string, unknown>) => T,
): Promise<T> {
  const record = (await db.designRecords()).find((r) => r.id === ddocId);
  let entries = known.get(db);
  if (entries === undefined) known.set(db, (entries = new Map()));
  let entry = record === undefined ? undefined : entries.get(ddocId);
  if (entry === undefined || entry.rev !== record?.rev) {
    const current = await db.winningBody(ddocId);
    if (current === undefined)
      throw new CouchError('not_found', (await db.record(ddocId)) === undefined ? 'missing' : 'deleted');
    entry = { rev: current.rev, body: toPlain(current.body) as Record<string, unknown>, made: new Map() };
    if (record !== undefined) entries.set(ddocId, entry);
    else entries.delete(ddocId);
  }
  if (entry.made.has(key)) return entry.made.get(key) as T;
  const made = make(entry.body);
  entry.made.set(key, made);
  return made;
}
