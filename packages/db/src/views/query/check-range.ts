/**
 * couch_mrview_util:check_range for a view query: (startkey, startkey_docid) must sort before
 * (endkey, endkey_docid) in the iteration direction, with the view's collation and CouchDB's
 * default doc ids. `_all_docs` does not check (a reversed range has no rows there).
 */
import { collateRows, compareUtf8 } from '../../collation/index.js';
import { type Args, isObject, queryParseError } from './params.js';

/** The doc id above every other (CouchDB's <<255>>, the default end doc id going forward). */
const HIGHEST_ID = Symbol('highest doc id');
type BoundId = string | typeof HIGHEST_ID;

/**
 * check_range: (startkey, startkey_docid) must sort before (endkey, endkey_docid) in the
 * iteration direction, with the view's collation and CouchDB's default doc ids. Skipped when the
 * two keys are the same term, whatever the doc ids.
 */
export function checkRange(args: Args, raw: boolean): void {
  const { startkey, endkey, descending } = args;
  if (startkey === undefined || endkey === undefined || sameTerm(startkey, endkey)) return;
  const startId: BoundId = (args.startkeyDocid as string | undefined) ?? (descending ? HIGHEST_ID : '');
  const endId: BoundId = (args.endkeyDocid as string | undefined) ?? (descending ? '' : HIGHEST_ID);
  const less = compareBounds(startkey, startId, endkey, endId, raw) < 0;
  if (!descending && !less) {
    throw queryParseError(
      'No rows can match your key range, reverse your start_key and end_key or set descending=true',
    );
  }
  if (descending && less) {
    throw queryParseError(
      'No rows can match your key range, reverse your start_key and end_key or set descending=false',
    );
  }
}

function compareBounds(aKey: unknown, aId: BoundId, bKey: unknown, bId: BoundId, raw: boolean): number {
  if (typeof aId === 'string' && typeof bId === 'string') return collateRows(aKey, aId, bKey, bId, raw);
  const byKey = collateRows(aKey, '', bKey, '', raw);
  if (byKey !== 0) return byKey;
  if (aId === bId) return 0;
  return aId === HIGHEST_ID ? 1 : bId === HIGHEST_ID ? -1 : compareUtf8(aId, bId);
}

/** Erlang term equality of two decoded JSON values (object member order matters). */
function sameTerm(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => sameTerm(item, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ak = Object.keys(a);
    const bk = Object.keys(b);
    return ak.length === bk.length && ak.every((k, i) => k === bk[i] && sameTerm(a[k], b[k]));
  }
  return false;
}
