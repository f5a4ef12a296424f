/**
 * A document's access as an engine keeps it in the document's own row (per-document `_access`,
 * ./records.ts `AccessWrite`): its readers and the sequence of their access rows, the principals
 * whose access row says `removed` with the sequence of each (so a write or a purge finds every
 * row of the document, and `_changes` which of a user's rows is the newest), and the document
 * layer's text of its leaves when it is not `uniformLeaves(readers)`. Kept in the row a write
 * rewrites anyway, it lets the access rows live in one order only: by principal and sequence.
 */
import { type AccessWrite, UNIFORM_LEAF, uniformLeaves } from './records.js';
import { compareCodePoints } from '../support/unicode.js';

export interface DocAccess {
  /** The principals who may read the document now, in UTF-8 byte order. */
  readers: string[];
  /** The sequence of the readers' access rows (all at the document's last write with access). */
  at: number;
  /** Principals with a `removed` access row of the document (none of them a reader). */
  gone: string[];
  /** `goneAt[i]`: the sequence of `gone[i]`'s `removed` row. */
  goneAt: number[];
  /** `AccessWrite.leaves` when it is not `uniformLeaves(readers)`. */
  leaves?: string;
}

/** An access row of a document: its principal and sequence (the row's key). */
export type AccessRowKey = readonly [principal: string, seq: number];

/**
 * The stored text (NULL for a document nobody but admins reads and nobody lost):
 * `[readers, gone, leaves or null, at]`, then `goneAt` when someone lost it.
 */
export function encodeDocAccess(access: DocAccess): string | null {
  if (access.readers.length === 0 && access.gone.length === 0 && access.leaves === undefined) return null;
  const fields: unknown[] = [access.readers, access.gone, access.leaves ?? null, access.at];
  if (access.gone.length > 0) fields.push(access.goneAt);
  return JSON.stringify(fields);
}

export function decodeDocAccess(text: string | null | undefined): DocAccess {
  if (text === null || text === undefined) return { readers: [], at: 0, gone: [], goneAt: [] };
  return decodeDocAccessFields(JSON.parse(text) as unknown[]);
}

/** `decodeDocAccess` of a text already parsed (fields past `goneAt` are the engine's: ignored). */
export function decodeDocAccessFields(fields: readonly unknown[]): DocAccess {
  const [readers, gone, leaves, at, goneAt] = fields as [string[], string[], string | null, number?, number[]?];
  const access: DocAccess = { readers, at: at ?? 0, gone, goneAt: goneAt ?? [] };
  if (typeof leaves === 'string') access.leaves = leaves;
  return access;
}

/** The `DocRecord.access` text of a stored access, if it has one. */
export function leavesOfDocAccess(access: DocAccess): string | undefined {
  if (access.leaves !== undefined) return access.leaves;
  return access.readers.length > 0 ? uniformLeaves(access.readers) : undefined;
}

/** A document's access after a write at `seq`, and the access rows the write changes. */
export interface NextDocAccess {
  next: DocAccess;
  /** Principals who read it before and do not now: each gets a `removed` row at `seq`. */
  removed: string[];
  /** The rows the write replaces (every reader's old row; a returning principal's `removed` row). */
  stale: AccessRowKey[];
}

/**
 * A document's access after a write at `seq`: `write`'s readers (ordered, once each) with rows
 * at `seq`, and the principals who read it before and do not now added to those who lost it
 * already, at `seq` too.
 */
export function nextDocAccess(before: DocAccess, write: AccessWrite, seq: number): NextDocAccess {
  const readers = write.readers.length < 2 ? [...write.readers] : [...new Set(write.readers)].sort(compareUtf8);
  const stale: AccessRowKey[] = before.readers.map((principal) => [principal, before.at]);
  const removed = before.readers.filter((principal) => !readers.includes(principal));
  const gone: string[] = [];
  const goneAt: number[] = [];
  before.gone.forEach((principal, i) => {
    const at = before.goneAt[i] ?? 0;
    if (readers.includes(principal)) stale.push([principal, at]);
    else {
      gone.push(principal);
      goneAt.push(at);
    }
  });
  for (const principal of removed) {
    gone.push(principal);
    goneAt.push(seq);
  }
  const next: DocAccess = { readers, at: seq, gone, goneAt };
  if (write.leaves !== uniformLeaves(readers)) next.leaves = write.leaves;
  return { next, removed, stale };
}

/** What the usual stored text holds after its readers: nobody lost the document, no leaves text. */
const USUAL_TAIL = ',[],null,';

/**
 * The usual stored text (`[readers,[],null,at]`: every leaf has the readers' `_access`, nobody
 * lost the document) taken apart without parsing it: the readers' JSON and their rows'
 * sequence. Undefined for any other text. Only such a text ends in `,[],null,` and digits: a
 * leaves text or a name is a quoted string, and `goneAt` (a list) follows any non-empty `gone`.
 */
export function usualDocAccess(text: string): { readersJson: string; at: number } | undefined {
  const tail = text.lastIndexOf(USUAL_TAIL);
  const last = text.length - 1;
  const from = tail + USUAL_TAIL.length;
  if (tail < 2 || text.charCodeAt(0) !== 0x5b || text.charCodeAt(last) !== 0x5d || from === last) return undefined;
  let at = 0;
  for (let i = from; i < last; i++) {
    const digit = text.charCodeAt(i) - 0x30;
    if (digit < 0 || digit > 9) return undefined;
    at = at * 10 + digit;
  }
  return { readersJson: text.slice(1, tail), at };
}

/** The `DocRecord.access` text of a stored access text (`leavesOfDocAccess`), parsing only an unusual one. */
export function leavesOfStoredText(text: string | null): string | undefined {
  if (text === null) return undefined;
  const usual = usualDocAccess(text);
  if (usual === undefined) return leavesOfDocAccess(decodeDocAccess(text));
  return usual.readersJson === '[]' ? undefined : `{"${UNIFORM_LEAF}":${usual.readersJson}}`;
}

/** `nextDocAccess`'s answer with the next access as its stored text. */
export interface NextDocAccessText {
  /** The principals who read the document after the write (each gets a row at its sequence). */
  readers: readonly string[];
  /** Principals who read the document before the write and do not after it. */
  removed: readonly string[];
  /** The rows the write replaces. */
  stale: readonly AccessRowKey[];
  /** The stored access text after the write. */
  text: string | null;
}

/**
 * `nextDocAccess` from and to the stored texts (`before`: null for a document with none). The
 * usual write (readers in order whose every leaf has them, a new document's or an update that
 * keeps its readers) is made by concatenation, without parsing the stored text or building the
 * next one; any other write goes through `nextDocAccess`.
 */
export function nextDocAccessText(before: string | null, write: AccessWrite, seq: number): NextDocAccessText {
  const readersJson = JSON.stringify(write.readers);
  // The write's leaves are uniform and its readers ordered, once each (`uniformLeaves`' rule).
  if (
    write.readers.length > 0 &&
    write.leaves === `{"${UNIFORM_LEAF}":${readersJson}}` &&
    isStrictlyOrdered(write.readers)
  ) {
    const text = `[${readersJson}${USUAL_TAIL}${seq}]`;
    if (before === null) return { readers: write.readers, removed: [], stale: [], text };
    const usual = usualDocAccess(before);
    if (usual !== undefined && usual.readersJson === readersJson) {
      const stale = write.readers.map((principal): AccessRowKey => [principal, usual.at]);
      return { readers: write.readers, removed: [], stale, text };
    }
  }
  const { next, removed, stale } = nextDocAccess(decodeDocAccess(before), write, seq);
  return { readers: next.readers, removed, stale, text: encodeDocAccess(next) };
}

/**
 * The usual stored text of a write at `seq` (its readers in order, once each, and every leaf with
 * them) for a document with no text before it: `nextDocAccessText(null, write, seq).text` made
 * without the rest of its answer. Undefined for any other write.
 */
export function usualNewText(write: AccessWrite, seq: number): string | undefined {
  const readersJson = JSON.stringify(write.readers);
  if (
    write.readers.length === 0 ||
    write.leaves !== `{"${UNIFORM_LEAF}":${readersJson}}` ||
    !isStrictlyOrdered(write.readers)
  )
    return undefined;
  return `[${readersJson}${USUAL_TAIL}${seq}]`;
}

/** Every access row of a document (a purge takes them all). */
export function rowsOfDocAccess(access: DocAccess): AccessRowKey[] {
  return [
    ...access.readers.map((principal): AccessRowKey => [principal, access.at]),
    ...access.gone.map((principal, i): AccessRowKey => [principal, access.goneAt[i] ?? 0]),
  ];
}

/**
 * Whether a user's (`principals`) `removed` row at `seq` is their newest of the document: no
 * principal of theirs reads it now, and none lost it later.
 */
export function isNewestRemoval(access: DocAccess, principals: ReadonlySet<string>, seq: number): boolean {
  if (access.readers.some((principal) => principals.has(principal))) return false;
  return access.gone.every((principal, i) => !principals.has(principal) || (access.goneAt[i] ?? 0) <= seq);
}

/** Whether any of `principals` reads the document now. */
export function readByAny(access: DocAccess, principals: ReadonlySet<string> | readonly string[]): boolean {
  const set = principals instanceof Set ? principals : new Set(principals as readonly string[]);
  return access.readers.some((principal) => set.has(principal));
}

/** Whether each principal comes after the one before it in UTF-8 byte order (so none twice). */
function isStrictlyOrdered(principals: readonly string[]): boolean {
  for (let i = 1; i < principals.length; i++) {
    if (compareCodePoints(principals[i - 1]!, principals[i]!) >= 0) return false;
  }
  return true;
}

/** UTF-8 byte order (SQLite's BINARY collation, PostgreSQL's "C"): code point order. */
function compareUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}
