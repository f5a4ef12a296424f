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
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    socket.end(rawAnswer(...statusOf(error)));
  });
}

/** The answer to a request that could not be parsed: node:http's own, but 405 for an unknown method. */
function statusOf(error: NodeJS.ErrnoException): [number, string, string | undefined] {
  switch (error.code) {
    case 'HPE_INVALID_METHOD':
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
