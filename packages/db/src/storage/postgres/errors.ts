/**
 * Errors of the PostgreSQL engine. `StorageUnavailableError` means "PostgreSQL could not be
 * reached or dropped the connection": the request may succeed later (the HTTP layer answers 503).
 */

import type { Pool, PoolClient, QueryConfig, QueryResultRow } from 'pg';

import { StorageUnavailableError } from '../contract.js';
import { type BatchStatement, runBatch } from './statement-batch.js';

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

/** A query on any connection of the pool: its rows, or the error as `storageError` makes it. */
export async function queryRows<T extends QueryResultRow>(
  pool: Pool,
  config: QueryConfig | string,
  values?: unknown[],
): Promise<T[]> {
  try {
    const query = typeof config === 'string' ? { text: config, values } : { ...config, values };
    return (await pool.query<T>(query)).rows;
  } catch (err) {
    throw storageError(err);
  }
}

/**
 * A pool connection checked out for a transaction. While it is out, the pool does not listen
 * for its errors: a connection the server ends would otherwise raise an uncaught 'error' (the
 * statement running at the time rejects with the cause anyway). `done` gives it back, or
 * discards it when it broke.
 */
export async function checkOut(pool: Pool): Promise<{ client: PoolClient; done: (broken?: Error) => void }> {
  let client: PoolClient;
  try {
    client = await pool.connect();
  } catch (err) {
    throw storageError(err);
  }
  let lost: Error | undefined;
  const onError = (err: Error): void => {
    lost = err;
  };
  client.on('error', onError);
  return {
    client,
    done: (broken) => {
      client.off('error', onError);
      client.release(broken ?? lost);
    },
  };
}

/** How a transaction's body may end it itself (`inTransaction`). */
export interface TransactionEnd {
  /**
   * Runs `before` (rows not answered: a setting, say), `last` and `COMMIT` as one batch (one
   * round trip) and answers `last`'s rows. When one fails, PostgreSQL skips the rest, the
   * `COMMIT` too, and the transaction is rolled back as usual.
   */
  commitAfter(last: BatchStatement, before?: readonly BatchStatement[]): Promise<QueryResultRow[]>;
}

const BEGIN: BatchStatement = { name: 'divan_begin', text: 'BEGIN', values: [] };
const COMMIT: BatchStatement = { name: 'divan_commit', text: 'COMMIT', values: [] };

/**
 * Runs `body` in a transaction on a checked-out connection: committed when it returns (unless
 * it committed itself, `TransactionEnd`), rolled back when it throws; a connection that failed
 * mid-transaction is not given back to the pool.
 * `first`: statements sent with the `BEGIN` as one batch (one round trip for all; a writer's
 * lock, say), whose rows `body` gets, an array per statement.
 */
export async function inTransaction<T>(
  pool: Pool,
  body: (client: PoolClient, begun: QueryResultRow[][], end: TransactionEnd) => Promise<T>,
  first?: readonly BatchStatement[],
): Promise<T> {
  const { client, done } = await checkOut(pool);
  let broken: Error | undefined;
  let committed = false;
  const end: TransactionEnd = {
    async commitAfter(last, before = []) {
      committed = true;
      return (await runBatch(client, [...before, last, COMMIT]))[before.length]!;
    },
  };
  try {
    try {
      let begun: QueryResultRow[][] = [];
      if (first === undefined) await client.query('BEGIN');
      else begun = (await runBatch(client, [BEGIN, ...first])).slice(1);
      const out = await body(client, begun, end);
      if (!committed) await client.query('COMMIT');
      return out;
    } catch (err) {
      // Also after a failed `first`: its BEGIN left the transaction open (aborted).
      await client.query('ROLLBACK').catch((rollbackErr: Error) => {
        broken = rollbackErr;
      });
      throw err;
    }
  } catch (err) {
    throw storageError(err);
  } finally {
    done(broken);
  }
}

/**
 * `statements` as one transaction in one round trip: `BEGIN`, the statements and `COMMIT` in one
 * batch; each statement's rows, in order. When one fails PostgreSQL skips the rest (the `COMMIT`
 * too) and the transaction is rolled back.
 */
export async function commitInOneBatch(pool: Pool, statements: readonly BatchStatement[]): Promise<QueryResultRow[][]> {
  const { client, done } = await checkOut(pool);
  let broken: Error | undefined;
  try {
    return (await runBatch(client, [BEGIN, ...statements, COMMIT])).slice(1, -1);
  } catch (err) {
    await client.query('ROLLBACK').catch((rollbackErr: Error) => {
      broken = rollbackErr;
    });
    throw storageError(err);
  } finally {
    done(broken);
  }
}
