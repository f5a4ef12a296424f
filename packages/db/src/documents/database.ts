/**
 * One database: documents with revision trees over a storage engine's `DocumentStore`. This file
 * is its lifecycle (settings, `_security`, change listeners) and its write entry points; every
 * write runs through the write pipeline (./write-pipeline.ts: the write rules, attachment bytes,
 * the group commit); the reads are in ./document-reader.ts, which this class extends.
 */
import { SequenceWatch } from '../support/sequence-watch.js';
import {
  DEFAULT_ITERATIONS,
  isAdmin,
  isDbAdmin,
  securityOf,
  type SecurityObject,
  type UserCtx,
} from '../auth/index.js';
import {
  ACCESS_PROP,
  type AccessReader,
  type AccessWriter,
  checkAccessWrite,
  principalsOf,
  withUsersRole,
} from './access-rules.js';
import { CouchError } from '../errors.js';
import { JsonObject, type JsonValue } from '../json/index.js';
import type { DocumentStore } from '../storage/contract.js';
import type { DbMeta, DocRecord } from '../storage/records.js';
import { DEFAULT_COMPRESSION_LEVEL } from './attachment-bytes.js';
import type { FollowingParts } from './attachment-resolve.js';
import { DesignRecords } from './design-records.js';
import { DocumentReader } from './document-reader.js';
import { randomId, validateDocId } from './doc-id.js';
import { readDocInput, type DocInput } from './doc-input.js';
import { revRequired } from './edit.js';
import { GroupCommit } from './group-commit.js';
import { LocalDocs } from './local-docs.js';
import { withDesignPartitionCheck } from './partition.js';
import { WritePipeline } from './write-pipeline.js';
import type { DocCheck, WriteResult } from './write-plan.js';
import { SERVER_ADMIN, type Writer } from './write-rules.js';
import { leafRevsOf } from './stale-bodies.js';

export type { OpenedDoc, OpenOptions, OpenRevsResult } from './document-reader.js';
export type { WriteResult } from './write-plan.js';
export { SERVER_ADMIN, type Writer } from './write-rules.js';

export const DEFAULT_REVS_LIMIT = 1000;

/** CouchDB's default `max_attachment_size`: 1 GiB. */
export const DEFAULT_MAX_ATTACHMENT_BYTES = 1024 * 1024 * 1024;

/** How often a database with change listeners looks for writes made by other processes. */
const WATCH_MS = 200;

export type ChangeListener = (updateSeq: number) => void;

export interface DatabaseOptions {
  /** Checks every design document before it is written (the server passes the view engine's design rules). */
  check?: DocCheck;
  /** PBKDF2 rounds for `_users` passwords hashed now (CouchDB's 600000). */
  hashIterations?: number;
  /**
   * Whether a database name is a users database, asked at each write: the server's rule adds its
   * `[chttpd_auth] authentication_db` to `_users` and `…/_users` (users-db.ts's `isUsersDb`).
   */
  isUsersDb?: (name: string) => boolean;
  /** Created with `?partitioned=true` (./partition.ts): kept in storage as the `partitioned` prop. */
  partitioned?: boolean;
  /** `[per_doc_access] autofill`, asked at each write of an access-enabled database (./access-rules.ts). */
  accessAutofill?: () => boolean;
  /** `[attachments] compression_level` now (0: none, 1..9); default 8. */
  attachmentCompressionLevel?: () => number;
  /** The key replication documents' credentials are stored encrypted with (a server value). */
  credentialsKey?: () => Promise<Buffer>;
  /** Told of each run of validate functions (the server's `couchdb.query_server.vdu_*` stats). */
  validated?: (ms: number, refused: boolean) => void;
}

export class Database extends DocumentReader {
  readonly local: LocalDocs;
  private readonly writes: WritePipeline;
  private securityCache: { stored: string | undefined; security: SecurityObject } | undefined;
  private revsLimitCache: number | undefined;
  /** Whether the database was created access-enabled: set at creation only, so read once. */
  private accessCache: boolean | undefined;
  private readonly accessAutofill: () => boolean;
  /** The largest attachment accepted, in bytes (413 `attachment_too_large` past it). */
  maxAttachmentBytes = DEFAULT_MAX_ATTACHMENT_BYTES;
  private readonly designs: DesignRecords;
  private readonly changes = new SequenceWatch(() => this.updateSeq(), WATCH_MS);
  /** `[attachments] compression_level` for the bytes written now (0: none, 1..9). */
  readonly attachmentCompressionLevel: () => number;
  /** A partitioned database (./partition.ts): ids are `partition:docid`, queries may name a partition. */
  readonly partitioned: boolean;
  /** Whether the storage's count of stale bodies is known to exist (see meta). */
  private staleCounted = false;

  constructor(
    readonly name: string,
    store: DocumentStore,
    /** When the database was created: with its name, its identity (a database created again is another). */
    readonly createdAt: number,
    options: DatabaseOptions = {},
  ) {
    super(store);
    this.partitioned = options.partitioned === true;
    this.accessAutofill = options.accessAutofill ?? (() => false);
    this.attachmentCompressionLevel = options.attachmentCompressionLevel ?? (() => DEFAULT_COMPRESSION_LEVEL);
    this.local = new LocalDocs(store);
    this.designs = new DesignRecords(store);
    const commits = new GroupCommit(
      store,
      () => this.revsLimitCache ?? this.revsLimit(),
      (ids, seqs) => {
        this.designs.committed(ids, seqs);
        this.notify(seqs[seqs.length - 1]!);
      },
      withDesignPartitionCheck(this.partitioned, options.check),
    );
    this.writes = new WritePipeline(this, store, this.local, commits, {
      hashIterations: options.hashIterations ?? DEFAULT_ITERATIONS,
      ...(options.isUsersDb === undefined ? {} : { isUsersDb: options.isUsersDb }),
      ...(options.credentialsKey === undefined ? {} : { credentialsKey: options.credentialsKey }),
      ...(options.validated === undefined ? {} : { validated: options.validated }),
    });
  }
  /**
   * The database's `_security` (CouchDB 3's admin-only default when none is stored). Read from
   * storage each time, so another node's change applies at once; the parsed object is kept
   * while the stored text is the same.
   */
  async security(): Promise<SecurityObject> {
    const stored = await this.store.getProp('security');
    const cached = this.securityCache;
    if (cached !== undefined && cached.stored === stored) return cached.security;
    const security = securityOf(stored);
    this.securityCache = { stored, security };
    return security;
  }

  /** Whether the database has per-document access control (created with `?access=true`). */
  async accessEnabled(): Promise<boolean> {
    if (this.accessCache !== undefined) return this.accessCache;
    const enabled = (await this.store.getProp(ACCESS_PROP)) === 'true';
    // The flag is set right after creation, before any write: while a database (opened by
    // another node meanwhile, say) has none, "not enabled" is asked again.
    if (enabled || (await this.store.counters()).updateSeq > 0) this.accessCache = enabled;
    return enabled;
  }

  /** Known to have no per-document access control: a write path may skip `accessWriterOf`'s promise. */
  get accessKnownOff(): boolean {
    return this.accessCache === false;
  }

  /** Makes a new database access-enabled (at its creation, before any write). */
  async enableAccess(): Promise<void> {
    await this.store.setProp(ACCESS_PROP, 'true');
    this.accessCache = true;
  }

  /** The writer as the access rules see it (./access-rules.ts); undefined without access control. */
  async accessWriterOf(writer: Writer): Promise<AccessWriter | undefined> {
    const known = this.knownAccessWriterOf(writer);
    if (known !== undefined) return known;
    if (!(await this.accessEnabled())) return undefined;
    // A server admin is an admin whatever `_security` says: their writes (the embedded API's,
    // an admin's replication) read no `_security` for it.
    const admin =
      isAdmin(writer.user) || isDbAdmin(withUsersRole(writer.user), writer.security ?? (await this.security()));
    return this.accessWriter(writer, admin);
  }

  /**
   * `accessWriterOf` without a promise when nothing is to be read: the database known
   * access-enabled, the writer a server admin or with `_security` in hand (the usual write asks
   * twice, its rules and its commit). Undefined otherwise: ask `accessWriterOf`.
   */
  knownAccessWriterOf(writer: Writer): AccessWriter | undefined {
    if (this.accessCache !== true) return undefined;
    if (isAdmin(writer.user)) return this.accessWriter(writer, true);
    if (writer.security === undefined) return undefined;
    return this.accessWriter(writer, isDbAdmin(withUsersRole(writer.user), writer.security));
  }

  /**
   * The access writer last made for a user (its principals' set and list, made twice a write
   * otherwise): used again while its admin and autofill still hold. A user's context is not changed
   * once made.
   */
  private readonly accessWriters = new WeakMap<UserCtx, AccessWriter>();

  private accessWriter(writer: Writer, admin: boolean): AccessWriter {
    const autofill = this.accessAutofill();
    const kept = this.accessWriters.get(writer.user);
    if (kept !== undefined && kept.admin === admin && kept.autofill === autofill) return kept;
    const made = { admin, name: writer.user.name, principals: principalsOf(writer.user), autofill };
    this.accessWriters.set(writer.user, made);
    return made;
  }

  /** What a reader may see: undefined when everything (no access control, or an admin). */
  async accessReaderOf(user: UserCtx, security?: SecurityObject): Promise<AccessReader | undefined> {
    if (!(await this.accessEnabled())) return undefined;
    if (isDbAdmin(withUsersRole(user), security ?? (await this.security()))) return undefined;
    return { principals: principalsOf(user) };
  }

  /**
   * Records a user's roles as `_users` has them now (version: the account document's revision
   * number) in the role log of an access-enabled database (./access-roles.ts); a change moves
   * the update sequence, so the feeds waiting here wake.
   */
  async recordRoles(
    user: string,
    roles: readonly string[],
    principals: readonly string[],
    version: number,
  ): Promise<void> {
    const { seq } = await this.store.recordRoles(user, roles, principals, version);
    if (seq !== undefined) this.notify(seq);
  }

  async setSecurity(security: SecurityObject): Promise<void> {
    await this.store.setProp('security', JSON.stringify(security));
  }

  /** The live design documents' records, in id order (what validate functions, views and Mango indexes read). */
  designRecords(): Promise<readonly DocRecord[]> {
    return this.designs.get();
  }

  /**
   * For a write's rules: the design documents' records and the update sequence they are current
   * at; `kept`: as this node kept them, unchecked (./design-records.ts `kept`).
   */
  designRecordsForWrite(kept: boolean): Promise<{ records: readonly DocRecord[]; seq: number }> {
    return kept ? this.designs.kept() : this.designs.current();
  }

  async meta(): Promise<DbMeta> {
    // A database stored before its engine kept the stale bodies' bytes has them counted once.
    if (!this.staleCounted) {
      await this.store.countStaleBodies(leafRevsOf);
      this.staleCounted = true;
    }
    return this.store.meta();
  }

  /** The latest sequence (cheap: no file sizes). */
  async updateSeq(): Promise<number> {
    return (await this.store.counters()).updateSeq;
  }

  async revsLimit(): Promise<number> {
    if (this.revsLimitCache === undefined) {
      const stored = await this.store.getProp('revs_limit');
      this.revsLimitCache = stored === undefined ? DEFAULT_REVS_LIMIT : Number(stored);
    }
    return this.revsLimitCache;
  }

  async setRevsLimit(limit: number): Promise<void> {
    await this.store.setProp('revs_limit', String(limit));
    this.revsLimitCache = limit;
  }

  /**
   * Called with the new update sequence after every write that changed documents: at once for
   * writes through this process, and within WATCH_MS for writes by other processes on the same
   * storage (other server nodes), found by polling the sequence while anyone listens.
   */
  onChange(listener: ChangeListener): () => void {
    return this.changes.listen(listener);
  }

  private notify(updateSeq: number): void {
    this.changes.notify(updateSeq);
  }

  /** Tells the change listeners about a write made outside `bulkDocs`/`putDoc` (a purge). */
  notifyChanged(updateSeq: number): void {
    this.notify(updateSeq);
  }

  /**
   * Writes documents as `_bulk_docs` does: every input is validated first (one invalid document
   * fails the whole request, nothing written), then each gets its own result: conflicts and
   * refusals are values, not throws. All accepted edits commit in one transaction.
   */
  bulkDocs(docs: readonly JsonValue[], newEdits: boolean, writer: Writer = SERVER_ADMIN): Promise<WriteResult[]> {
    const inputs = docs.map((doc) => {
      const input = readDocInput(doc);
      if (!newEdits && input.rev === undefined && input.revisions === undefined) {
        throw revRequired();
      }
      const id = input.id === undefined && newEdits ? undefined : validateDocId(input.id);
      return { id, input };
    });
    return this.writes.write(
      inputs.map(({ id, input }) => ({ id: id ?? randomId(), input })),
      newEdits,
      undefined,
      writer,
    );
  }

  /**
   * Writes replicated revisions (`new_edits=false`) already taken apart into inputs, through the
   * same write rules and pipeline as `bulkDocs`: a replication between two databases of this
   * server hands their stored text over this way instead of documents to parse, and a batch of
   * replicated documents with attachments their bytes (each item's own `following`).
   */
  bulkReplicated(
    items: readonly { id: string; input: DocInput; following?: FollowingParts }[],
    writer: Writer = SERVER_ADMIN,
  ): Promise<WriteResult[]> {
    const checked = items.map((item) => ({ ...item, id: validateDocId(item.id) }));
    return this.writes.write(checked, false, undefined, writer);
  }

  /**
   * Writes one document under the given id (`PUT /db/id`); throws on conflict or refusal.
   * `following` gives the bytes of attachments that follow the JSON (a multipart request), in
   * the order they come.
   */
  async putDoc(
    rawId: unknown,
    input: DocInput,
    newEdits = true,
    following?: FollowingParts,
    writer: Writer = SERVER_ADMIN,
  ): Promise<{ ok: true; id: string; rev: string }> {
    const id = validateDocId(rawId);
    return okOrThrow(await this.writes.write([{ id, input }], newEdits, following, writer, true));
  }

  /**
   * Writes one document whose attachments are already resolved (`input.atts`, bytes stored):
   * the standalone attachment requests. Throws on conflict.
   */
  async putPrepared(
    id: string,
    input: DocInput,
    writer: Writer = SERVER_ADMIN,
  ): Promise<{ ok: true; id: string; rev: string }> {
    return okOrThrow(await this.writes.writePrepared({ id, input }, writer));
  }

  /**
   * `DELETE /db/_local/id`: in an access-enabled database a non-admin deletes only a `_local`
   * document whose `_access` names them (./access-rules.ts); 404 when there is none.
   */
  async deleteLocal(id: string, writer: Writer = SERVER_ADMIN): Promise<{ ok: true; id: string; rev: string }> {
    const access = await this.accessWriterOf(writer);
    if (access !== undefined) {
      const input = { id, rev: undefined, revisions: undefined, deleted: true, body: new JsonObject() };
      await checkAccessWrite((local) => this.store.getLocal(local), id, input, access, 'local');
    }
    return this.local.delete(id);
  }

  /**
   * Runs a write that stores attachment bytes first, or refers to bytes only an old revision
   * holds: compaction frees none of them meanwhile, on any node (see attachment-sweep.ts).
   */
  withAttachmentWrite<T>(write: () => Promise<T>): Promise<T> {
    return this.store.attachmentWrite(write);
  }
}

function okOrThrow(rows: WriteResult[]): { ok: true; id: string; rev: string } {
  const [result] = rows as [WriteResult];
  if ('error' in result) throw new CouchError(result.error, result.reason);
  return result;
}
