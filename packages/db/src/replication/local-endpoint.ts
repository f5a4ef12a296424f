/**
 * This server's own database as a replication endpoint: read and written in process through the
 * database layer, as the job's user. The same rules as over HTTP apply: the user must be a member
 * of the database (`_security`), and every write passes `documents/write-rules.ts` (design
 * documents need a DB admin, `validate_doc_update` runs with the user's context). Only DB admins
 * read a users database whole (its members see only their own document over HTTP).
 */
import type { Viewer } from '../documents/replicator-reads.js';
import { hiddenFrom, readableRevs } from '../documents/access-reads.js';
import { randomUUID } from 'node:crypto';
import { isDbAdmin, requireMember, type SecurityObject, type UserCtx } from '../auth/index.js';
import { withUsersRole } from '../documents/access-rules.js';
import { changeEvents, type ChangesOptions, type DocFilter } from '../documents/changes.js';
import type { Database, OpenedDoc, OpenOptions, Writer, WriteResult } from '../documents/database.js';
import { readDocInput } from '../documents/doc-input.js';
import { isUsersDb } from '../documents/users-db.js';
import { CouchError, notFound } from '../errors.js';
import { fromPlain, JsonObject, parseJson, stringifyJson, toPlain, type JsonValue } from '../json/index.js';
import { matches } from '../mango/match.js';
import { selectorParser } from '../mango/selector-parser.js';
import { parseSelector } from '../mango/selector.js';
import { findRev, parseRev, parseTree, type Rev } from '../revisions/index.js';
import { splitStoredBody } from '../documents/attachment.js';
import type { DocInput } from '../documents/doc-input.js';
import type { FollowingParts } from '../documents/attachment-resolve.js';
import type { ChangedDoc, Page } from '../storage/records.js';
import { createChangesFilter, type ChangesFilterRunner } from '../sandbox/index.js';
import {
  statusOfError,
  type ChangeEntry,
  type ChangesFilter,
  type ChangesPage,
  type ChangesRequest,
  type Endpoint,
  type EndpointInfo,
  type FetchedDoc,
  type RevsDiff,
  type StoredFetch,
  type StoredRevision,
  type Wanted,
  type WriteFailure,
} from './endpoint.js';

/**
 * Batches whose documents are kept for their fetch: the two being fetched (session.ts prepares
 * two at once), the next (its changes are read meanwhile), and the one before (being written).
 * The session needs the first three; the fourth is slack (a document not found here is read from
 * storage again, never missed).
 */
const SEEN_BATCHES = 4;

export class LocalEndpoint implements Endpoint {
  readonly shown: string;
  private filterState: { filter: ChangesFilter; docFilter: DocFilter; runner?: ChangesFilterRunner } | undefined;
  /** The unfiltered changes read so far, where the next batch goes on (`readAll`). */
  private walk: ChangesWalk | undefined;
  /** The documents of the latest unfiltered batches, newest first, as read with their winning bodies. */
  private seen: Map<string, ChangedDoc>[] = [];

  private constructor(
    readonly db: Database,
    private readonly user: UserCtx,
    private readonly role: 'source' | 'target',
    private readonly log: (line: string) => void,
  ) {
    this.shown = db.name;
  }

  /**
   * Opens the database for a job of `user`: refused (CouchDB's 401/403) unless the user is a
   * member; reading a users database needs its DB admin.
   */
  static async open(db: Database, user: UserCtx, role: 'source' | 'target', log: (line: string) => void) {
    const endpoint = new LocalEndpoint(db, user, role, log);
    await endpoint.writer();
    return endpoint;
  }

  /**
   * The job's writer under the database's `_security` as it is now: checked again before each
   * batch, so a continuous job loses a right as soon as its user does.
   */
  private async writer(): Promise<Writer> {
    const security: SecurityObject = await this.db.security();
    // In an access-enabled database every signed-in user holds `_users` (documents/access-rules.ts).
    const user = (await this.db.accessEnabled()) ? withUsersRole(this.user) : this.user;
    requireMember(user, security);
    if (this.role === 'source' && isUsersDb(this.db.name) && !isDbAdmin(user, security)) {
      throw new CouchError('forbidden', `Only admins of ${this.db.name} may replicate from it.`);
    }
    return { user: this.user, security };
  }

  /** The job's user as a reader of the database (documents/replicator-reads.ts). */
  private async viewer(): Promise<Viewer> {
    return { name: this.user.name, dbAdmin: isDbAdmin(this.user, await this.db.security()) };
  }

  async info(): Promise<EndpointInfo> {
    const meta = await this.db.meta();
    // As `GET /db` shows it (http/handlers/databases.ts).
    return { instanceStartTime: String(Math.floor(meta.createdAt / 1000)), updateSeq: meta.updateSeq };
  }

  async changes(request: ChangesRequest): Promise<ChangesPage> {
    await this.writer();
    const since = seqNumber(request.since);
    let page = await this.read(since, request);
    if (page.results.length > 0 || request.waitMs === undefined || request.signal?.aborted) return page;
    await this.waitForChange(since, request.waitMs, request.signal);
    page = await this.read(since, request);
    return page;
  }

  private async read(since: number, request: ChangesRequest): Promise<ChangesPage> {
    const options: ChangesOptions = {
      since,
      descending: false,
      includeDocs: false,
      conflicts: false,
      allLeaves: true,
      ...(await this.filterOptions(request.filter)),
    };
    // A non-admin of an access-enabled database reads only their documents (documents/access-rules.ts).
    const reader = await this.db.accessReaderOf(this.user);
    // Documents are judged as the job's user is shown them (documents/replicator-reads.ts).
    if (this.db.hasReadRule) options.viewer = await this.viewer();
    if (reader !== undefined) options.access = { reader, removed: false };
    // Read first: a change committed during the scan may be past it, never skipped by it.
    const seqAtStart = await this.db.updateSeq();
    if (
      options.filter === undefined &&
      options.docFilter === undefined &&
      options.docIds === undefined &&
      reader === undefined
    ) {
      return this.readAll(since, request.limit, seqAtStart);
    }
    const results: ChangeEntry[] = [];
    let lastSeq = since;
    // Every change moves `lastSeq`, also those a filter rejects: the checkpoint does not scan them again.
    for await (const event of changeEvents(this.db, options)) {
      lastSeq = Math.max(lastSeq, event.seq);
      if (event.json === undefined) continue;
      results.push(JSON.parse(event.json) as ChangeEntry);
      if (results.length >= request.limit) return { results, lastSeq };
    }
    return { results, lastSeq: Math.max(lastSeq, seqAtStart) };
  }

  /**
   * An unfiltered read (no filter, every document readable): the changes' leaves taken from the
   * stored records as they are folded, not rendered as feed rows and parsed back (a large
   * in-process replication spent a fifth of its allocations on that round trip). The walk goes on
   * where the last batch stopped when this batch starts there (a job reads its batches in order):
   * a new walk per batch read its first pages again and dropped most of its last (64 + 256 + 1,024
   * records read for a batch of 500).
   */
  private async readAll(since: number, limit: number, seqAtStart: number): Promise<ChangesPage> {
    const walk = this.walk?.at === since ? this.walk : this.startWalk(since);
    this.walk = undefined;
    const seen = new Map<string, ChangedDoc>();
    // This batch's documents, fetched once the target says what it lacks (two batches are in flight).
    this.seen.unshift(seen);
    this.seen.length = Math.min(this.seen.length, SEEN_BATCHES);
    const results: ChangeEntry[] = [];
    let lastSeq = since;
    for (;;) {
      if (walk.rows.length === walk.next) {
        const page = await walk.pages.next();
        if (page.done === true) break;
        walk.rows = page.value;
        walk.next = 0;
        continue;
      }
      const record = walk.rows[walk.next++]!;
      seen.set(record.id, record);
      lastSeq = Math.max(lastSeq, record.seq);
      const entry: ChangeEntry = { seq: record.seq, id: record.id, changes: this.db.changeRevs(record, true) };
      if (record.deleted) entry.deleted = true;
      results.push(entry);
      if (results.length >= limit) {
        walk.at = lastSeq;
        this.walk = walk;
        return { results, lastSeq };
      }
    }
    return { results, lastSeq: Math.max(lastSeq, seqAtStart) };
  }

  private startWalk(since: number): ChangesWalk {
    this.walk?.pages.return?.(undefined)?.catch(() => undefined);
    return { at: since, pages: this.db.foldChangedBodies(since)[Symbol.asyncIterator](), rows: [], next: 0 };
  }

  /** A document as the latest batches read it (its revisions are the same ever after), or undefined. */
  private seenDoc(id: string): ChangedDoc | undefined {
    for (const batch of this.seen) {
      const doc = batch.get(id);
      if (doc !== undefined) return doc;
    }
    return undefined;
  }

  private waitForChange(since: number, waitMs: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve) => {
      let stop = () => {};
      const done = () => {
        stop();
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, waitMs);
      timer.unref();
      signal?.addEventListener('abort', done);
      stop = this.db.onChange((seq) => {
        if (seq > since) done();
      });
    });
  }

  private async filterOptions(filter: ChangesFilter | undefined): Promise<Partial<ChangesOptions>> {
    if (filter === undefined) return {};
    if (filter.kind === 'doc_ids') {
      const docIds = new Map<string, number>();
      for (const id of filter.ids) docIds.set(id, 1);
      return { docIds };
    }
    if (this.filterState?.filter !== filter) this.filterState = await this.docFilterOf(filter);
    return { docFilter: this.filterState.docFilter };
  }

  private async docFilterOf(filter: ChangesFilter & { kind: 'selector' | 'design' }) {
    if (filter.kind === 'selector') {
      const selector = parseSelector(fromPlain(filter.selector));
      const parse = selectorParser(selector);
      const docFilter: DocFilter = { test: async (docs) => docs.map((doc) => matches(selector, parse(doc))) };
      return { filter, docFilter };
    }
    const [ddocName, name] = splitFilterName(filter.name);
    const ddoc = await this.designDoc(`_design/${ddocName}`);
    const filters = ddoc.get('filters');
    const source = filters instanceof JsonObject ? filters.get(name) : undefined;
    if (typeof source !== 'string') {
      throw notFound(`The filter ${filter.name} does not exist in ${this.db.name}.`);
    }
    const runner = await createChangesFilter(
      { name: filter.name, source, ddocJson: stringifyJson(ddoc) },
      { log: (message, kind) => this.log(`${kind === 'user' ? 'Log' : 'Error'} :: ${message}`) },
    );
    const req = JSON.stringify(await this.requestObject(filter.queryParams));
    const docFilter: DocFilter = { test: (docs) => runner.filterBatch(docs, req) };
    return { filter, docFilter, runner };
  }

  /** The request object a filter function receives, as CouchDB's replicator's `_changes` request makes it. */
  private async requestObject(query: Record<string, string>): Promise<unknown> {
    const meta = await this.db.meta();
    const { user, security } = await this.writer();
    return {
      info: { db_name: this.db.name, update_seq: meta.updateSeq, doc_count: meta.docCount },
      uuid: randomUUID().replaceAll('-', ''),
      id: null,
      method: 'GET',
      requested_path: [this.db.name, '_changes'],
      path: [this.db.name, '_changes'],
      raw_path: `/${encodeURIComponent(this.db.name)}/_changes`,
      query,
      headers: {},
      body: 'undefined',
      peer: '127.0.0.1',
      form: {},
      cookie: {},
      userCtx: { db: this.db.name, name: user.name, roles: user.roles },
      secObj: security,
    };
  }

  private async designDoc(id: string): Promise<JsonObject> {
    const found = await this.db.winningBody(id);
    if (found === undefined) throw notFound(`The design document ${id} does not exist in ${this.db.name}.`);
    const body = found.body as JsonObject;
    return new JsonObject(['_id', '_rev', ...body.keys], [id, found.rev, ...body.values]);
  }

  async filterSource(name: string): Promise<string> {
    const [ddocName, filterName] = splitFilterName(name);
    const filters = (await this.designDoc(`_design/${ddocName}`)).get('filters');
    const source = filters instanceof JsonObject ? filters.get(filterName) : undefined;
    if (typeof source !== 'string') throw notFound(`The filter ${name} does not exist in ${this.db.name}.`);
    return source;
  }

  async revsDiff(revs: ReadonlyMap<string, readonly string[]>): Promise<Map<string, RevsDiff>> {
    const request = new Map<string, Rev[]>();
    for (const [id, list] of revs)
      request.set(
        id,
        list.map((rev) => parseRev(rev)),
      );
    return this.db.missingRevs(request, await this.db.accessReaderOf(this.user));
  }

  async fetch(wanted: readonly Wanted[]): Promise<JsonValue[]> {
    return (await this.opened(wanted, false)).map(({ doc }) => parseJson(doc.json));
  }

  async fetchWithParts(wanted: readonly Wanted[]): Promise<FetchedDoc[]> {
    const fetched: FetchedDoc[] = [];
    for (const { doc } of await this.opened(wanted, true)) {
      const parts = new Map<string, Buffer>();
      for (const att of doc.following) {
        const chunks: Uint8Array[] = [];
        for await (const chunk of this.db.attachmentBytes(att)) chunks.push(chunk);
        // A small attachment is one chunk, taken as it was read (a view, not a copy).
        const only = chunks.length === 1 ? chunks[0]! : undefined;
        parts.set(
          att.name,
          only === undefined ? Buffer.concat(chunks) : Buffer.from(only.buffer, only.byteOffset, only.byteLength),
        );
      }
      fetched.push({ doc: parseJson(doc.json), parts });
    }
    return fetched;
  }

  /**
   * The wanted revisions as stored: records and winning bodies read together, other bodies in one
   * more read, nothing rendered. A document with attachments goes to `others` whole (its bytes
   * travel as parts); so does everything for a reader the access rules filter, and everything of a
   * database whose reads may show less than is stored (a read rule: `_replicator`'s credentials).
   */
  async fetchStored(wanted: readonly Wanted[]): Promise<StoredFetch> {
    if (this.db.hasReadRule || (await this.db.accessReaderOf(this.user)) !== undefined)
      return { stored: [], others: [...wanted] };
    // The changes read with their records and winning bodies (`readAll`) need not be read again.
    const seen = new Map<string, ChangedDoc>();
    for (const want of wanted) {
      const doc = this.seenDoc(want.id);
      if (doc !== undefined) seen.set(want.id, doc);
    }
    const unseen = wanted.filter(({ id }) => !seen.has(id)).map(({ id }) => id);
    const ahead = unseen.length === 0 ? undefined : await this.db.readAhead(unseen);
    const found: { want: Wanted; revisions: StoredRevision[] }[] = [];
    const unread: { id: string; rev: string }[] = [];
    const unreadAt: StoredRevision[] = [];
    for (const want of wanted) {
      const doc = seen.get(want.id);
      const record = doc ?? ahead?.record(want.id);
      // A document no longer here, or a revision no longer held, is left out (as `fetch` does).
      if (record === undefined) continue;
      const tree = parseTree(record.tree);
      const revisions: StoredRevision[] = [];
      for (const revText of want.revs) {
        const rev = parseRev(revText);
        const node = findRev(tree, rev);
        if (node === undefined || !node.stored) continue;
        const body = doc === undefined ? ahead?.bodyOf(record, revText) : revText === doc.rev ? doc.body : undefined;
        const revision = {
          id: want.id,
          rev: revText,
          deleted: node.deleted,
          revisions: { start: rev.pos, ids: node.path },
          body: body ?? '',
        };
        if (body === undefined) {
          unread.push({ id: want.id, rev: revText });
          unreadAt.push(revision);
        }
        revisions.push(revision);
      }
      found.push({ want, revisions });
    }
    if (unread.length > 0) {
      const bodies = await this.db.storedBodies(unread);
      unreadAt.forEach((revision, i) => {
        revision.body = bodies[i] ?? '';
      });
    }
    const stored: StoredRevision[] = [];
    const others: Wanted[] = [];
    for (const { want, revisions } of found) {
      if (revisions.some(({ body }) => body !== '' && splitStoredBody(body).stubs !== undefined)) others.push(want);
      else for (const revision of revisions) if (revision.body !== '') stored.push(revision);
    }
    return { stored, others };
  }

  /** The wanted revisions as read (left out: those no longer here); attachments inline or following. */
  private async opened(wanted: readonly Wanted[], follows: boolean): Promise<{ doc: OpenedDoc }[]> {
    const docs: { doc: OpenedDoc }[] = [];
    const ahead = await this.db.readAhead(wanted.map(({ id }) => id));
    const reader = await this.db.accessReaderOf(this.user);
    const viewer = await this.viewer();
    for (const { id, revs, attsSince } of wanted) {
      if (reader !== undefined && (await hiddenFrom(this.db, reader, id))) continue;
      const options: OpenOptions = follows
        ? { revs: true, follows: true, attEncodingInfo: true, viewer }
        : { revs: true, attachments: true, viewer };
      if (attsSince.length > 0) options.attsSince = attsSince.map((rev) => parseRev(rev));
      const opened = await this.db.openRevs(
        id,
        revs.map((rev) => parseRev(rev)),
        options,
        ahead,
      );
      for (const result of readableRevs(opened, reader, false)) if ('ok' in result) docs.push(result);
    }
    return docs;
  }

  async write(docs: readonly JsonValue[]): Promise<WriteFailure[]> {
    const writer = await this.writer();
    try {
      return failuresOf(await this.db.bulkDocs(docs, false, writer));
    } catch (error) {
      // One document the whole batch cannot take (a 413, a malformed document): said per document.
      if (!(error instanceof CouchError) || docs.length !== 1) throw error;
      const doc = docs[0];
      const id = doc instanceof JsonObject ? String(doc.get('_id')) : '';
      return [{ id, error: error.error, reason: error.reason, status: error.status }];
    }
  }

  /** Writes revisions of another database of this server as stored, through every write rule of this one. */
  async writeStored(revisions: readonly StoredRevision[]): Promise<WriteFailure[]> {
    const writer = await this.writer();
    const items = revisions.map((revision) => ({ id: revision.id, input: storedInput(revision) }));
    try {
      return failuresOf(await this.db.bulkReplicated(items, writer));
    } catch (error) {
      if (!(error instanceof CouchError) || revisions.length !== 1) throw error;
      return [{ id: revisions[0]!.id, error: error.error, reason: error.reason, status: error.status }];
    }
  }

  async writeWithParts({ doc, parts }: FetchedDoc): Promise<WriteFailure[]> {
    const writer = await this.writer();
    const input = readDocInput(doc);
    const id = typeof input.id === 'string' ? input.id : '';
    try {
      await this.db.putDoc(input.id, input, false, partsOf(parts), writer);
      return [];
    } catch (error) {
      if (!(error instanceof CouchError)) throw error;
      return [{ id, error: error.error, reason: error.reason, status: error.status }];
    }
  }

  /**
   * Documents with attachment bytes written together: their bytes stored, then their revisions
   * committed in one transaction, each through every write rule (a refusal is its row). What
   * fails the whole batch before anything is written (a bad stub, an attachment over the limit, a
   * part that does not match its entry) is found out document by document, each alone.
   */
  async writeAllWithParts(fetched: readonly FetchedDoc[]): Promise<WriteFailure[]> {
    if (fetched.length === 1) return this.writeWithParts(fetched[0]!);
    const writer = await this.writer();
    try {
      const items = fetched.map(({ doc, parts }) => {
        const input = readDocInput(doc);
        return { id: typeof input.id === 'string' ? input.id : '', input, following: partsOf(parts) };
      });
      return failuresOf(await this.db.bulkReplicated(items, writer));
    } catch (error) {
      if (!(error instanceof CouchError)) throw error;
      const failures: WriteFailure[] = [];
      for (const one of fetched) failures.push(...(await this.writeWithParts(one)));
      return failures;
    }
  }

  async getLocal(id: string): Promise<Record<string, unknown> | undefined> {
    if (await hiddenFrom(this.db, await this.db.accessReaderOf(this.user), id)) return undefined;
    const doc = await this.db.local.find(id);
    if (doc === undefined) return undefined;
    return { ...(toPlain(parseJson(doc.body)) as Record<string, unknown>), _id: id, _rev: doc.rev };
  }

  /**
   * A checkpoint is written as the job's user, through the write rules like every write; in an
   * access-enabled database a user's names them (`_access`, as CouchDB's branch's replicator does).
   */
  async putLocal(id: string, body: Record<string, unknown>): Promise<string> {
    const writer = await this.writer();
    const access = await this.db.accessWriterOf(writer);
    const named = access !== undefined && !access.admin && access.name !== null ? { _access: [access.name] } : {};
    const input = readDocInput(fromPlain({ ...body, ...named, _id: id }));
    return (await this.db.putDoc(id, input, true, undefined, writer)).rev;
  }

  close(): void {
    this.walk?.pages.return?.(undefined)?.catch(() => undefined);
    this.walk = undefined;
    this.seen = [];
    this.filterState?.runner?.dispose();
    this.filterState = undefined;
  }
}

/** A walk of the changes by sequence kept between batches: the records of its page not yet read. */
interface ChangesWalk {
  /** The sequence the walk has read through (the next batch's `since`). */
  at: number;
  pages: AsyncIterator<Page<ChangedDoc>>;
  rows: readonly ChangedDoc[];
  next: number;
}

/**
 * A stored revision as a write input: its text is what gets stored (`json`), and its body is
 * parsed only when a write rule reads it (a validate function, a design document's check): a
 * plain copy between two databases never parses it.
 */
function storedInput({ id, rev, deleted, revisions, body: text }: StoredRevision): DocInput {
  let body: JsonObject | undefined;
  return {
    id,
    rev: parseRev(rev),
    revisions,
    deleted,
    json: text,
    get body(): JsonObject {
      if (body === undefined) {
        const parsed = parseJson(text);
        if (!(parsed instanceof JsonObject)) throw new CouchError('bad_request', `The body of ${id} is not an object.`);
        body = parsed;
      }
      return body;
    },
    // A rule may put a body of its own (clearing `json`): a users database hashes a password.
    set body(value: JsonObject) {
      body = value;
    },
  };
}

/** A fetched document's attachment bytes as its write reads them, by name. */
function partsOf(parts: ReadonlyMap<string, Buffer>): FollowingParts {
  return (name) => {
    const bytes = parts.get(name);
    if (bytes === undefined) throw new CouchError('bad_request', 'attachment shorter than expected');
    return [bytes];
  };
}

/** The rows of a write the target refused. */
function failuresOf(results: readonly WriteResult[]): WriteFailure[] {
  const failures: WriteFailure[] = [];
  for (const result of results) {
    if ('error' in result) failures.push({ ...result, status: statusOfError(result.error) });
  }
  return failures;
}

/** `ddoc/name`, as `_changes` takes a design filter. */
export function splitFilterName(name: string): [string, string] {
  const parts = name.split('/');
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') {
    throw new CouchError('bad_request', '`filter` must be of the form `designname/filtername`');
  }
  return [parts[0]!, parts[1]!];
}

/** A local database's sequences are integers; a checkpoint or `since_seq` from elsewhere is read as one. */
function seqNumber(seq: unknown): number {
  if (typeof seq === 'number') return seq;
  if (typeof seq === 'string') {
    const leading = /^\d+/.exec(seq);
    if (leading !== null) return Number(leading[0]);
  }
  return 0;
}
