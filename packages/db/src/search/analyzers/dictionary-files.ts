/**
 * The dictionaries some language analyzers need (Lucene's own data, Apache-2.0; see
 * packages/db/dictionaries/README.md), shipped gzip'd beside `dist/` and read once, on the
 * first text such an analyzer sees, so a server that never analyzes Polish, Chinese or Japanese
 * never loads them.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

const DICTIONARIES = new URL('../../../../dictionaries/', import.meta.url);

/** The unzipped bytes of `packages/db/dictionaries/<name>`. */
export function dictionaryBytes(name: string): Uint8Array {
  return gunzipSync(readFileSync(new URL(name, DICTIONARIES)));
}

/** A value built from dictionaries on first use, then kept. */
export function onFirstUse<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => {
    value ??= build();
    return value;
  };
}
