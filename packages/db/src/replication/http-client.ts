/**
 * The replicator's HTTP requests, on node:http(s) with keep-alive agents of its own: a job's
 * requests reuse their connections, and an answer's body is read as bytes and decoded once.
 * (With fetch, its web streams, header objects and UTF-8 decoder were a tenth of a replication's
 * client CPU over loopback.)
 */
import http from 'node:http';
import { DEFAULT_TLS, type ReplicatorTls } from './tls-settings.js';

/** An answer: its status, its content type ('' when none) and its whole body. */
export interface HttpAnswer {
  status: number;
  contentType: string;
  body: Buffer;
}

export interface HttpRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: Buffer | undefined;
  /** The request fails with a timeout error when the answer has not come whole by then. */
  timeoutMs: number;
  /** Ends the request; it then fails with the signal's reason. */
  signal?: AbortSignal | undefined;
  /** How an `https:` peer's certificate is trusted (default: verified against node's authorities). */
  tls?: ReplicatorTls | undefined;
}

/**
 * Idle connections are kept 5 s at most, and less when the peer says it keeps them less
 * (`Keep-Alive: timeout=…`, which node's agent reads): a kept connection the peer has closed
 * meanwhile is met as a reset, and the request is sent again once on a new connection.
 */
const AGENT_OPTIONS = { keepAlive: true, scheduling: 'lifo', timeout: 5_000 } as const;
const httpAgent = new http.Agent(AGENT_OPTIONS);
/**
 * The agents for `https:` peers, one per trust setting (each server's `[replicator]` keys,
 * ./tls-settings.ts). node:https (and TLS with it, ~1.5 MB resident) loads at the first request
 * to such a peer. A setting replaced is dropped with its agent, whose idle connections end within
 * the agent's timeout.
 */
const secureAgents = new WeakMap<ReplicatorTls, Promise<Transport>>();

interface Transport {
  request: typeof http.request;
  agent: http.Agent;
}

function secureTransport(tls: ReplicatorTls): Promise<Transport> {
  let transport = secureAgents.get(tls);
  if (transport === undefined) {
    transport = Promise.all([import('node:https'), import('node:tls')]).then(([https, { rootCertificates }]) => ({
      request: https.request,
      agent: new https.Agent({
        ...AGENT_OPTIONS,
        rejectUnauthorized: tls.verify,
        // Node's bundled authorities stay trusted beside the file's.
        ...(tls.trusted === undefined ? {} : { ca: [...rootCertificates, tls.trusted] }),
      }),
    }));
    secureAgents.set(tls, transport);
  }
  return transport;
}

/** Errors of a kept connection the peer closed before it took the request: sent again at once. */
const STALE_CONNECTION = new Set(['ECONNRESET', 'EPIPE']);

/** A UTF-8 byte order mark, which a JSON text's decoder drops (as fetch's `text()` does). */
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** Sends one request; rejects on a network error, a timeout or the signal (never for an HTTP status). */
export function httpRequest(request: HttpRequest): Promise<HttpAnswer> {
  return send(request, false);
}

/** An answer's body as text (UTF-8, a leading byte order mark dropped). */
export function bodyText(body: Buffer): string {
  const start = body.length >= 3 && body.subarray(0, 3).equals(BOM) ? 3 : 0;
  return body.toString('utf8', start);
}

async function send(request: HttpRequest, retried: boolean): Promise<HttpAnswer> {
  const target = new URL(request.url);
  const transport =
    target.protocol === 'https:'
      ? await secureTransport(request.tls ?? DEFAULT_TLS)
      : { request: http.request, agent: httpAgent };
  return sendOver(transport, target, request, retried);
}

function sendOver(transport: Transport, target: URL, request: HttpRequest, retried: boolean): Promise<HttpAnswer> {
  const { method, headers, body, timeoutMs, signal } = request;
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const outgoing = { ...headers };
    if (body !== undefined) outgoing['content-length'] = String(body.length);
    const req = transport.request(target, { method, headers: outgoing, agent: transport.agent });
    let settled = false;
    /** Ends this attempt's waiting (timer, signal): false when it had ended already. */
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      return true;
    };
    const finish = (error: unknown, answer?: HttpAnswer) => {
      if (!settle()) return;
      if (answer !== undefined) resolve(answer);
      else reject(error);
    };
    const onAbort = () => {
      finish(signal?.reason);
      req.destroy();
    };
    const timer = setTimeout(() => {
      finish(new Error(`no answer within ${timeoutMs / 1000} s`));
      req.destroy();
    }, timeoutMs);
    signal?.addEventListener('abort', onAbort);
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (!retried && req.reusedSocket && STALE_CONNECTION.has(error.code ?? '')) {
        if (settle()) send(request, true).then(resolve, reject);
        return;
      }
      finish(error);
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', (error) => finish(error));
      res.on('close', () => {
        if (!res.complete) finish(new Error('the answer was cut off'));
      });
      res.on('end', () => {
        const contentType = res.headers['content-type'] ?? '';
        finish(undefined, { status: res.statusCode ?? 0, contentType, body: Buffer.concat(chunks) });
      });
    });
    req.end(body);
  });
}
