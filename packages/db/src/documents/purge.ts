/**
 * `POST /db/_purge`: leaf revisions removed as if they had never been written (CouchDB's
 * couch_db:purge_docs). A document keeps the revisions on the paths of its remaining leaves
 * (couch_key_tree:remove_leafs); with no leaf left it is gone entirely (no record, no change,
 * GET 404 `missing`). A revision that is not a leaf of the document purges nothing.
 *
 * Every document of a request gets a purge log entry and the purge sequence moves on; a document
 * that keeps revisions gets a new update sequence (its new winner is a change for `_changes` and
 * the view indexes), and the update sequence moves on even when none does, as CouchDB's. View
 * indexes catch up from the log (purgedSince below; ../views/updater/purges.ts): the rows of a document that is gone
 * are removed, a document still there is mapped again from its new sequence. All of a request is
 * one transaction.
 */
import { CouchError } from '../errors.js';
import { accessAfterPurge } from './access-rules.js';
import {
  formatRev,
  leaves,
  parseTree,
  serializeTree,
  walk,
  winner,
  type Rev,
  type RevNode,
  type RevTree,
} from '../revisions/index.js';
import type { DocRecord, PurgeWrite } from '../storage/records.js';
import type { Database } from './database.js';
import { validatePartitionedDocId } from './partition.js';
import { staleGoneByPurge } from './stale-bodies.js';

/** CouchDB's default `purged_infos_limit`. */
export const DEFAULT_PURGED_INFOS_LIMIT = 1000;
const LIMIT_PROP = 'purged_infos_limit';

export async function purgedInfosLimit(db: Database): Promise<number> {
  const stored = await db.store.getProp(LIMIT_PROP);
  return stored === undefined ? DEFAULT_PURGED_INFOS_LIMIT : Number(stored);
}

export async function setPurgedInfosLimit(db: Database, limit: number): Promise<void> {
  if (!Number.isInteger(limit) || limit <= 0) {
    throw new CouchError('bad_request', '`purge_infos_limit` must be positive integer');
  }
  await db.store.setProp(LIMIT_PROP, String(limit));
}

/**
 * The database's purge sequence and the ids purged after `since` (up to that sequence); `ids`
 * is undefined when the purge log no longer reaches back that far (`purged_infos_limit`).
 */
export async function purgedSince(
  db: Database,
  since: number,
): Promise<{ purgeSeq: number; ids: Set<string> | undefined }> {
  const purgeSeq = await db.store.purgeSeq();
  if (since >= purgeSeq) return { purgeSeq, ids: new Set() };
  if ((await db.store.oldestPurge()) > since + 1) return { purgeSeq, ids: undefined };
  const ids = new Set<string>();
  for await (const page of db.store.foldPurges(since)) {
    for (const info of page) if (info.purgeSeq <= purgeSeq) ids.add(info.id);
  }
  return { purgeSeq, ids };
}

/**
 * The purge log as `GET /db/_purged_infos` shows it: each purged document with the revisions
 * its request named, oldest first (the last `purged_infos_limit` kept).
 */
export async function purgedInfos(db: Database): Promise<{ id: string; revs: string[] }[]> {
  const infos: { id: string; revs: string[] }[] = [];
  for await (const page of db.store.foldPurges(0)) for (const { id, revs } of page) infos.push({ id, revs });
  return infos;
}

/**
 * Purges the given revisions of each document; returns, per document, the revisions actually
 * purged (in the order asked).
 */
export async function purgeDocs(
  db: Database,
  request: ReadonlyArray<readonly [string, Rev[]]>,
): Promise<Record<string, string[]>> {
  if (request.length === 0) return {};
  if (db.partitioned) for (const [id] of request) validatePartitionedDocId(id);
  const limit = await purgedInfosLimit(db);
  const { result, updateSeq } = await db.store.purge(
    request.map(([id]) => id),
    limit,
    (records) => plan(request, records),
  );
  db.notifyChanged(updateSeq);
  return result;
}

/** The purge of each document asked, from its current record (run inside the storage transaction). */
function plan(
  request: ReadonlyArray<readonly [string, Rev[]]>,
  records: ReadonlyMap<string, DocRecord>,
): { purges: PurgeWrite[]; result: Record<string, string[]> } {
  const purged: Record<string, string[]> = {};
  const writes: PurgeWrite[] = [];
  request.forEach(([id, revs]) => {
    const asked = revs.map(formatRev);
    const record = records.get(id);
    const write: PurgeWrite = { id, revs: asked };
    writes.push(write);
    purged[id] = [];
    if (record === undefined) return;
    const tree = parseTree(record.tree);
    const leafRevs = new Set(leaves(tree).map((leaf) => formatRev(leaf)));
    const gone = new Set(asked.filter((rev) => leafRevs.has(rev)));
    if (gone.size === 0) return;
    purged[id] = asked.filter((rev, k) => gone.has(rev) && asked.indexOf(rev) === k);
    const kept = removeLeaves(tree, gone);
    const keptRevs = new Set<string>();
    for (const { pos, node } of walk(kept)) keptRevs.add(formatRev({ pos, id: node.id }));
    write.dropBodies = [];
    for (const { pos, node } of walk(tree)) {
      const rev = formatRev({ pos, id: node.id });
      if (node.stored && !keptRevs.has(rev)) write.dropBodies.push(rev);
    }
    const staleGone = staleGoneByPurge(tree, kept);
    if (staleGone.length > 0) write.staleGone = staleGone;
    const top = winner(kept);
    write.record =
      top === undefined ? null : { id, rev: formatRev(top), deleted: top.deleted, tree: serializeTree(kept) };
    // An access-enabled database's rows follow the leaves left, in the purge's transaction.
    if (write.record !== null && record.access !== undefined) write.access = accessAfterPurge(kept, record.access);
  });
  return { purges: writes, result: purged };
}

/** The tree without the given leaves and the ancestors only they had (a new tree). */
function removeLeaves(tree: RevTree, gone: ReadonlySet<string>): RevTree {
  const out: RevTree = [];
  for (const root of tree) {
    const node = prune(root.node, root.pos, gone);
    if (node !== undefined) out.push({ pos: root.pos, node });
  }
  return out;
}

/** A copy of the subtree without the removed leaves; undefined when nothing of it is left. */
function prune(node: RevNode, pos: number, gone: ReadonlySet<string>): RevNode | undefined {
  // Iterative post-order (histories can be thousands of revisions deep).
  const copies = new Map<RevNode, RevNode | undefined>();
  const stack: [RevNode, number, boolean][] = [[node, pos, false]];
  while (stack.length > 0) {
    const [current, at, visited] = stack.pop()!;
    if (current.children.length === 0) {
      copies.set(current, gone.has(formatRev({ pos: at, id: current.id })) ? undefined : { ...current, children: [] });
      continue;
    }
    if (!visited) {
      stack.push([current, at, true]);
      for (const child of current.children) stack.push([child, at + 1, false]);
      continue;
    }
    const children: RevNode[] = [];
    for (const child of current.children) {
      const copy = copies.get(child);
      if (copy !== undefined) children.push(copy);
      copies.delete(child);
    }
    copies.set(current, children.length === 0 ? undefined : { ...current, children });
  }
  return copies.get(node);
}
