/**
 * A document's access as an engine keeps it in the document's own row (per-document `_access`,
 * ./records.ts `AccessWrite`): its readers, the principals whose access rows say `removed` (so a
 * purge finds every row of the document), and the document layer's text of its leaves when it is
 * not `uniformLeaves(readers)`. Kept in the row a write rewrites anyway, a document's readers
 * cost no index of their own: the access rows need only the principals' orders (by id, by
 * sequence).
 */
import { type AccessWrite, uniformLeaves } from './records.js';

export interface DocAccess {
  /** The principals who may read the document now, in UTF-8 byte order. */
  readers: string[];
  /** Principals with a `removed` access row of the document (none of them a reader). */
  gone: string[];
  /** `AccessWrite.leaves` when it is not `uniformLeaves(readers)`. */
  leaves?: string;
}

/** The stored text (NULL for a document nobody but admins reads and nobody lost). */
export function encodeDocAccess(access: DocAccess): string | null {
  if (access.readers.length === 0 && access.gone.length === 0 && access.leaves === undefined) return null;
  return JSON.stringify(
    access.leaves === undefined ? [access.readers, access.gone] : [access.readers, access.gone, access.leaves],
  );
}

export function decodeDocAccess(text: string | null | undefined): DocAccess {
  if (text === null || text === undefined) return { readers: [], gone: [] };
  const [readers, gone, leaves] = JSON.parse(text) as [string[], string[], string?];
  return leaves === undefined ? { readers, gone } : { readers, gone, leaves };
}

/** The `DocRecord.access` text of a stored access, if it has one. */
export function leavesOfDocAccess(access: DocAccess): string | undefined {
  if (access.leaves !== undefined) return access.leaves;
  return access.readers.length > 0 ? uniformLeaves(access.readers) : undefined;
}

/**
 * A document's access after a write: `write`'s readers (ordered, once each), and the principals
 * who read it before and do not now added to those who lost it already.
 */
export function nextDocAccess(before: DocAccess, write: AccessWrite): { next: DocAccess; removed: string[] } {
  const readers = [...new Set(write.readers)];
  if (readers.length > 1) readers.sort(compareUtf8);
  const removed = before.readers.filter((principal) => !readers.includes(principal));
  const gone = [...new Set([...before.gone, ...removed])].filter((principal) => !readers.includes(principal));
  const next: DocAccess = { readers, gone };
  if (write.leaves !== uniformLeaves(readers)) next.leaves = write.leaves;
  return { next, removed };
}

/** UTF-8 byte order (SQLite's BINARY collation, PostgreSQL's "C"): code point order. */
function compareUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}
