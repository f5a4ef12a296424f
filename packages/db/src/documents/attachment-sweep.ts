/**
 * Compaction's attachment step: bytes are stored once per digest however many revisions refer to
 * them, so they go when no stored revision body refers to them any more (the bodies compaction
 * just dropped were the last users of old content). Bytes of a write still under way are not
 * referenced yet: the sweep waits for a moment without one.
 */
import { parseTree, type RevNode } from '../revisions/index.js';
import { attachmentsOf } from './attachment.js';
import type { Database } from './database.js';

/** Bodies read per storage call while collecting references. */
const BODIES_PER_READ = 500;

/** Deletes the stored attachments no revision refers to; how many went. */
export async function sweepAttachments(db: Database): Promise<number> {
  const stored = new Set<string>();
  for await (const page of db.store.foldAttachments()) for (const info of page) stored.add(info.digest);
  if (stored.size === 0) return 0;
  if (db.attachmentWrites > 0) return 0; // unreferenced bytes may be about to be referenced
  const started = db.attachmentWritesStarted;
  for await (const wanted of storedRevisions(db)) {
    const bodies = await db.store.getBodies(wanted);
    for (const body of bodies) {
      if (body === undefined || !body.startsWith('{"_attachments"')) continue;
      for (const att of attachmentsOf(body)) stored.delete(att.digest);
    }
    if (stored.size === 0) return 0;
  }
  // A write that began meanwhile may refer to any of them: leave them for the next compaction.
  if (db.attachmentWrites > 0 || db.attachmentWritesStarted !== started) return 0;
  await db.store.deleteAttachments([...stored]);
  return stored.size;
}

/** Every revision whose body is stored, a batch at a time. */
async function* storedRevisions(db: Database): AsyncGenerator<{ id: string; rev: string }[]> {
  let batch: { id: string; rev: string }[] = [];
  for await (const page of db.store.foldDocs({ includeDeleted: true })) {
    for (const record of page) {
      for (const root of parseTree(record.tree)) {
        const stack: [RevNode, number][] = [[root.node, root.pos]];
        while (stack.length > 0) {
          const [node, pos] = stack.pop()!;
          if (node.stored) batch.push({ id: record.id, rev: `${pos}-${node.id}` });
          for (const child of node.children) stack.push([child, pos + 1]);
        }
      }
      if (batch.length >= BODIES_PER_READ) {
        yield batch;
        batch = [];
      }
    }
  }
  if (batch.length > 0) yield batch;
}
