/**
 * CouchDB's `w`: how many copies must have a write before it answers 201 (or 200); fewer, and
 * the write stands but answers 202 Accepted. A Divan database is one copy (every node shares
 * one storage), so any `w` above 1 answers 202, as a single CouchDB node does.
 */
import type { RequestContext } from './context.js';

/** Copies every write reaches. */
const COPIES = 1;

/** `status` for a write whose `w` (query string, or a `_bulk_docs` body's) the copies meet, else 202. */
export function writtenStatus(ctx: RequestContext, status: number, bodyW?: unknown): number {
  const raw = typeof bodyW === 'number' ? String(bodyW) : ctx.query.get('w');
  if (raw === null || !/^\d+$/.test(raw)) return status;
  return Number(raw) > COPIES ? 202 : status;
}
