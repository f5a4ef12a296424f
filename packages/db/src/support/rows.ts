/** Rows of JSON text, read as they are made: synchronously from an index, or waiting on storage. */
export type Rows = Iterable<string> | AsyncIterable<string>;
