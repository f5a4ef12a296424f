/**
 * Rendered view answers kept by ETag. The ETag hashes everything an answer depends on (index
 * signature, the sequence at which that view last changed, the database sequence when docs are
 * included, the request), so an entry can never be stale: a changed answer has another key.
 * Only small answers are kept (reduce groups, short pages), within a byte budget, least
 * recently used first out.
 */
export class AnswerCache {
  private readonly entries = new Map<string, Buffer>();
  private bytes = 0;

  constructor(
    private readonly maxBytes = 32 * 1024 * 1024,
    private readonly maxEntryBytes = 256 * 1024,
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

  /** Keeps a response body (UTF-8) unless it is too large to be worth it. */
  set(etag: string, body: Buffer): void {
    if (body.length > this.maxEntryBytes || this.entries.has(etag)) return;
    this.entries.set(etag, body);
    this.bytes += body.length;
    for (const [key, value] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(key);
      this.bytes -= value.length;
    }
  }
}
