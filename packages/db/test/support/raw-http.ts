/**
 * HTTP with node:http for attachment tests: bytes exactly as sent and received (fetch would
 * add Accept-Encoding and decode gzip behind the test's back).
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { AUTH } from './server.js';

export interface RawReply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The body parsed as JSON, when it is JSON. */
  json: any;
}

export interface RawOptions {
  headers?: Record<string, string | number>;
  body?: Buffer | string | AsyncIterable<Uint8Array>;
  auth?: false;
}

export function raw(base: string, method: string, path: string, options: RawOptions = {}): Promise<RawReply> {
  const url = new URL(base);
  const headers: Record<string, string | number> = { ...options.headers };
  if (options.auth !== false) headers.authorization ??= AUTH;
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        let json: unknown;
        try {
          json = JSON.parse(body.toString());
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode!, headers: res.headers, body, json });
      });
    });
    req.on('error', reject);
    const { body } = options;
    if (body === undefined) req.end();
    else if (typeof body === 'string' || Buffer.isBuffer(body)) req.end(body);
    else {
      void (async () => {
        for await (const chunk of body) if (!req.write(chunk)) await new Promise((r) => req.once('drain', r));
        req.end();
      })().catch(reject);
    }
  });
}

/** The parts of a multipart body: each part's headers (lower-case names) and bytes. */
export function splitMultipart(body: Buffer, boundary: string): { headers: Record<string, string>; body: Buffer }[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: { headers: Record<string, string>; body: Buffer }[] = [];
  let at = body.indexOf(delimiter);
  if (at < 0) throw new Error('no delimiter');
  for (;;) {
    at += delimiter.length;
    if (body.subarray(at, at + 2).toString() === '--') return parts;
    const headEnd = body.indexOf('\r\n\r\n', at);
    const headers: Record<string, string> = {};
    for (const line of body
      .subarray(at + 2, headEnd)
      .toString()
      .split('\r\n')) {
      if (line === '') continue;
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), headEnd + 4);
    if (next < 0) throw new Error('no closing delimiter');
    parts.push({ headers, body: body.subarray(headEnd + 4, next) });
    at = next + 2;
  }
}

/** The boundary of a multipart Content-Type. */
export function boundaryIn(contentType: string | undefined): string {
  const m = /boundary="?([^";]+)"?/.exec(contentType ?? '');
  if (m === null) throw new Error(`no boundary in ${contentType}`);
  return m[1]!;
}

/** One step of a raw exchange: bytes to send as they are, a half-close, a cut, or a pause. */
export type SocketStep = string | Buffer | { end: true } | { cut: true } | { pauseMs: number };

/**
 * Sends the steps over a fresh connection exactly as given (framing mistakes included) and
 * resolves with all the server sent back, once the connection is closed (or `waitMs` after the
 * last step, when the server keeps it open and silent).
 */
export function socketExchange(base: string, steps: SocketStep[], waitMs = 3000): Promise<string> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const received: Buffer[] = [];
    let timer: NodeJS.Timeout | undefined;
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', () => {}); // a reset after our cut or the server's close ends the exchange all the same
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(received).toString('latin1'));
    });
    socket.once('connect', () => {
      void (async () => {
        for (const step of steps) {
          if (typeof step === 'string' || Buffer.isBuffer(step)) socket.write(step);
          else if ('end' in step) socket.end();
          else if ('cut' in step) socket.destroy();
          else await new Promise((r) => setTimeout(r, step.pauseMs));
        }
        timer = setTimeout(() => socket.destroy(), waitMs);
      })().catch(reject);
    });
  });
}
