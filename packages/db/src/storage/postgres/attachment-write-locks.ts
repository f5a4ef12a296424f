/**
 * Attachment writes under way on this node, held where a sweep on any node sees them.
 *
 * An attachment write stores bytes, then commits the revisions that refer to them; in between, the
 * bytes are referenced by nothing and a sweep must leave them. So while this node writes
 * attachments to a database it holds a shared session advisory lock on that database's key, on one
 * connection of its own (taken by the first such write, let go after the last), and a sweep frees
 * bytes only under the exclusive lock on the same key, taken without waiting
 * (`pg_try_advisory_xact_lock`): never while any node writes. A node that dies lets go with its
 * connection, and what its uploads left behind goes with the next sweep.
 *
 * Taking the lock also counts a write begun for the database (`attachment_writes.begun`). A sweep
 * reads the count at its start and again before it deletes, under the exclusive lock: a write that
 * began and ended while it looked (its references unseen) makes it delete nothing. A sweep starts
 * only when no node holds the lock, so every write during it takes the lock anew: counting those is
 * enough. When the connection breaks with writes under way (the node lives on), their locks are
 * taken again on a new one and counted as begun, so a sweep that started meanwhile deletes
 * nothing; only one that starts and ends within that reconnection could miss them.
 */
import type { Pool, PoolClient } from 'pg';
import type { AttachmentSweepMark } from '../contract.js';
import { checkOut, isConnectionError, storageError } from './errors.js';

const LOCK = 'SELECT pg_advisory_lock_shared(hashtextextended($1, 0))';
const UNLOCK = 'SELECT pg_advisory_unlock_shared(hashtextextended($1, 0))';

export class AttachmentWriteLocks {
  private holder: { client: PoolClient; done: (broken?: Error) => void; onError: (err: Error) => void } | undefined;
  /** Writes under way here, by database id: those the held connection holds a lock for. */
  private readonly writing = new Map<string, number>();
  /** The lock statements, one at a time (they share the connection). */
  private turn: Promise<unknown> = Promise.resolve();

  /** `s`: the schema, quoted. */
  constructor(
    private readonly pool: Pool,
    private readonly s: string,
  ) {}

  /**
   * Under the exclusive lock on a database's key, taken on `client` for its transaction without
   * waiting: the writes begun so far (a sweep's mark); undefined when a node is writing.
   */
  async quiet(client: PoolClient, dbId: string): Promise<AttachmentSweepMark | undefined> {
    const locked = await client.query<{ ok: boolean }>(
      'SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS ok',
      [this.key(dbId)],
    );
    if (locked.rows[0]?.ok !== true) return undefined;
    const found = await client.query<{ begun: string }>(
      `SELECT begun FROM ${this.s}.attachment_writes WHERE db_id = $1`,
      [dbId],
    );
    return Number(found.rows[0]?.begun ?? 0);
  }

  async run<T>(dbId: string, write: () => Promise<T>): Promise<T> {
    await this.serial(() => this.enter(dbId));
    try {
      return await write();
    } finally {
      // The write's outcome is what its caller hears; a lock that could not be let go goes with its connection.
      await this.serial(() => this.leave(dbId)).catch(() => {});
    }
  }

  private serial<T>(step: () => Promise<T>): Promise<T> {
    const next = this.turn.then(step, step);
    this.turn = next.catch(() => {});
    return next;
  }

  private async enter(dbId: string): Promise<void> {
    const client = await this.connection();
    if (!this.writing.has(dbId)) await this.lock(client, dbId);
    this.writing.set(dbId, (this.writing.get(dbId) ?? 0) + 1);
  }

  private async leave(dbId: string): Promise<void> {
    const left = (this.writing.get(dbId) ?? 1) - 1;
    if (left > 0) {
      this.writing.set(dbId, left);
      return;
    }
    this.writing.delete(dbId);
    const holder = this.holder;
    if (holder === undefined) return;
    try {
      await holder.client.query(UNLOCK, [this.key(dbId)]);
    } catch (err) {
      // Never back to the pool with a lock it may still hold: sweeps would wait for it forever.
      if (this.holder?.client === holder.client) this.drop(err as Error);
      throw storageError(err);
    }
    if (this.writing.size === 0) this.release();
  }

  /** Takes a database's shared lock (waiting out a sweep that is deleting) and counts a write begun. */
  private async lock(client: PoolClient, dbId: string): Promise<void> {
    const key = this.key(dbId);
    await this.onHolder(client, () => client.query(LOCK, [key]));
    await this.onHolder(client, async () => {
      try {
        await client.query(
          `INSERT INTO ${this.s}.attachment_writes AS w (db_id, begun) VALUES ($1, 1)
           ON CONFLICT (db_id) DO UPDATE SET begun = w.begun + 1`,
          [dbId],
        );
      } catch (err) {
        await client.query(UNLOCK, [key]).catch(() => {});
        throw err;
      }
    });
  }

  /** A statement on the held connection: when the connection breaks, its locks are gone with it. */
  private async onHolder(client: PoolClient, statement: () => Promise<unknown>): Promise<void> {
    try {
      await statement();
    } catch (err) {
      if (isConnectionError(err) && this.holder?.client === client) this.drop(err as Error);
      throw storageError(err);
    }
  }

  /**
   * The held connection, checked out when there is none. After one was lost with writes under
   * way, their locks are taken again on the new one, each counted as a write begun, so a sweep
   * that started meanwhile deletes nothing.
   */
  private async connection(): Promise<PoolClient> {
    if (this.holder !== undefined) return this.holder.client;
    const { client, done } = await checkOut(this.pool);
    const onError = (err: Error): void => {
      if (this.holder?.client === client) this.drop(err);
    };
    client.on('error', onError);
    this.holder = { client, done, onError };
    for (const dbId of this.writing.keys()) await this.lock(client, dbId);
    return client;
  }

  /** Forgets a connection that broke (its locks went with it), and takes those still needed again. */
  private drop(broken: Error): void {
    const holder = this.holder;
    if (holder === undefined) return;
    this.holder = undefined;
    holder.client.off('error', holder.onError);
    holder.done(broken);
    if (this.writing.size > 0) void this.serial(() => this.connection()).catch(() => {});
  }

  /** The advisory lock key (hashed) of a database's attachment writes. */
  private key(dbId: string): string {
    return `${this.s}/${dbId}/attachment-writes`;
  }

  private release(): void {
    const holder = this.holder;
    if (holder === undefined) return;
    this.holder = undefined;
    holder.client.off('error', holder.onError);
    holder.done();
  }
}
