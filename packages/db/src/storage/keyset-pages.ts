/**
 * Keyset pagination, the paging loop of every fold of both engines: a page is one query for the
 * rows after the key of the last row of the page before (the first page from the walk's start),
 * so no statement or transaction stays open between two pages and writers go on meanwhile. A page
 * shorter than asked for is the last.
 *
 * SQLite reads synchronously (`keysetPages`), PostgreSQL over the network (`keysetPagesAsync`);
 * both walk the same `KeysetCursor`.
 */

/** Rows per page: a fixed count, or growing fourfold from `first` up to `max`. */
export type PageSizes = number | { first: number; max: number };

/** Small first (callers often stop after a few rows, `limit=10`), then larger. */
export const GROWING_PAGES: PageSizes = { first: 64, max: 1024 };

/** What the query of one page is given. */
export interface PageQuery<Key> {
  /** The walk's start for the first page, then the key of the last row read. */
  from: Key;
  /** Whether this is the first page: some walks include their start, never a row already read. */
  first: boolean;
  /** Rows to ask for. */
  limit: number;
}

/** Where a walk is: the next page's query, moved on by each page read. */
class KeysetCursor<Row, Key> {
  query: PageQuery<Key>;

  constructor(
    from: Key,
    private readonly keyOf: (row: Row) => Key,
    private readonly sizes: PageSizes,
  ) {
    this.query = { from, first: true, limit: typeof sizes === 'number' ? sizes : sizes.first };
  }

  /** Moves past `rows` (the page the query gave); false when it was the last. */
  advance(rows: readonly Row[]): boolean {
    const last = rows[rows.length - 1];
    if (last === undefined || rows.length < this.query.limit) return false;
    const sizes = this.sizes;
    const limit = typeof sizes === 'number' ? sizes : Math.min(this.query.limit * 4, sizes.max);
    this.query = { from: this.keyOf(last), first: false, limit };
    return true;
  }
}

/** The non-empty pages of a walk, each read when the one before has been taken. */
export function* keysetPages<Row, Key>(
  from: Key,
  keyOf: (row: Row) => Key,
  sizes: PageSizes,
  read: (query: PageQuery<Key>) => readonly Row[],
): Generator<readonly Row[]> {
  const cursor = new KeysetCursor(from, keyOf, sizes);
  for (let more = true; more; ) {
    const rows = read(cursor.query);
    if (rows.length > 0) yield rows;
    more = cursor.advance(rows);
  }
}

/** `keysetPages` with a query that answers later (a network round trip). */
export async function* keysetPagesAsync<Row, Key>(
  from: Key,
  keyOf: (row: Row) => Key,
  sizes: PageSizes,
  read: (query: PageQuery<Key>) => Promise<readonly Row[]>,
): AsyncGenerator<readonly Row[]> {
  const cursor = new KeysetCursor(from, keyOf, sizes);
  for (let more = true; more; ) {
    const rows = await read(cursor.query);
    if (rows.length > 0) yield rows;
    more = cursor.advance(rows);
  }
}
