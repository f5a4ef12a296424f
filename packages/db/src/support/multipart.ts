/**
 * MIME multipart bodies, both ways: reading a `multipart/related` document upload part by part
 * (attachment parts stream through, never held whole), and the boundaries of the multipart
 * answers (documents with attachments, `open_revs`, `_bulk_get`, byte ranges).
 */
import { randomUUID } from 'node:crypto';
import { CouchError } from '../errors.js';

/** A boundary as CouchDB makes them: 32 lower-case hex digits. */
export function randomBoundary(): string {
  return randomUUID().replaceAll('-', '');
}

/** The boundary of a `multipart/...; boundary=...` type (quoted or not), or undefined. */
export function boundaryOf(contentType: string): string | undefined {
  const m = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return m?.[1] ?? m?.[2];
}

const HEADERS_END = Buffer.from('\r\n\r\n');

/** Reads parts off a byte stream: `next()` to the next part's headers, then its body. */
export class MultipartReader {
  private pending: Buffer = Buffer.alloc(0);
  private readonly source: AsyncIterator<Uint8Array>;
  private readonly delimiter: Buffer;
  private done = false;

  constructor(source: AsyncIterable<Uint8Array>, boundary: string) {
    this.source = source[Symbol.asyncIterator]();
    this.delimiter = Buffer.from(`\r\n--${boundary}`);
    // The first delimiter may open the body, without the CRLF before it.
    this.pending = Buffer.from('\r\n');
  }

  private async more(): Promise<boolean> {
    const next = await this.source.next();
    if (next.done) return false;
    this.pending = this.pending.length === 0 ? Buffer.from(next.value) : Buffer.concat([this.pending, next.value]);
    return true;
  }

  /** Skips to the next part; its headers (lower-case names), or undefined after the closing delimiter. */
  async next(): Promise<Map<string, string> | undefined> {
    if (this.done) return undefined;
    // Find the delimiter (skipping a preamble, or the rest of a part nobody read).
    for (;;) {
      const at = this.pending.indexOf(this.delimiter);
      if (at >= 0) {
        this.pending = this.pending.subarray(at + this.delimiter.length);
        break;
      }
      this.pending = this.pending.subarray(Math.max(0, this.pending.length - this.delimiter.length + 1));
      if (!(await this.more())) throw truncated();
    }
    while (this.pending.length < 2) if (!(await this.more())) throw truncated();
    if (this.pending[0] === 45 && this.pending[1] === 45 /* -- */) {
      this.done = true;
      return undefined;
    }
    // The rest of the delimiter line (transport padding), then the headers up to a blank line.
    let end: number;
    while ((end = this.pending.indexOf(HEADERS_END)) < 0) {
      if (this.pending.length > 64 * 1024) throw new CouchError('bad_request', 'Multipart part headers are too long.');
      if (!(await this.more())) throw truncated();
    }
    const lines = this.pending.subarray(0, end).toString('latin1').split('\r\n').slice(1);
    this.pending = this.pending.subarray(end + 4);
    const headers = new Map<string, string>();
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    return headers;
  }

  /** The body of the current part, as it arrives; the delimiter after it is left for `next()`. */
  async *body(): AsyncGenerator<Uint8Array> {
    for (;;) {
      const at = this.pending.indexOf(this.delimiter);
      if (at >= 0) {
        if (at > 0) yield this.pending.subarray(0, at);
        this.pending = this.pending.subarray(at);
        return;
      }
      // Everything but what could be the start of a delimiter split across chunks.
      const keep = Math.min(this.pending.length, this.delimiter.length - 1);
      const ready = this.pending.subarray(0, this.pending.length - keep);
      this.pending = this.pending.subarray(this.pending.length - keep);
      if (ready.length > 0) yield ready;
      if (!(await this.more())) throw truncated();
    }
  }

  /**
   * Reads the source to its end, past whatever is left (parts nobody asked for, the closing
   * delimiter, the epilogue), so that the source's own checks at its end run; the parts are done.
   */
  async rest(): Promise<void> {
    this.pending = Buffer.alloc(0);
    this.done = true;
    while (!(await this.source.next()).done) {
      // not wanted
    }
  }

  /** The body of the current part whole, up to `limit` bytes (the JSON part). */
  async bodyBytes(limit: number): Promise<Buffer> {
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of this.body()) {
      size += chunk.length;
      if (size > limit) throw new CouchError('too_large', 'the request entity is too large');
      chunks.push(chunk);
    }
    return Buffer.concat(chunks, size);
  }
}

/** One part of a multipart body held whole: its headers (lower-case names) and its bytes. */
export interface HeldPart {
  headers: Map<string, string>;
  /** A view into the body given (no copy). */
  body: Buffer;
}

/**
 * The parts of a multipart body already in memory (a replicator's answer read whole), as
 * `MultipartReader` reads them, each part's bytes a view of `bytes`: nothing is copied.
 */
export function splitMultipart(bytes: Buffer, boundary: string): HeldPart[] {
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  // The first delimiter may open the body, without the CRLF before it.
  const opening = bytes.subarray(0, delimiter.length - 2).equals(delimiter.subarray(2));
  let after = opening ? delimiter.length - 2 : bytes.indexOf(delimiter);
  if (after < 0) throw truncated();
  if (!opening) after += delimiter.length;
  const parts: HeldPart[] = [];
  for (;;) {
    if (after + 2 > bytes.length) throw truncated();
    if (bytes[after] === 45 && bytes[after + 1] === 45 /* -- */) return parts;
    // The rest of the delimiter line (transport padding), then the headers up to a blank line.
    const end = bytes.indexOf(HEADERS_END, after);
    if (end < 0) throw truncated();
    const lines = bytes.subarray(after, end).toString('latin1').split('\r\n').slice(1);
    const headers = new Map<string, string>();
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const next = bytes.indexOf(delimiter, end + 4);
    if (next < 0) throw truncated();
    parts.push({ headers, body: bytes.subarray(end + 4, next) });
    after = next + delimiter.length;
  }
}

const truncated = (): CouchError => new CouchError('bad_request', 'attachment shorter than expected');
