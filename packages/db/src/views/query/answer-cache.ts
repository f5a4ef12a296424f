/**
 * Rendered view answers kept by ETag. The ETag hashes everything an answer depends on (index
 * signature, the sequence at which that view last changed, the database sequence when docs are
 * included, the request), so an entry can never be stale: a changed answer has another key.
 * Only small answers are kept (reduce groups, short pages), within a byte budget, least
 * recently used first out.
 *
 * An answer is kept the second time it is asked for, not the first: queries that never come back
 * (100 random keys, measured in the view bench) would otherwise fill the budget with answers
 * nobody reads again and push out those that are (a dashboard's group query). The ETags seen once
 * are remembered in a bounded set of their own.
 */
import { rowIterator, type Rows } from '../../support/rows.js';

/** The largest answer rendered whole on its way to the cache (characters; the cache counts bytes). */
const CACHE_ENTRY = 256 * 1024;

/** An answer as a response body: whole bytes, or a head and the rows to stream after it. */
export type AnswerBody = { bytes: Buffer } | { head: string; rows: Rows };

export class AnswerCache {
  private readonly entries = new Map<string, Buffer>();
  private bytes = 0;
  /** ETags answered once and not kept, oldest first. */
  private readonly seenOnce = new Set<string>();

  constructor(
    private readonly maxBytes = 16 * 1024 * 1024,
    private readonly maxEntryBytes = 256 * 1024,
    private readonly maxSeen = 16_384,
  ) {}

  /** The response body kept for this ETag. */
  get(etag: string): Buffer | undefined {
    const body = this.entries.get(etag);
    if (body !== undefined) {
      this.entries.delete(etag);
      this.entries.set(etag, body);
    }
    return body;
  }

  /** Offers a response body (UTF-8): kept if this ETag was offered before and it is small enough. */
  set(etag: string, body: Buffer): void {
    if (body.length > this.maxEntryBytes || this.entries.has(etag)) return;
    if (!this.seenOnce.delete(etag)) {
      this.seenOnce.add(etag);
      if (this.seenOnce.size > this.maxSeen) this.seenOnce.delete(this.seenOnce.values().next().value!);
      return;
    }
    this.entries.set(etag, body);
    this.bytes += body.length;
    for (const [key, value] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(key);
      this.bytes -= value.length;
    }
  }
}

/**
 * An answer's body through the cache: the kept bytes when this ETag was answered before; else
 * rendered up to CACHE_ENTRY characters, and a complete answer is offered to the cache for the
 * next identical query, while a longer one streams on from where rendering stopped (nothing is
 * held whole).
 */
export async function bodyThroughCache(
  cache: AnswerCache,
  etag: string,
  render: () => { head: string; rows: Rows },
): Promise<AnswerBody> {
  const cached = cache.get(etag);
  if (cached !== undefined) return { bytes: cached };
  const { head, rows } = render();
  const iterator = rowIterator(rows);
  let text = head;
  let count = 0;
  let next = await iterator.next();
  while (!next.done && text.length <= CACHE_ENTRY) {
    text += `${count++ === 0 ? '' : ','}\r\n${next.value}`;
    next = await iterator.next();
  }
  if (next.done) {
    // Kept as bytes: the text is a chain of concatenations (one per row), which held as a
    // string took ~3x its length of heap in ~2M pieces and slowed every major GC.
    const bytes = Buffer.from(`${text}${count > 0 ? '\r\n' : ''}]}\n`);
    cache.set(etag, bytes);
    return { bytes };
  }
  const pending = next.value;
  const rest = (async function* () {
    yield pending;
    for (let more = await iterator.next(); !more.done; more = await iterator.next()) yield more.value;
  })();
  return { head: `${text}${count > 0 ? ',' : ''}`, rows: rest };
}
