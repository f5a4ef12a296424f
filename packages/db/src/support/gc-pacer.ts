/**
 * Garbage collection paced by the bytes a stream moves. Every chunk of an attachment that passes
 * through (a socket read, a storage chunk) is a new buffer outside the JavaScript heap; the heap
 * itself hardly grows, so V8 collects them only after some 64 MiB of them piled up. A young
 * generation collection every few MiB streamed keeps a large upload or download within a few
 * MiB of memory, for well under a millisecond each time. Where the runtime refuses to expose its
 * collector, streams pass through unpaced.
 */
import { garbageCollector } from './collector.js';

const EVERY_BYTES = 4 * 1024 * 1024;

/** The chunks of `source` as they come, with a young-generation collection every few MiB. */
export async function* gcPaced<T extends Uint8Array>(source: AsyncIterable<T> | Iterable<T>): AsyncGenerator<T> {
  let since = 0;
  for await (const chunk of source) {
    since += chunk.length;
    if (since >= EVERY_BYTES) {
      since = 0;
      garbageCollector()?.({ type: 'minor' });
    }
    yield chunk;
  }
}

/**
 * `gcPaced` for a stream of at most `bytes` bytes: the source itself when that is too few to
 * ever trigger a collection (the usual small attachment, one layer of async iteration fewer).
 */
export function gcPacedUpTo<T extends Uint8Array>(source: AsyncIterable<T>, bytes: number): AsyncIterable<T> {
  return bytes < EVERY_BYTES ? source : gcPaced(source);
}
