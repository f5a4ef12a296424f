/**
 * Errors of the PostgreSQL engine. `StorageUnavailableError` means "PostgreSQL could not be
 * reached or dropped the connection": the request may succeed later (the HTTP layer answers 503).
 */

export class StorageUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StorageUnavailableError';
  }
}

/** Node's socket error codes that mean the server is not there (or went away). */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);

/**
 * SQLSTATEs that mean the same from the server's side: the shutdown and start-up family of
 * class 57 and too many connections (class 08, connection exceptions, is matched by prefix).
 */
const SERVER_CODES = new Set(['57P01', '57P02', '57P03', '53300']);

/** node-postgres's own messages for a connection it lost or never got. */
const CLIENT_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended/i;

export function isConnectionError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || SERVER_CODES.has(code) || code.startsWith('08'))) {
    return true;
  }
  return CLIENT_MESSAGES.test(err.message);
}

/** The error as the caller sees it: connection failures become `StorageUnavailableError`. */
export function storageError(err: unknown): unknown {
  if (err instanceof StorageUnavailableError || !isConnectionError(err)) return err;
  return new StorageUnavailableError(`PostgreSQL is unavailable: ${(err as Error).message}`, { cause: err });
}
