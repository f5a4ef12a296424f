/**
 * The server's responses (start-server.ts hands this class to node:http). Every response starts
 * with its `X-Couch-Request-ID` header; here it waits in `pendingRequestId` and is set, first, as
 * soon as anything touches the headers, so each response sends it first as before. A JSON answer
 * written whole (respond.ts `sendBytes`) that finds no header set yet sends its head with one
 * `writeHead` of a header list (`writeWhole`): node then builds the head from that list, where a
 * `setHeader` per header lowercased its name and stored an entry first (~4% of a keep-alive c1
 * `PUT`'s server CPU, docs/benchmarks.md).
 */
import { type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders, ServerResponse } from 'node:http';

export const REQUEST_ID_HEADER = 'X-Couch-Request-ID';

type HeaderValue = number | string | readonly string[];

export class CouchResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  /** The request id, while no header is set yet (then undefined: it is the first header). */
  pendingRequestId: string | undefined = undefined;

  /** Whether nothing has touched the headers yet (only the request id waits). */
  get headless(): boolean {
    return this.pendingRequestId !== undefined;
  }

  /**
   * Sends status and head at once: `headers` a flat list of names and values, the request id
   * first among them. Only while `headless`.
   */
  writeWhole(status: number, headers: (string | number)[]): void {
    try {
      super.writeHead(status, headers as OutgoingHttpHeader[]);
    } catch (error) {
      // Nothing was sent (a value node refuses): the request id still waits, and the status
      // text goes with whatever status is sent instead.
      this.statusMessage = '';
      throw error;
    }
    this.pendingRequestId = undefined;
  }

  private setRequestId(): void {
    const id = this.pendingRequestId;
    if (id === undefined) return;
    this.pendingRequestId = undefined;
    super.setHeader(REQUEST_ID_HEADER, id);
  }

  override setHeader(name: string, value: HeaderValue): this {
    if (this.pendingRequestId !== undefined) this.setRequestId();
    return super.setHeader(name, value);
  }

  override appendHeader(name: string, value: string | readonly string[]): this {
    this.setRequestId();
    return super.appendHeader(name, value);
  }

  override getHeader(name: string): number | string | string[] | undefined {
    this.setRequestId();
    return super.getHeader(name);
  }

  override getHeaders(): OutgoingHttpHeaders {
    this.setRequestId();
    return super.getHeaders();
  }

  override getHeaderNames(): string[] {
    this.setRequestId();
    return super.getHeaderNames();
  }

  override hasHeader(name: string): boolean {
    this.setRequestId();
    return super.hasHeader(name);
  }

  override removeHeader(name: string): void {
    this.setRequestId();
    super.removeHeader(name);
  }

  // A head written without any header set (`res.end()` alone comes here too, by `_implicitHeader`).
  override writeHead(
    statusCode: number,
    reason?: string | OutgoingHttpHeaders | OutgoingHttpHeader[],
    headers?: OutgoingHttpHeaders | OutgoingHttpHeader[],
  ): this {
    this.setRequestId();
    if (typeof reason === 'string') return super.writeHead(statusCode, reason, headers);
    return super.writeHead(statusCode, reason);
  }
}
