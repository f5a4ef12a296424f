/**
 * Roles given or taken away in `_users`, in a reader's feed (per-document `_access`,
 * ./access-rules.ts). Each feed query records the reader's roles as they are now in the
 * database's role log (`DocumentStore.recordRoles`): a change gives the user a row, at a new
 * sequence of its own, for each document a gained role reads (the back-fill of older documents a
 * client that resumes from its checkpoint would miss) and each document a lost role read that
 * the user reads no more (a `removed` row with `removed=true`, so a client can purge it). The
 * feed is the user's principals' rows merged with those, newest row per document; a role row is
 * shown as readable only when the user reads the document now.
 */
import type { AccessChange, Page } from '../storage/records.js';
import { type AccessReader, overlaps, principalsOf } from './access-rules.js';
import type { Database } from './database.js';

/** Rows per page given out of a merged feed. */
const PAGE_ROWS = 256;

interface FeedPrincipals {
  principals: readonly string[];
  /** The user whose role rows count (a reader with an account in `_users`). */
  user?: string;
}

/**
 * The reader's principals as a feed takes them: with their roles as `_users` has them now,
 * recorded in the role log first (a change moves the update sequence, waking other feeds).
 */
export async function feedPrincipalsOf(db: Database, reader: AccessReader): Promise<FeedPrincipals> {
  const account = reader.account;
  const current = account === undefined ? undefined : await account.roles();
  if (account === undefined || current === undefined) return { principals: reader.principals };
  const principals = principalsOf({ name: account.name, roles: [...current.roles] });
  const user = account.log ?? account.name;
  const { seq } = await db.store.recordRoles(user, current.roles, principals, current.version);
  if (seq !== undefined) db.notifyChanged(seq);
  return { principals, user };
}

/** `DocumentStore.foldAccessChanges` for a reader, with their role rows (see the top). */
export async function* accessChanges(
  db: Database,
  reader: AccessReader,
  since: number,
  options: { descending?: boolean; withRemoved?: boolean },
): AsyncGenerator<Page<AccessChange>> {
  const { principals, user } = await feedPrincipalsOf(db, reader);
  const merged = user === undefined ? undefined : await withRoleRows(db, principals, user, since);
  if (merged === undefined) {
    yield* db.store.foldAccessChanges(principals, since, options);
    return;
  }
  const list = merged.filter((change) => options.withRemoved === true || !change.removed);
  if (options.descending === true) list.reverse();
  for (let at = 0; at < list.length; at += PAGE_ROWS) yield list.slice(at, at + PAGE_ROWS);
}

/** How many changes `accessChanges` would give. */
export async function countAccessChanges(
  db: Database,
  reader: AccessReader,
  since: number,
  withRemoved: boolean,
): Promise<number> {
  const { principals, user } = await feedPrincipalsOf(db, reader);
  const merged = user === undefined ? undefined : await withRoleRows(db, principals, user, since);
  if (merged === undefined) return db.store.countAccessChanges(principals, since, withRemoved);
  return merged.filter((change) => withRemoved || !change.removed).length;
}

/**
 * The feed after `since` with the user's role rows merged in, by sequence; undefined when there
 * are none after `since` (the principals' rows alone are the feed). From 0 they add nothing: a
 * document the user reads now has a row of theirs, and one they lost was never sent.
 */
async function withRoleRows(
  db: Database,
  principals: readonly string[],
  user: string,
  since: number,
): Promise<AccessChange[] | undefined> {
  if (since === 0) return undefined;
  const rows = [];
  for await (const page of db.store.foldRoleRows(user, since)) rows.push(...page);
  if (rows.length === 0) return undefined;
  const byId = new Map<string, AccessChange>();
  for await (const page of db.store.foldAccessChanges(principals, since, { withRemoved: true })) {
    for (const change of page) byId.set(change.record.id, change);
  }
  const newer = rows.filter((row) => (byId.get(row.id)?.seq ?? 0) < row.seq);
  const ids = newer.map((row) => row.id);
  const [records, readers] = await Promise.all([db.store.getDocs(ids), db.store.readersOf(ids)]);
  newer.forEach((row, i) => {
    const record = records[i];
    if (record === undefined) return;
    // The feed shows the row's sequence (the document's own is older than the client's checkpoint).
    byId.set(row.id, {
      seq: row.seq,
      removed: !overlaps(principals, readers[i] ?? []),
      record: { ...record, seq: row.seq },
    });
  });
  return [...byId.values()].sort((a, b) => a.seq - b.seq);
}
