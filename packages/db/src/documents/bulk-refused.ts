/**
 * `_bulk_docs` where some documents were refused before any was read (nested deeper than the
 * JSON limit: http/body.ts sets them apart): the others are written as usual and each refused
 * one gets its own error row in its place, so a replication batch loses that document alone
 * (the replicator counts it in `doc_write_failures`) instead of failing whole.
 */
import type { JsonValue } from '../json/index.js';
import type { Database } from './database.js';
import type { WriteResult } from './write-plan.js';
import type { Writer } from './write-rules.js';

export type RefusedDoc = { id: string; error: string; reason: string };

export async function bulkDocsWithRefused(
  db: Database,
  docs: readonly JsonValue[],
  refused: ReadonlyMap<JsonValue, RefusedDoc>,
  newEdits: boolean,
  writer?: Writer,
): Promise<WriteResult[]> {
  if (refused.size === 0) return db.bulkDocs(docs, newEdits, writer);
  const written = await db.bulkDocs(
    docs.filter((doc) => !refused.has(doc)),
    newEdits,
    writer,
  );
  let next = 0;
  return docs.map((doc) => refused.get(doc) ?? written[next++]!);
}
