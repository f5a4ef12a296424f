/**
 * Compaction's attachment step: bytes are stored once per digest however many revisions refer to
 * them, so they go when no stored revision body refers to them any more (the bodies compaction
 * just dropped were the last users of old content). Bytes of a write still under way are not
 * referenced yet: the storage tells whether one is, on this node or another sharing it, and frees
 * nothing when one was under way or began while the sweep looked (storage `sweepAttachments`).
 */
import { parseTree, type RevNode } from '../revisions/index.js';
import { attachmentsOf } from './attachment.js';
import type { Database } from './database.js';

/** Bodies read per storage call while collecting references. */
const BODIES_PER_READ = 500;

/** Deletes the stored attachments no revision refers to; how many went. */
export async function sweepAttachments(db: Database): Promise<number> {
  const mark = await db.store.attachmentSweepMark();
  if (mark === undefined) return 0; // unreferenced bytes may be about to be referenced
  const unreferenced = new Set<string>();
  for await (const page of db.store.foldAttachments()) for (const info of page) unreferenced.add(info.digest);
  if (unreferenced.size > 0) {
    for await (const wanted of storedRevisions(db)) {
      const bodies = await db.store.getBodies(wanted);
      for (const body of bodies) {
        if (body === undefined || !body.startsWith('{"_attachments"')) continue;
        for (const att of attachmentsOf(body)) unreferenced.delete(att.digest);
      }
      if (unreferenced.size === 0) break;
    }
  }
  // Also with nothing unreferenced: the storage then frees what cut-off uploads left.
  return (await db.store.sweepAttachments([...unreferenced], mark)) ? unreferenced.size : 0;
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
