/**
 * Divan in-process, without HTTP: the same databases, documents and views the server has, on a
 * data folder, for code that embeds the database (and for tests of the engine itself).
 *
 *   const divan = openDivan('./data');
 *   const db = await divan.database('posts'); // opened, or created on first use
 *   await db.upsert({ _id: '_design/app', views: { by_author: { map: 'function(d){ emit(d.author, 1) }', reduce: '_count' } } });
 *   await db.upsert({ _id: 'p1', author: 'ann' });
 *   await db.view('app', 'by_author', { group: true });  // { rows: [{ key: 'ann', value: 1 }] }
 */
import { createAdminStore, isDbAdmin } from './auth/index.js';
import { CouchError, notFound } from './errors.js';
import { hiddenFrom } from './documents/access-reads.js';
import type { AccessReader } from './documents/access-rules.js';
import { parseRev } from './revisions/index.js';
import { readDocInput } from './documents/doc-input.js';
import { SERVER_ADMIN, type Database, type OpenOptions, type WriteResult, type Writer } from './documents/database.js';
import type { UserCtx } from './auth/index.js';
import { fromPlain } from './json/index.js';
import { openView, parseQuery, queryView } from './views/query/index.js';
import { CouchServer } from './server/couch-server.js';
import { openSqliteStorage } from './storage/sqlite/sqlite-storage.js';

export interface EmbeddedOptions {
  durability?: 'normal' | 'full';
  log?: (line: string) => void;
  /** PBKDF2 rounds for `_users` passwords hashed now (CouchDB's 600000). */
  hashIterations?: number;
}

export interface ViewResult {
  total_rows?: number;
  offset?: number | null;
  update_seq?: number;
  rows: unknown[];
}

export function openDivan(dir: string, options: EmbeddedOptions = {}): Divan {
  return new Divan(dir, options);
}

export class Divan {
  readonly couch: CouchServer;

  constructor(dir: string, options: EmbeddedOptions = {}) {
    const storage = openSqliteStorage({ dir, durability: options.durability });
    this.couch = new CouchServer({
      storage,
      admins: createAdminStore({}),
      maxBodyBytes: Infinity,
      log: options.log ?? (() => {}),
      ...(options.hashIterations === undefined ? {} : { hashIterations: options.hashIterations }),
    });
    // The stored uuid, for a listener made over this server (a failure is met again on first use).
    this.couch.loadUuid().catch(() => {});
  }

  /**
   * Creates a database (`partitioned`: CouchDB's `?partitioned=true`; `access`: per-document
   * access control, `_access`, as `PUT /db?access=true`); a 412 `file_exists` CouchError when it
   * exists.
   */
  async createDb(name: string, options: { partitioned?: boolean; access?: boolean } = {}): Promise<EmbeddedDb> {
    return new EmbeddedDb(this.couch, await this.couch.createDb(name, options));
  }

  /** An existing database; a 404 CouchError when there is none. */
  async db(name: string): Promise<EmbeddedDb> {
    return new EmbeddedDb(this.couch, await this.couch.db(name));
  }

  /** The database of that name, created on first use (what a program run twice wants). */
  async database(name: string): Promise<EmbeddedDb> {
    try {
      return await this.db(name);
    } catch (error) {
      if (!(error instanceof CouchError) || error.status !== 404) throw error;
      return this.createDb(name);
    }
  }

  listDbs(): Promise<string[]> {
    return this.couch.listDbs();
  }

  deleteDb(name: string): Promise<void> {
    return this.couch.deleteDb(name);
  }

  close(): Promise<void> {
    return this.couch.close();
  }
}

/**
 * One database, written as a server admin unless `as(user)` says otherwise: every write passes the
 * same rules as over HTTP (validate functions, the `_users` rules, design documents).
 */
export class EmbeddedDb {
  constructor(
    private readonly couch: CouchServer,
    readonly database: Database,
    private readonly writer: Writer = SERVER_ADMIN,
  ) {}

  /** The same database written as this user (`{ name, roles }`, CouchDB's userCtx). */
  as(user: UserCtx): EmbeddedDb {
    return new EmbeddedDb(this.couch, this.database, { user });
  }

  /** Writes one document (its `_id` required; `_rev` to update); throws CouchError on conflict or refusal. */
  put(doc: Record<string, unknown>): Promise<{ ok: true; id: string; rev: string }> {
    return this.database.putDoc(doc._id, readDocInput(fromPlain(doc)), true, undefined, this.writer);
  }

  /**
   * Writes the document over its current revision, whatever that is (`_rev` is ignored): a new
   * document is created, an existing or deleted one gets a new revision.
   */
  async upsert(doc: Record<string, unknown>): Promise<{ ok: true; id: string; rev: string }> {
    const id = doc._id;
    const current = typeof id === 'string' ? await this.database.record(id) : undefined;
    const { _rev, ...body } = doc;
    const input = readDocInput(fromPlain(body));
    if (current !== undefined && !current.deleted) input.rev = parseRev(current.rev);
    return this.database.putDoc(id, input, true, undefined, this.writer);
  }

  /** As over HTTP, a document this user may not read (per-document `_access`) is a 404 `missing`. */
  async get(id: string, options: OpenOptions = {}): Promise<Record<string, unknown>> {
    if (await hiddenFrom(this.database, await this.reader(), id, options.rev)) throw notFound('missing');
    const security = this.writer.security ?? (await this.database.security());
    const viewer = { name: this.writer.user.name, dbAdmin: isDbAdmin(this.writer.user, security) };
    return JSON.parse((await this.database.openDoc(id, { viewer, ...options })).json) as Record<string, unknown>;
  }

  /** What this user may read of an access-enabled database (undefined: everything). */
  private reader(): Promise<AccessReader | undefined> {
    return this.database.accessReaderOf(this.writer.user, this.writer.security);
  }

  bulkDocs(docs: readonly Record<string, unknown>[], newEdits = true): Promise<WriteResult[]> {
    return this.database.bulkDocs(docs.map(fromPlain), newEdits, this.writer);
  }

  /**
   * Queries a view with CouchDB's parameters as a JSON object (`{ startkey, group, limit, ... }`,
   * as in a POST body), with the same validation and defaults as over HTTP.
   */
  async view(ddoc: string, name: string, params: Record<string, unknown> = {}): Promise<ViewResult> {
    const target = await openView(this.database, this.couch.views(this.database), ddoc, name);
    const q = parseQuery(target.queryIndex, new URLSearchParams(), params);
    const answer = await queryView(target, q, await this.reader());
    try {
      const { meta, rows } = answer.read();
      const all: unknown[] = [];
      for await (const row of rows) all.push(parse(row));
      return { ...meta, rows: all };
    } finally {
      answer.finished();
    }
  }
}

const parse = (json: string): unknown => JSON.parse(json);
