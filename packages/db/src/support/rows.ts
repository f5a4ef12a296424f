/** Rows of JSON text, read as they are made: synchronously from an index, or waiting on storage. */
export type Rows = Iterable<string> | AsyncIterable<string>;

/** One way to read both kinds of rows. */
export function rowIterator(rows: Rows): AsyncIterator<string> | Iterator<string> {
  return Symbol.asyncIterator in rows ? rows[Symbol.asyncIterator]() : rows[Symbol.iterator]();
}
