/**
 * Per-document access (`_access`, CouchDB's per-doc-access branch, with Divan's decided
 * differences): who may write and read a document of an access-enabled database.
 *
 * - A document's `_access` is a list of user names and role names (`_users`: every signed-in
 *   user). A user's principals are their name, their roles and `_users`; a user reads a document
 *   when the two overlap. No `_access` (or `[]`): admins only.
 * - Each leaf of a document keeps its own `_access`; the document's *effective* access is the
 *   intersection over its live leaves (every leaf deleted: the winning tombstone's), so a
 *   conflicting branch never shows one user's edit to another.
 * - A non-admin write is allowed when the writer's principals meet both the effective access of
 *   the document as stored (tombstones included) and the `_access` of the new revision: checked
 *   before the conflict decision, so a refused writer learns nothing about revisions.
 * - A tombstone written without `_access` inherits its parent's; with autofill on, a non-admin's
 *   write without `_access` gets `[name]` on create and the effective access on update.
 * - `_access` is not part of the revision hash in an access-enabled database.
 *
 * The planner part (`AccessPlanner`) runs inside the storage transaction with the records'
 * stored leaves (`DocRecord.access`), pure like the write planner it serves.
 */
import type { UserCtx } from '../auth/index.js';
import { CouchError } from '../errors.js';
import { JsonObject, type JsonValue } from '../json/index.js';
import { formatRev, leaves as leavesOf, type RevTree, winner } from '../revisions/index.js';
import { type AccessWrite, type DocRecord, UNIFORM_LEAF, uniformLeaves } from '../storage/records.js';
import { compareIds } from './id-order.js';
import type { DocInput } from './doc-input.js';

/** The member that holds a document's readers. */
export const ACCESS_MEMBER = '_access';

/** The role every signed-in user holds for `_access` (the branch's `extract_roles`). */
export const USERS_ROLE = '_users';

/** The database property that makes a database access-enabled (set once, at creation). */
export const ACCESS_PROP = 'access';

/** Every refused write, whatever the reason (the branch's `{forbidden, access}`). */
export const accessDenied = (): CouchError => new CouchError('forbidden', 'access', 403);

export const ddocWithAccess = (): CouchError =>
  new CouchError('ddocs_with_access', 'Design Docs with an _access property are not allowed', 403);

/**
 * The user as an access-enabled database's `_security` sees them: signed in, they hold `_users`
 * (the branch's "every logged-in user"). Other databases see the user as CouchDB 3.5 does, where
 * `_users` is a role like any other.
 */
export function withUsersRole(user: UserCtx): UserCtx {
  if (user.name === null || user.roles.includes(USERS_ROLE)) return user;
  return { ...user, roles: [...user.roles, USERS_ROLE] };
}

/** A user's principals: their name, their roles, and `_users` when signed in. */
export function principalsOf(user: UserCtx): string[] {
  const out = new Set<string>(user.roles);
  if (user.name !== null) {
    out.add(user.name);
    out.add(USERS_ROLE);
  }
  return [...out];
}

/** Whether any principal is among the readers. */
export function overlaps(principals: readonly string[], readers: readonly string[]): boolean {
  return readers.some((reader) => principals.includes(reader));
}

/** `_access` of a body: undefined when absent; 400 `doc_validation` unless a list of strings. */
export function accessOfBody(body: JsonObject): string[] | undefined {
  const value = body.get(ACCESS_MEMBER);
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((entry): entry is string => typeof entry === 'string')) {
    throw new CouchError('doc_validation', '_access must be a list of user and role names');
  }
  // The usual list (one name, a few distinct ones) as it is: no Set and copy per write.
  return value.every((entry, i) => value.indexOf(entry) === i) ? value : [...new Set(value)];
}

/** `_access` of a stored body text (a `_local` document's), [] when it has none. */
export function accessOfText(text: string): string[] {
  try {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    const value = parsed[ACCESS_MEMBER];
    return Array.isArray(value) ? value.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * Each leaf's `_access`, by rev: what storage keeps with the document (`AccessWrite.leaves`, the
 * JSON object of this map). A Map: revision ids as property names would each be interned, and
 * cost an object a dictionary insert (a quarter of an access write's planning).
 */
export type LeafAccess = ReadonlyMap<string, readonly string[]>;

/** A document without stored leaves (read-only: a write's leaves are a new map). */
const NO_LEAVES: LeafAccess = new Map();

/**
 * Stored leaves texts already parsed, shared: the documents of one user or role carry the same
 * text, so an update parses it once, not per write. Read-only (the lists are frozen); emptied
 * when full.
 */
const parsedLeaves = new Map<string, LeafAccess>();
const PARSED_LEAVES = 1024;

/** The stored text each parsed leaves map was parsed from (`writtenAppended` hands it back). */
const leavesTexts = new WeakMap<LeafAccess, string>();

/** The leaves of a stored `DocRecord.access` text. */
function parseLeaves(text: string): LeafAccess {
  let leaves = parsedLeaves.get(text);
  if (leaves === undefined) {
    const entries = Object.entries(JSON.parse(text) as Record<string, string[]>);
    leaves = new Map(entries.map(([rev, list]) => [rev, Object.freeze(list)]));
    if (parsedLeaves.size >= PARSED_LEAVES) parsedLeaves.clear();
    parsedLeaves.set(text, leaves);
    leavesTexts.set(leaves, text);
  }
  return leaves;
}

/** A leaf's `_access` as stored: its own, or every leaf's (`uniformLeaves`, storage/records.ts). */
function leafAccess(leaves: LeafAccess, rev: string): readonly string[] | undefined {
  return leaves.get(rev) ?? leaves.get(UNIFORM_LEAF);
}

/**
 * The stored text of a document's leaves: `uniformLeaves` when each has the same `_access`,
 * listed in UTF-8 byte order (the engine then keeps none: the readers' rows say it), else each
 * leaf's own.
 */
function leavesText(next: LeafAccess, readers: readonly string[]): string {
  const uniform =
    isOrdered(readers) &&
    [...next.values()].every((list) => list.length === readers.length && list.every((p, i) => p === readers[i]));
  return uniform ? uniformLeaves(readers) : JSON.stringify(Object.fromEntries(next));
}

/** Whether each reader comes after the one before it in id order (so none twice). */
function isOrdered(readers: readonly string[]): boolean {
  for (let i = 1; i < readers.length; i++) if (compareIds(readers[i - 1]!, readers[i]!) >= 0) return false;
  return true;
}

/** The effective access of a document: the intersection over its live leaves (see the top). */
export function effectiveAccess(tree: RevTree, leaves: LeafAccess): string[] {
  const live = leavesOf(tree).filter((leaf) => !leaf.deleted);
  if (live.length === 0) {
    const top = winner(tree);
    return top === undefined ? [] : [...(leafAccess(leaves, formatRev(top)) ?? [])];
  }
  let readers: string[] | undefined;
  for (const leaf of live) {
    const own = leafAccess(leaves, formatRev(leaf)) ?? [];
    readers = readers === undefined ? [...own] : readers.filter((reader) => own.includes(reader));
  }
  return readers ?? [];
}

/** A reader who sees only what their principals may read (a non-admin in an access-enabled database). */
export interface AccessReader {
  principals: readonly string[];
  /**
   * Where a feed reads the reader's roles as they are now (./access-roles.ts), with a number that
   * orders them: their account in `_users` (its document's revision number), or for a user whose
   * roles come with each request (JWT, proxy) the request's roles. `log` names the user in the
   * role log when it is not `name` (request roles keep a log of their own). Undefined roles: none
   * known (no such account).
   */
  account?: {
    name: string;
    log?: string;
    roles: () => Promise<{ roles: readonly string[]; version: number } | undefined>;
  };
}

/** Who writes, as the access rules see it. */
export interface AccessWriter {
  /** Server admin or DB admin: no access rule applies. */
  admin: boolean;
  name: string | null;
  principals: readonly string[];
  /** `[per_doc_access] autofill`. */
  autofill: boolean;
}

/**
 * The access part of one write plan (one storage transaction): it sees each document's stored
 * leaves, admits or refuses each write, and gives each write its access rows.
 */
export class AccessPlanner {
  /** Each document's leaves as this plan left them; one appended leaf as itself (see `planned`). */
  private readonly leaves = new Map<string, LeafAccess | AppendedLeaf>();

  private leavesOf(id: string, record: DocRecord | undefined): LeafAccess {
    let found = this.planned(id);
    if (found === undefined) {
      found = record?.access === undefined ? NO_LEAVES : parseLeaves(record.access);
      this.leaves.set(id, found);
    }
    return found;
  }

  /**
   * The leaves an earlier write of this plan left `id` with. A map only when asked: the usual
   * plan writes each document once, and its appended leaf is then never read again.
   */
  private planned(id: string): LeafAccess | undefined {
    const found = this.leaves.get(id);
    if (!(found instanceof AppendedLeaf)) return found;
    const leaves = new Map<string, readonly string[]>().set(found.rev, found.readers);
    this.leaves.set(id, leaves);
    return leaves;
  }

  /**
   * Whether `admit` needs the document's tree: not when every leaf has the same `_access` (or
   * none has any), as the document's access is then that one list whatever its leaves are.
   */
  needsTree(id: string, record: DocRecord | undefined): boolean {
    const leaves = this.leavesOf(id, record);
    return leaves.size > 1 || (leaves.size === 1 && !leaves.has(UNIFORM_LEAF));
  }

  /**
   * Admits a write or throws 403 `forbidden`/`access`: the input to plan, its `_access` filled
   * where it inherits one, and the `_access` its new revision gets.
   */
  admit(
    id: string,
    input: DocInput,
    record: DocRecord | undefined,
    tree: RevTree | undefined,
    writer: AccessWriter,
  ): { input: DocInput; access: readonly string[] } {
    const leaves = this.leavesOf(id, record);
    // Without the tree (`needsTree` said so) a stored document's leaves share one `_access`.
    const current: readonly string[] | undefined =
      tree !== undefined
        ? effectiveAccess(tree, leaves)
        : record === undefined
          ? undefined
          : (leaves.get(UNIFORM_LEAF) ?? []);
    const explicit = accessOfBody(input.body);
    let access: readonly string[] | undefined = explicit;
    if (access === undefined) {
      if (input.deleted) access = parentAccess(input, leaves) ?? current ?? [];
      else if (!writer.admin && writer.autofill) access = current ?? (writer.name === null ? [] : [writer.name]);
      else access = [];
    }
    if (!writer.admin) {
      if (current !== undefined && !overlaps(writer.principals, current)) throw accessDenied();
      if (!overlaps(writer.principals, access)) throw accessDenied();
    }
    // The input as given unless `_access` was filled in (the usual write names it).
    if (explicit !== undefined || access.length === 0) return { input, access };
    const body = new JsonObject([...input.body.keys], [...input.body.values]);
    body.set(ACCESS_MEMBER, [...access]);
    return { input: { ...input, body, json: undefined }, access };
  }

  /** The access rows of a document after its edit: `rev` (a new leaf) gets `access`. */
  written(id: string, tree: RevTree, rev: string, access: readonly string[]): AccessWrite {
    const before = this.planned(id);
    const next = narrowedLeaves(tree, (key) => (key === rev ? [...access] : before && leafAccess(before, key)));
    this.leaves.set(id, next);
    const readers = effectiveAccess(tree, next);
    return { leaves: leavesText(next, readers), readers };
  }

  /**
   * The stored access of `id` when every leaf of it has exactly `access` and this plan has not
   * written it yet: its leaves text as stored and its readers (a frozen list), which the write
   * keeps. Undefined otherwise.
   */
  private keptUniform(id: string, access: readonly string[]): AccessWrite | undefined {
    const stored = this.leaves.get(id);
    if (stored === undefined || stored instanceof AppendedLeaf || stored.size !== 1) return undefined;
    const readers = stored.get(UNIFORM_LEAF);
    const leaves = leavesTexts.get(stored);
    if (readers === undefined || leaves === undefined || readers.length !== access.length) return undefined;
    for (let i = 0; i < readers.length; i++) if (readers[i] !== access[i]) return undefined;
    return { leaves, readers };
  }

  /**
   * `written` for a revision whose document then has that one leaf (appended to a one-line
   * history, revisions/linear-append.ts, or a document's first): its `_access` is the document's.
   */
  writtenAppended(id: string, rev: string, access: readonly string[]): AccessWrite {
    // The usual update keeps its document's `_access`: its leaves text is the stored one, as it is.
    const kept = this.keptUniform(id, access);
    if (kept !== undefined) {
      this.leaves.set(id, new AppendedLeaf(rev, kept.readers));
      return kept;
    }
    const readers = [...access];
    // `set` on an empty map, not an entries list: no arrays per write.
    this.leaves.set(id, new AppendedLeaf(rev, readers));
    // One leaf: uniform whenever its list is in order (`leavesText`).
    return { leaves: isOrdered(readers) ? uniformLeaves(readers) : JSON.stringify({ [rev]: readers }), readers };
  }
}

/** A document's one leaf, as `writtenAppended` left it (`AccessPlanner.planned`). */
class AppendedLeaf {
  constructor(
    readonly rev: string,
    readonly readers: readonly string[],
  ) {}
}

/** Each leaf of `tree` with the `_access` `kept` gives it (none: left out). */
function narrowedLeaves(tree: RevTree, kept: (rev: string) => readonly string[] | undefined): LeafAccess {
  const next = new Map<string, readonly string[]>();
  for (const leaf of leavesOf(tree)) {
    const key = formatRev(leaf);
    const access = kept(key);
    if (access !== undefined) next.set(key, access);
  }
  return next;
}

/**
 * The access of a document a purge left some leaves of: the leaves' stored `_access` (the
 * `DocRecord.access` text) narrowed to the leaves still in `tree`, and its effective readers.
 */
export function accessAfterPurge(tree: RevTree, stored: string): AccessWrite {
  const before = parseLeaves(stored);
  const next = narrowedLeaves(tree, (key) => leafAccess(before, key));
  const readers = effectiveAccess(tree, next);
  return { leaves: leavesText(next, readers), readers };
}

/** The `_access` of the leaf a deletion replaces (its parent), when the plan knows it. */
function parentAccess(input: DocInput, leaves: LeafAccess): readonly string[] | undefined {
  if (input.revisions !== undefined && input.revisions.ids.length > 1) {
    return leafAccess(leaves, `${input.revisions.start - 1}-${input.revisions.ids[1]}`);
  }
  return input.rev === undefined ? undefined : leafAccess(leaves, formatRev(input.rev));
}

/**
 * The access rules a write meets before planning (`checkWrites`), in an access-enabled database:
 * `_access` must be a list of strings; a design document carries none (everyone, admins too);
 * a `_local` document follows the document rules against its stored `_access` (it has no
 * revision tree for the planner to check). May fill a `_local` document's `_access` (autofill).
 * Synchronous (undefined) unless a non-admin writes a `_local` document, whose stored `_access`
 * is read: a usual write waits for no promise here.
 */
export function checkAccessWrite(
  readLocal: (id: string) => Promise<{ body: string } | undefined>,
  id: string,
  input: DocInput,
  writer: AccessWriter,
  kind: 'design' | 'local' | 'doc',
): Promise<void> | undefined {
  const explicit = accessOfBody(input.body);
  if (kind === 'design' && explicit !== undefined && explicit.length > 0) throw ddocWithAccess();
  if (kind !== 'local' || writer.admin) return undefined;
  return checkLocalWrite(readLocal, id, input, writer, explicit);
}

/** `checkAccessWrite` of a non-admin's `_local` document: against its stored `_access`. */
async function checkLocalWrite(
  readLocal: (id: string) => Promise<{ body: string } | undefined>,
  id: string,
  input: DocInput,
  writer: AccessWriter,
  explicit: string[] | undefined,
): Promise<void> {
  const stored = await readLocal(id);
  const current = stored === undefined ? undefined : accessOfText(stored.body);
  if (current !== undefined && !overlaps(writer.principals, current)) throw accessDenied();
  if (input.deleted) return;
  let access = explicit;
  if (access === undefined && writer.autofill) {
    access = current ?? (writer.name === null ? [] : [writer.name]);
    input.body = new JsonObject([...input.body.keys], [...input.body.values]).set(ACCESS_MEMBER, access as JsonValue);
    input.json = undefined;
  }
  if (!overlaps(writer.principals, access ?? [])) throw accessDenied();
}
