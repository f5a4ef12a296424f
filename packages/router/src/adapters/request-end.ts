/**
 * Requests followed, in the same write, by bytes that are no request. A client that sends more
 * than its Content-Length says (or bytes behind a chunked body's last chunk) makes Node's HTTP
 * parser fail on the extra bytes: Node answers a bare 400 and closes the connection, yet the
 * body's end still reaches the request's listener, which would then act on a request the
 * client was told failed. The parser fails in the same pass that ended the body, before that end
 * reaches a reader of the body, so a reader that checks once the body has ended sees it; behind
 * a request with no body, it has failed one turn after the listener was called. Bytes behind a
 * request that make a request of their own are that next request (pipelining).
 */
import type { IncomingMessage } from 'node:http';

/**
 * Whether Node's parser failed on bytes that came behind this request: the connection then
 * carries the parser's error (llhttp's codes are `HPE_…`), which Node's server destroyed it with.
 * (A `clientError` listener of the application's own that ends the socket without that error
 * hides it from here.)
 */
export function followedByNoRequest(req: IncomingMessage): boolean {
  const code = (req.socket?.errored as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' && code.startsWith('HPE_');
}
