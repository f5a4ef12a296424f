/**
 * Requests node:http does not hand to the request listener: `CONNECT` (its own event, the
 * connection closed unanswered without a listener) and methods its parser does not know (a
 * parse error, answered 400). CouchDB answers both as any request to a path: a `CONNECT` to a
 * path goes through the listener like any other method (an endpoint's 405 with its `Allow`), and
 * an unknown method is a 405.
 */
import { type IncomingMessage, type Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

export function answerUnusualRequests(server: Server, listener: Listener): void {
  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    // A response on the raw socket, written as the listener writes any other; the socket is
    // closed after it (a CONNECT's connection is not for more requests).
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as Socket);
    res.on('finish', () => {
      res.detachSocket(socket as Socket);
      socket.end();
    });
    listener(req, res);
  });
  // As node:http's own handling (its socketOnError): an answer if none was written on this
  // connection yet, then the socket destroyed with the error, which a handler still reading a
  // request on it sees (body.ts, checkRequestEnd).
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex & { bytesWritten?: number }) => {
    if (socket.writable && socket.bytesWritten === 0) socket.write(rawAnswer(...statusOf(error as ParseError)));
    socket.destroy(error);
  });
}

/** node:http's parse errors carry the bytes being parsed and how far it got. */
type ParseError = NodeJS.ErrnoException & { rawPacket?: Buffer; bytesParsed?: number };

/** A request line: a method token, a target, the HTTP version. */
const REQUEST_LINE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ \S+ HTTP\/1\.[01]\r?\n/;
const TOKEN_CHAR = /[!#$%&'*+.^_`|~0-9A-Za-z-]/;

/**
 * Whether the parser stopped in the method of a request line (the bytes it failed in, back to
 * the start of their token, read as one), not in bytes that are no request at all.
 */
function inRequestLine(error: ParseError): boolean {
  if (error.rawPacket === undefined || error.bytesParsed === undefined) return false;
  const text = error.rawPacket.toString('latin1');
  let start = Math.min(error.bytesParsed, text.length);
  while (start > 0 && TOKEN_CHAR.test(text[start - 1]!)) start--;
  return REQUEST_LINE.test(text.slice(start));
}

/**
 * The answer to a request that could not be parsed: node:http's own, but 405 for a request line
 * whose method the parser does not know (bytes that are no request line at all stay a 400).
 */
function statusOf(error: ParseError): [number, string, string | undefined] {
  switch (error.code) {
    case 'HPE_INVALID_METHOD':
      if (!inRequestLine(error)) return [400, 'Bad Request', undefined];
      return [
        405,
        'Method Not Allowed',
        '{"error":"method_not_allowed","reason":"Only GET,HEAD,POST,PUT,DELETE,COPY allowed"}',
      ];
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'Request Header Fields Too Large', undefined];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'Request Timeout', undefined];
    default:
      return [400, 'Bad Request', undefined];
  }
}

function rawAnswer(status: number, text: string, json: string | undefined): string {
  const head = `HTTP/1.1 ${status} ${text}\r\nConnection: close\r\n`;
  if (json === undefined) return `${head}\r\n`;
  const body = `${json}\n`;
  return `${head}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}
