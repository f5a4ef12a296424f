/**
 * This node's copy of the databases' properties (`_security`, `revs_limit`, the partitioned and
 * access flags) and counters (the `dbs` row: `update_seq`, document counts, sizes), so that a
 * request reads none of them from PostgreSQL: a document read is one round trip, and a view
 * query on a current index none. Every `setProp`, on any node, tells the others in the same
 * statement (`pg_notify` on the schema's channel, sent at commit), and so does every statement
 * that changes a `dbs` row (payload `c:<db_id>`); each node listens on a connection of its own
 * and forgets what it was told changed. How stale a copy can be is bounded by that
 * notification's way (a change applies on another node as soon as its commit reaches it), and
 * while the listening connection is not up nothing is kept: every read asks PostgreSQL.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { CounterRow } from './statements.js';

/** Wait before listening again after the connection broke (ms). */
const RECONNECT_MS = 1000;

/** The channel a schema's property changes are told on (an identifier: ≤ 63 bytes). */
export function propChannel(schema: string): string {
  return `divan_props_${createHash('sha1').update(schema).digest('hex').slice(0, 24)}`;
}

/**
 * The payload prefix of a counters change. A bare `db_id` tells a property change or a destroy
 * (everything kept of it goes, and the list of databases); `NAMES_CHANGED` a database created.
 */
export const COUNTERS_CHANGED = 'c:';
export const NAMES_CHANGED = 'n:';

export class PropCache {
  private readonly byDb = new Map<string, Map<string, string | undefined>>();
  private readonly countersByDb = new Map<string, CounterRow>();
  /** The databases' names, in order (`listDatabases`), while kept. */
  private names: string[] | undefined;
  private client: pg.Client | undefined;
  private live = false;
  private closed = false;
  /** Moves on every change told (or the connection lost): a read begun before it keeps nothing. */
  private epoch = 0;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    readonly channel: string,
  ) {}

  /** A read's starting point, for `keep`. Starts listening on first use. */
  begin(): number {
    if (this.client === undefined && !this.closed) this.listen();
    return this.epoch;
  }

  /** The property as last read here, or `miss` when it must be read from PostgreSQL. */
  get(dbId: string, key: string): string | undefined | typeof MISS {
    if (!this.live) return MISS;
    const props = this.byDb.get(dbId);
    return props === undefined || !props.has(key) ? MISS : props.get(key);
  }

  /** Keeps what a read begun at `epoch` found, unless a change was told since. */
  keep(epoch: number, dbId: string, key: string, value: string | undefined): void {
    if (!this.live || epoch !== this.epoch) return;
    let props = this.byDb.get(dbId);
    if (props === undefined) this.byDb.set(dbId, (props = new Map()));
    props.set(key, value);
  }

  /** Forgets a database's properties and counters (this node changed one: the notification follows). */
  forget(dbId: string): void {
    this.epoch++;
    this.byDb.delete(dbId);
    this.countersByDb.delete(dbId);
    this.names = undefined;
  }

  /** The databases' names as last listed here (undefined: list them in PostgreSQL). */
  databaseNames(): string[] | undefined {
    return this.live ? this.names : undefined;
  }

  /** Keeps the names a listing begun at `epoch` found, unless a change was told since. */
  keepNames(epoch: number, names: string[]): void {
    if (this.live && epoch === this.epoch) this.names = names;
  }

  /** Forgets the databases' names (one was created, here or on another node). */
  forgetNames(): void {
    this.epoch++;
    this.names = undefined;
  }

  /** The database's `dbs` row as last read here (undefined: read it from PostgreSQL). */
  counters(dbId: string): CounterRow | undefined {
    return this.live ? this.countersByDb.get(dbId) : undefined;
  }

  /** Keeps the counters a read begun at `epoch` found, unless a change was told since. */
  keepCounters(epoch: number, dbId: string, row: CounterRow): void {
    if (this.live && epoch === this.epoch) this.countersByDb.set(dbId, row);
  }

  /** Forgets a database's counters (a write committed, here or told by another node). */
  forgetCounters(dbId: string): void {
    this.epoch++;
    this.countersByDb.delete(dbId);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.retry);
    this.lost();
  }

  private listen(): void {
    const client = new pg.Client({ connectionString: this.url, application_name: 'divan-props' });
    this.client = client;
    client.on('notification', (message) => {
      const payload = message.payload;
      if (payload === undefined) return;
      if (payload.startsWith(COUNTERS_CHANGED)) this.forgetCounters(payload.slice(COUNTERS_CHANGED.length));
      else if (payload === NAMES_CHANGED) this.forgetNames();
      else this.forget(payload);
    });
    const broken = (): void => {
      if (this.client !== client) return;
      this.lost();
      if (!this.closed) this.retry = setTimeout(() => this.listen(), RECONNECT_MS).unref();
    };
    client.on('error', broken);
    client.on('end', broken);
    client
      .connect()
      .then(() => client.query(`LISTEN ${this.channel}`))
      .then(() => {
        // The listening connection alone must not keep the process running (the pool's idle
        // connections close by themselves; this one never idles out).
        (client as unknown as { connection?: { stream?: { unref?: () => void } } }).connection?.stream?.unref?.();
        // Listening from here on: whatever changed before is read afresh.
        if (this.client !== client) return;
        this.epoch++;
        this.byDb.clear();
        this.countersByDb.clear();
        this.names = undefined;
        this.live = !this.closed;
      })
      .catch(broken);
  }

  /** Nothing is kept while not listening. */
  private lost(): void {
    this.live = false;
    this.epoch++;
    this.byDb.clear();
    this.countersByDb.clear();
    this.names = undefined;
    const client = this.client;
    this.client = undefined;
    client?.end().catch(() => {});
  }
}

/** What `PropCache.get` answers for a property it does not hold. */
export const MISS: unique symbol = Symbol('miss');
