/**
 * A CouchDB-protocol database over HTTP (CouchDB, PouchDB Server, another Divan) as a replication
 * endpoint, over ./http-client.ts. Credentials (`auth.basic`, user:pass in the URL or an
 * `Authorization` header) are kept apart from the URL and sent only as the header: what the
 * endpoint shows (`shown`) and every error it raises carry the URL without them.
 */
import { randomUUID } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { CouchError, tooDeep } from '../errors.js';
import {
  fromPlain,
  JsonObject,
  JsonTooDeepError,
  parseJson,
  parseJsonIsolatingDeep,
  parseJsonMembers,
  stringifyJson,
  toPlain,
  type JsonValue,
} from '../json/index.js';
import { renderDoc } from '../documents/render.js';
import { matches } from '../mango/match.js';
import { parseSelector } from '../mango/selector.js';
import { boundaryOf, splitMultipart } from '../support/multipart.js';
import {
  statusOfError,
  type ChangeEntry,
  type ChangesPage,
  type ChangesRequest,
  type Endpoint,
  type EndpointInfo,
  type FetchedDoc,
  type RevsDiff,
  type StoredRevision,
  type Wanted,
  type WriteFailure,
} from './endpoint.js';
import { bodyText, httpRequest } from './http-client.js';
import type { ReplicatorMeter } from './meter.js';
import type { ReplicatorTls } from './tls-settings.js';

/** A remote endpoint as a replication request names it, its credentials set apart. */
export interface RemoteSpec {
  /** The database's URL without user info, ending without `/`. */
  url: string;
  /** Extra request headers (an `Authorization` among them is moved to `basic`). */
  headers: Record<string, string>;
  basic?: { username: string; password: string };
}

/** How long one request may take before the job fails it (CouchDB's `connection_timeout`: 30 s). */
const DEFAULT_TIMEOUT_MS = 30_000;

/** CouchDB's `retries_per_request`, and the first pause between attempts (doubling, capped). */
const DEFAULT_RETRIES = 5;
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 10_000;

const DOC_MEMBER: ReadonlySet<string> = new Set(['doc']);
const ID_MEMBER: ReadonlySet<string> = new Set(['id']);
const DOC_ID_MEMBER: ReadonlySet<string> = new Set(['_id']);

/** Documents with attachments fetched at once, one request each (CouchDB's replicator fetches them so). */
const ATTACHMENT_FETCHES = 4;

/** Answers worth asking again: the peer is busy or briefly away. */
const RETRIED_STATUSES = new Set([429, 500, 502, 503, 504]);

export class RemoteEndpoint implements Endpoint {
  readonly shown: string;
  /** Whether the peer answers `_bulk_get` (CouchDB 2.3+, PouchDB Server, Divan); else `open_revs`. */
  private bulkGet = true;
  /** Whether the peer filters `_changes` by `_selector` (CouchDB 2+, Divan); else the replicator does. */
  private selectorFilter = true;
  private gzipParts: Promise<boolean> | undefined;
  /**
   * Whether most documents of the last `fetchWithParts` had attachment bytes to fetch: the next
   * batch then goes as one `multipart/mixed` `_bulk_get` rather than a JSON one first.
   */
  private attachmentsLikely = false;
  /**
   * Settles once the latest `fetchWithParts` has set `attachmentsLikely` (or ended): the next one
   * waits for it while the job's first batch is unread or once documents with attachments were
   * seen, and not otherwise, so that batches of plain documents are fetched at once.
   */
  private decided: Promise<void> = Promise.resolve();
  private decidedOnce = false;
  private attachmentsSeen = false;
  private checkpointNames: Promise<{ _access?: string[] }> | undefined;
  private readonly waits = new Set<AbortController>();
  /** Documents the peer sent that could not be read (nested deeper than the JSON limit), not yet taken. */
  private unreadable: WriteFailure[] = [];

  constructor(
    readonly spec: RemoteSpec,
    private readonly timeoutMs = DEFAULT_TIMEOUT_MS,
    /** Attempts after the first for a request the peer did not answer or answered 5xx/429 (`retries_per_request`). */
    private readonly retries = DEFAULT_RETRIES,
    /** Counts each request sent and its answer (the node's `couch_replicator.*` statistics). */
    private readonly meter?: ReplicatorMeter,
    /** How the peer's certificate is trusted when it is `https:`. */
    private readonly tls?: ReplicatorTls,
  ) {
    this.shown = `${spec.url}/`;
  }

  async info(): Promise<EndpointInfo> {
    const reply = await this.request('GET', '', {});
    if (reply.status === 404) throw new CouchError('db_not_found', `Database ${this.shown} does not exist.`, 404);
    const info = this.json(reply, 'GET /db') as { instance_start_time?: unknown; update_seq?: unknown };
    return { instanceStartTime: String(info.instance_start_time ?? '0'), updateSeq: info.update_seq ?? 0 };
  }

  /** Creates the database (`create_target`): an existing one is fine. */
  async create(params: Record<string, unknown>): Promise<void> {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(params)) query.set(key, String(value));
    const reply = await this.request('PUT', '', { query });
    if (reply.status === 412) return;
    this.json(reply, 'PUT /db');
  }

  async changes(request: ChangesRequest): Promise<ChangesPage> {
    if (request.signal?.aborted) return { results: [], lastSeq: request.since };
    const filter = request.filter;
    if (filter?.kind === 'selector' && !this.selectorFilter) return this.changesJudgedHere(request, filter.selector);
    const query = changesQuery(request);
    let body: JsonValue | undefined;
    if (filter?.kind === 'doc_ids') {
      query.set('filter', '_doc_ids');
      body = new JsonObject(['doc_ids'], [[...filter.ids]]);
    } else if (filter?.kind === 'selector') {
      query.set('filter', '_selector');
      body = parseJson(JSON.stringify({ selector: filter.selector }));
    } else if (filter?.kind === 'design') {
      query.set('filter', filter.name);
      for (const [key, value] of Object.entries(filter.queryParams)) query.set(key, value);
    }
    const reply = await this.changesReply(query, body, request);
    if (reply === undefined) return { results: [], lastSeq: request.since };
    if (filter?.kind === 'selector' && (reply.status === 400 || reply.status === 404)) {
      // A peer without the `_selector` filter (CouchDB 1.x, PouchDB Server): its changes are judged here.
      this.selectorFilter = false;
      return this.changesJudgedHere(request, filter.selector);
    }
    const page = this.json(reply, 'GET /db/_changes') as { results?: ChangeEntry[]; last_seq?: unknown };
    return { results: page.results ?? [], lastSeq: page.last_seq ?? request.since };
  }

  /**
   * A selector replication from a peer that cannot filter by selector: pages of changes with
   * their documents, each judged by Divan's matcher, until `limit` pass or the feed ends (a
   * short page is how the session knows it caught up).
   */
  private async changesJudgedHere(request: ChangesRequest, selector: Record<string, unknown>): Promise<ChangesPage> {
    const parsed = parseSelector(fromPlain(selector));
    const results: ChangeEntry[] = [];
    // Only the first page may wait for a change: later ones read what is there.
    const { waitMs: _, ...noWait } = request;
    let since = request.since;
    for (let first = true; ; first = false) {
      const pageRequest = first ? { ...request, since } : { ...noWait, since };
      const query = changesQuery(pageRequest);
      query.set('include_docs', 'true');
      const reply = await this.changesReply(query, undefined, pageRequest);
      if (reply === undefined) return { results, lastSeq: since };
      const what = 'GET /db/_changes?include_docs=true';
      const { page, tooDeep: unreadable } = this.documents(reply, what);
      const rows = page.get('results');
      const list = Array.isArray(rows) ? rows : [];
      for (const row of list) {
        if (!(row instanceof JsonObject)) continue;
        const text = unreadable.get(row);
        // A document too deeply nested to judge: refused alone, by the row's id.
        if (text !== undefined) {
          this.refuseUnreadable(String(parseJsonMembers(text, ID_MEMBER).get('id') ?? ''));
          continue;
        }
        const doc = row.get('doc');
        if (doc === undefined || !matches(parsed, doc)) continue;
        results.push(toPlain(row.without(DOC_MEMBER)) as unknown as ChangeEntry);
      }
      since = page.get('last_seq') ?? since;
      if (list.length < request.limit || results.length >= request.limit) return { results, lastSeq: since };
    }
  }

  /** One `_changes` request (a longpoll cancelled with the job); undefined when the job was cancelled. */
  private async changesReply(
    query: URLSearchParams,
    body: JsonValue | undefined,
    request: ChangesRequest,
  ): Promise<{ status: number; text: string } | undefined> {
    // A longpoll is cancelled with the job, and may take its whole timeout.
    const wait = new AbortController();
    this.waits.add(wait);
    const onAbort = () => wait.abort();
    request.signal?.addEventListener('abort', onAbort);
    try {
      return await this.request(body === undefined ? 'GET' : 'POST', '/_changes', {
        query,
        ...(body === undefined ? {} : { body }),
        signal: wait.signal,
        timeoutMs: (request.waitMs ?? 0) + this.timeoutMs,
      });
    } catch (error) {
      if (wait.signal.aborted && request.signal?.aborted) return undefined;
      throw error;
    } finally {
      request.signal?.removeEventListener('abort', onAbort);
      this.waits.delete(wait);
    }
  }

  async revsDiff(revs: ReadonlyMap<string, readonly string[]>): Promise<Map<string, RevsDiff>> {
    const body = new JsonObject(
      [...revs.keys()],
      [...revs.values()].map((list) => [...list]),
    );
    const reply = await this.request('POST', '/_revs_diff', { body });
    const diff = this.json(reply, 'POST /db/_revs_diff') as Record<
      string,
      { missing?: string[]; possible_ancestors?: string[] }
    >;
    return new Map(
      Object.entries(diff).map(([id, found]) => [
        id,
        { missing: found.missing ?? [], possibleAncestors: found.possible_ancestors ?? [] },
      ]),
    );
  }

  async fetch(wanted: readonly Wanted[]): Promise<JsonValue[]> {
    if (this.bulkGet) {
      const entries = bulkGetEntries(wanted);
      const query = new URLSearchParams({ revs: 'true', attachments: 'true', latest: 'true' });
      const reply = await this.request('POST', '/_bulk_get', { query, body: new JsonObject(['docs'], [entries]) });
      // Servers before `_bulk_get` answer its path as a document or a method they lack.
      if (reply.status === 404 || reply.status === 405 || reply.status === 400 || reply.status === 501) {
        this.bulkGet = false;
      } else {
        const docs: JsonValue[] = [];
        for (const result of this.bulkGetResults(reply, 'POST /db/_bulk_get')) {
          const items = result instanceof JsonObject ? result.get('docs') : undefined;
          for (const item of Array.isArray(items) ? items : []) {
            const ok = item instanceof JsonObject ? item.get('ok') : undefined;
            if (ok instanceof JsonObject) docs.push(ok);
          }
        }
        return docs;
      }
    }
    const docs: JsonValue[] = [];
    for (const { id, revs, attsSince } of wanted) {
      const query = new URLSearchParams({
        revs: 'true',
        attachments: 'true',
        latest: 'true',
        open_revs: JSON.stringify(revs),
      });
      if (attsSince.length > 0) query.set('atts_since', JSON.stringify(attsSince));
      const reply = await this.request('GET', `/${encodeURIComponent(id)}`, {
        query,
        accept: 'application/json',
      });
      if (reply.status === 404) continue;
      const list = this.openRevsList(reply, 'GET /db/doc?open_revs', id);
      for (const item of list) {
        const ok = item instanceof JsonObject ? item.get('ok') : undefined;
        if (ok instanceof JsonObject) docs.push(ok);
      }
    }
    return docs;
  }

  /**
   * The wanted revisions with attachment bytes beside the JSON: documents in one `_bulk_get`
   * without attachment bodies; those with attachments then again with them, in one `_bulk_get`
   * answered as `multipart/mixed` (a peer without `_bulk_get`: one by one, as CouchDB's replicator
   * reads them, `GET doc?revs=true&open_revs=[rev]&latest=true&attachments=true&atts_since=…` with
   * `Accept: multipart/mixed`). Their bytes come off the multipart parts in the encoding the peer
   * stores them in (gzip ones as gzip), not as base64 inside JSON; a peer that answers JSON
   * anyway gives the data inline.
   */
  async fetchWithParts(wanted: readonly Wanted[]): Promise<FetchedDoc[]> {
    // The session prepares two batches at once: this one asks as the one before decided.
    const before = this.decided;
    const wait = !this.decidedOnce || this.attachmentsSeen;
    let done = noop;
    this.decided = new Promise<void>((resolve) => {
      done = resolve;
    });
    const decide = (withParts: number, total: number) => {
      this.attachmentsLikely = mostHaveParts(withParts, total);
      this.attachmentsSeen ||= withParts > 0;
      this.decidedOnce = true;
      done();
    };
    try {
      if (wait) await before;
      return await this.fetchDeciding(wanted, decide);
    } finally {
      done();
    }
  }

  /** `fetchWithParts` itself: `decide` is told how many documents had attachment bytes, of how many. */
  private async fetchDeciding(
    wanted: readonly Wanted[],
    decide: (withParts: number, total: number) => void,
  ): Promise<FetchedDoc[]> {
    if (this.bulkGet && this.attachmentsLikely) {
      // Most documents of the last batch had attachments: this one is asked for with them at
      // once (documents without come back as JSON parts), not first without and then again.
      const fetched = await this.bulkGetWithParts(wanted);
      decide(fetched.filter((doc) => doc.parts.size > 0).length, fetched.length);
      return fetched;
    }
    const fetched: FetchedDoc[] = [];
    let withAttachments: Wanted[] = [...wanted];
    if (this.bulkGet) {
      const entries = wanted.flatMap(({ id, revs }) => revs.map((rev) => new JsonObject(['id', 'rev'], [id, rev])));
      const query = new URLSearchParams({ revs: 'true', attachments: 'false', latest: 'true' });
      const reply = await this.request('POST', '/_bulk_get', { query, body: new JsonObject(['docs'], [entries]) });
      if (reply.status === 404 || reply.status === 405 || reply.status === 400 || reply.status === 501) {
        this.bulkGet = false;
      } else {
        withAttachments = [];
        const attsSinceOf = new Map(wanted.map((entry) => [entry.id, entry.attsSince]));
        for (const result of this.bulkGetResults(reply, 'POST /db/_bulk_get')) {
          const items = result instanceof JsonObject ? result.get('docs') : undefined;
          for (const item of Array.isArray(items) ? items : []) {
            const doc = item instanceof JsonObject ? item.get('ok') : undefined;
            if (!(doc instanceof JsonObject)) continue;
            const atts = doc.get('_attachments');
            if (atts instanceof JsonObject && atts.size > 0) {
              const id = idOf(doc);
              withAttachments.push({ id, revs: [String(doc.get('_rev'))], attsSince: attsSinceOf.get(id) ?? [] });
            } else {
              fetched.push({ doc, parts: new Map() });
            }
          }
        }
      }
    }
    if (this.bulkGet) decide(withAttachments.length, withAttachments.length + fetched.length);
    if (withAttachments.length === 0) return fetched;
    if (this.bulkGet) {
      fetched.push(...(await this.bulkGetWithParts(withAttachments)));
      return fetched;
    }
    let next = 0;
    const worker = async () => {
      while (next < withAttachments.length) fetched.push(...(await this.openRevsWithParts(withAttachments[next++]!)));
    };
    await Promise.all(Array.from({ length: Math.min(ATTACHMENT_FETCHES, withAttachments.length) }, worker));
    return fetched;
  }

  /** Documents with attachments in one `_bulk_get` answered as `multipart/mixed` (JSON with inline data from a peer that cannot). */
  private async bulkGetWithParts(wanted: readonly Wanted[]): Promise<FetchedDoc[]> {
    const entries = bulkGetEntries(wanted);
    const query = new URLSearchParams({ revs: 'true', attachments: 'true', latest: 'true' });
    const what = 'POST /db/_bulk_get';
    const reply = await this.request('POST', '/_bulk_get', {
      query,
      body: new JsonObject(['docs'], [entries]),
      accept: 'multipart/mixed',
      binary: true,
    });
    const boundary = multipartBoundary(reply.contentType, 'multipart/mixed');
    if (boundary === undefined) {
      const docs: FetchedDoc[] = [];
      for (const result of this.bulkGetResults(reply, what)) {
        const items = result instanceof JsonObject ? result.get('docs') : undefined;
        for (const item of Array.isArray(items) ? items : []) {
          const ok = item instanceof JsonObject ? item.get('ok') : undefined;
          if (ok instanceof JsonObject) docs.push({ doc: ok, parts: new Map() });
        }
      }
      return docs;
    }
    return this.mixedDocs(reply, boundary, what);
  }

  /** The documents of a `multipart/mixed` answer; a body that does not parse fails the batch (502). */
  private async mixedDocs(
    reply: { status: number; text: string; bytes?: Buffer },
    boundary: string,
    what: string,
  ): Promise<FetchedDoc[]> {
    this.text(reply, what); // an error status throws here
    try {
      return readMixedDocs(reply.bytes ?? Buffer.alloc(0), boundary, (id) => this.refuseUnreadable(id));
    } catch (error) {
      const reason = error instanceof CouchError ? error.reason : String(error);
      throw new CouchError(
        'replication_failed',
        `${what} on ${this.shown} answered a bad multipart body: ${reason}`,
        502,
      );
    }
  }

  /** One document's revisions with their attachments as multipart parts (`open_revs`, `multipart/mixed`). */
  private async openRevsWithParts({ id, revs, attsSince }: Wanted): Promise<FetchedDoc[]> {
    const query = new URLSearchParams({
      revs: 'true',
      open_revs: JSON.stringify(revs),
      latest: 'true',
      attachments: 'true',
    });
    if (attsSince.length > 0) query.set('atts_since', JSON.stringify(attsSince));
    const reply = await this.request('GET', `/${docPath(id)}`, { query, accept: 'multipart/mixed', binary: true });
    if (reply.status === 404) return [];
    const what = 'GET /db/doc?open_revs';
    const boundary = multipartBoundary(reply.contentType, 'multipart/mixed');
    if (boundary === undefined) {
      // JSON after all: the attachment data inline.
      return this.openRevsList(reply, what, id).flatMap((item) => {
        const ok = item instanceof JsonObject ? item.get('ok') : undefined;
        return ok instanceof JsonObject ? [{ doc: ok, parts: new Map<string, Buffer>() }] : [];
      });
    }
    return this.mixedDocs(reply, boundary, what);
  }

  async write(docs: readonly JsonValue[]): Promise<WriteFailure[]> {
    return this.bulkDocs(docs.map((doc) => ({ id: idOf(doc), json: stringifyJson(doc) })));
  }

  /**
   * Revisions of a database of this server as stored (`fetchStored`): each document's text is
   * its stored body with `_id`, `_rev`, `_deleted` and `_revisions` spliced in, as `GET` renders
   * it, so the bodies are never parsed to be sent.
   */
  async writeStored(revisions: readonly StoredRevision[]): Promise<WriteFailure[]> {
    return this.bulkDocs(
      revisions.map(({ id, rev, deleted, revisions: history, body }) => ({
        id,
        json: renderDoc(id, rev, body, deleted, [['_revisions', history]]),
      })),
    );
  }

  /**
   * `_bulk_docs` with `new_edits=false` of documents given as their JSON text or bytes; answers
   * those refused.
   */
  private async bulkDocs(docs: readonly BulkDoc[]): Promise<WriteFailure[]> {
    // One buffer: the texts between documents given as bytes are encoded once each, and the
    // bytes (base64 attachment data) are copied as they are, never part of a string.
    const chunks: Buffer[] = [];
    let text = '{"docs":[';
    for (let i = 0; i < docs.length; i++) {
      const doc = docs[i]!;
      if (i > 0) text += ',';
      if (doc.json !== undefined) text += doc.json;
      else {
        chunks.push(Buffer.from(text), ...doc.bytes);
        text = '';
      }
    }
    text += '],"new_edits":false}';
    chunks.push(Buffer.from(text));
    const reply = await this.request('POST', '/_bulk_docs', {
      raw: { contentType: 'application/json', bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) },
    });
    if (reply.status === 413 && docs.length > 1) {
      // Too large for the peer: halves, down to single documents (CouchDB's replicator splits so).
      const half = Math.ceil(docs.length / 2);
      return [...(await this.bulkDocs(docs.slice(0, half))), ...(await this.bulkDocs(docs.slice(half)))];
    }
    if (reply.status === 401 || reply.status === 403 || reply.status === 413 || reply.status === 415) {
      // The whole request refused: each of its documents is a failure of that kind.
      const { error, reason } = errorOf(reply.text, reply.status);
      return docs.map(({ id }) => ({ id, error, reason, status: reply.status }));
    }
    const rows = this.json(reply, 'POST /db/_bulk_docs') as {
      id: string;
      rev?: string;
      error?: string;
      reason?: string;
    }[];
    const failures: WriteFailure[] = [];
    for (const row of Array.isArray(rows) ? rows : []) {
      if (row.error === undefined) continue;
      failures.push({
        id: row.id,
        ...(row.rev === undefined ? {} : { rev: row.rev }),
        error: row.error,
        reason: String(row.reason ?? ''),
        status: statusOfError(row.error),
      });
    }
    return failures;
  }

  /**
   * Documents whose attachments to send are small and stored plain, written together: one
   * `_bulk_docs` with `new_edits=false` and the bytes inline as base64 (what every CouchDB takes),
   * instead of a multipart `PUT` each. The others are left for `writeWithParts`: a large
   * attachment is not held as base64 in a batch, and a gzip-stored one travels as stored only in
   * a part of its own.
   */
  async writeInline(fetched: readonly FetchedDoc[]): Promise<{ failures: WriteFailure[]; rest: FetchedDoc[] }> {
    const inline: BulkDoc[] = [];
    const rest: FetchedDoc[] = [];
    for (const one of fetched) {
      const bytes = inlined(one);
      if (bytes === undefined) rest.push(one);
      else inline.push({ id: idOf(one.doc), bytes });
    }
    return { failures: inline.length === 0 ? [] : await this.bulkDocs(inline), rest };
  }

  /**
   * One document with its attachment bytes as CouchDB's replicator sends it: a `multipart/related`
   * `PUT /db/id?new_edits=false`, the JSON first, then one part per `follows` attachment in the
   * order of `_attachments`, gzip-stored ones as their gzip stream (`encoding` in the JSON).
   */
  async writeWithParts(fetched: FetchedDoc): Promise<WriteFailure[]> {
    const { doc, parts } = (await this.takesGzipParts()) ? fetched : decodedParts(fetched);
    const id = idOf(doc);
    const boundary = randomUUID().replaceAll('-', '');
    const chunks: Buffer[] = [
      Buffer.from(`--${boundary}\r\nContent-Type: application/json\r\n\r\n${stringifyJson(doc)}`),
    ];
    const atts = doc instanceof JsonObject ? doc.get('_attachments') : undefined;
    for (const [name, att] of atts instanceof JsonObject ? atts.entries() : []) {
      if (!(att instanceof JsonObject) || att.get('follows') !== true) continue;
      const bytes = parts.get(name) ?? Buffer.alloc(0);
      let head = `\r\n--${boundary}\r\nContent-Disposition: attachment; filename=${JSON.stringify(name)}\r\n`;
      head += `Content-Length: ${bytes.length}\r\n`;
      if (att.get('encoding') === 'gzip') head += 'Content-Encoding: gzip\r\n';
      chunks.push(Buffer.from(`${head}\r\n`), bytes);
    }
    chunks.push(Buffer.from(`\r\n--${boundary}--`));
    const reply = await this.request('PUT', `/${docPath(id)}`, {
      query: new URLSearchParams({ new_edits: 'false' }),
      raw: { contentType: `multipart/related; boundary="${boundary}"`, bytes: Buffer.concat(chunks) },
    });
    if (reply.status === 201 || reply.status === 202) return [];
    const { error, reason } = errorOf(reply.text, reply.status);
    const rev = doc instanceof JsonObject ? doc.get('_rev') : undefined;
    return [{ id, ...(typeof rev === 'string' ? { rev } : {}), error, reason, status: reply.status }];
  }

  /**
   * Whether the peer stores a part sent with `encoding: gzip` as the gzip stream it is: CouchDB
   * and Divan (their welcome says `"couchdb": "Welcome"`) do; PouchDB Server would keep the
   * compressed bytes as the content, so it gets them decoded.
   */
  private takesGzipParts(): Promise<boolean> {
    this.gzipParts ??= (async () => {
      const root = this.spec.url.slice(0, this.spec.url.lastIndexOf('/') + 1);
      const reply = await this.request('GET', '', { base: root });
      try {
        return reply.status === 200 && (JSON.parse(reply.text) as { couchdb?: unknown }).couchdb === 'Welcome';
      } catch {
        return false;
      }
    })();
    return this.gzipParts;
  }

  async getLocal(id: string): Promise<Record<string, unknown> | undefined> {
    const reply = await this.request('GET', `/${localPath(id)}`, {});
    if (reply.status === 404) return undefined;
    return this.json(reply, 'GET /db/_local/id') as Record<string, unknown>;
  }

  async putLocal(id: string, body: Record<string, unknown>): Promise<string> {
    const named = { ...body, ...(await this.checkpointAccess()) };
    const reply = await this.request('PUT', `/${localPath(id)}`, { body: parseJson(JSON.stringify(named)) });
    return String((this.json(reply, 'PUT /db/_local/id') as { rev?: unknown }).rev ?? '');
  }

  /**
   * What a checkpoint carries to an access-enabled peer (`props.access` in its `GET /db`): an
   * `_access` naming the user the peer knows this job as (its `GET /_session`), as CouchDB's
   * per-doc-access replicator writes it, so the peer's rules for `_local` documents admit the
   * checkpoint without its autofill option, and only that user reads it back.
   */
  private checkpointAccess(): Promise<{ _access?: string[] }> {
    this.checkpointNames ??= (async () => {
      const info = this.json(await this.request('GET', '', {}), 'GET /db') as { props?: { access?: unknown } };
      if (info.props?.access !== true) return {};
      const root = this.spec.url.slice(0, this.spec.url.lastIndexOf('/') + 1);
      const session = this.json(await this.request('GET', '_session', { base: root }), 'GET /_session') as {
        userCtx?: { name?: unknown };
      };
      const name = session.userCtx?.name;
      return typeof name === 'string' ? { _access: [name] } : {};
    })().catch((error: unknown) => {
      // Asked again at the next checkpoint: a peer that failed once may answer then.
      this.checkpointNames = undefined;
      throw error;
    });
    return this.checkpointNames;
  }

  async filterSource(name: string): Promise<string> {
    const [ddoc, filter] = name.split('/');
    const reply = await this.request('GET', `/_design/${encodeURIComponent(ddoc ?? '')}`, {});
    if (reply.status === 404) throw new CouchError('not_found', `The filter ${name} does not exist in ${this.shown}.`);
    const doc = this.json(reply, 'GET /db/_design/ddoc') as { filters?: Record<string, unknown> };
    const source = doc.filters?.[filter ?? ''];
    if (typeof source !== 'string') {
      throw new CouchError('not_found', `The filter ${name} does not exist in ${this.shown}.`);
    }
    return source;
  }

  close(): void {
    for (const wait of this.waits) wait.abort();
  }

  private async request(
    method: string,
    path: string,
    options: {
      query?: URLSearchParams;
      body?: JsonValue;
      signal?: AbortSignal;
      accept?: string;
      timeoutMs?: number;
      /** A body that is not JSON (a multipart document). */
      raw?: { contentType: string; bytes: Buffer };
      /** Another URL than the database's (its server's root). */
      base?: string;
      /** Keep the answer's bytes (a multipart body); `text` is then empty unless the status is an error. */
      binary?: boolean;
    },
  ): Promise<{ status: number; text: string; contentType: string; bytes?: Buffer }> {
    const headers: Record<string, string> = { accept: options.accept ?? 'application/json', ...this.spec.headers };
    if (this.spec.basic !== undefined) {
      const { username, password } = this.spec.basic;
      headers.authorization = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
    }
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.raw !== undefined) headers['content-type'] = options.raw.contentType;
    const query = options.query === undefined || options.query.size === 0 ? '' : `?${options.query}`;
    const text = options.raw === undefined && options.body !== undefined ? stringifyJson(options.body) : undefined;
    const body = options.raw?.bytes ?? (text === undefined ? undefined : Buffer.from(text));
    const url = `${options.base ?? this.spec.url}${path}${query}`;
    // Every request the replicator makes is idempotent (`new_edits=false` writes, reads), so it may be sent again.
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= this.retries;
      try {
        this.meter?.('requests');
        const answer = await httpRequest({
          method,
          url,
          headers,
          body,
          timeoutMs: options.timeoutMs ?? this.timeoutMs,
          signal: options.signal,
          tls: this.tls,
        });
        // CouchDB's rule (couch_replicator_httpc): a 2xx or 4xx is an answer, any other a failure.
        const kind = Math.floor(answer.status / 100);
        this.meter?.(kind === 2 || kind === 4 ? 'responses.success' : 'responses.failure');
        const { status, contentType } = answer;
        const binary = options.binary === true && kind === 2 && contentType.toLowerCase().startsWith('multipart/');
        const reply = binary
          ? { status, text: '', contentType, bytes: answer.body }
          : { status, text: bodyText(answer.body), contentType };
        if (last || !RETRIED_STATUSES.has(reply.status)) return reply;
      } catch (error) {
        if (options.signal?.aborted) throw error;
        if (last) {
          // The cause names the host and port only: never the credentials (they are not in the URL).
          const cause = error instanceof Error ? error.message : '';
          throw new CouchError('replication_failed', `${method} ${this.shown} failed: ${cause}`, 502);
        }
      }
      await pause(Math.min(FIRST_RETRY_MS * 2 ** attempt, MAX_RETRY_MS), options.signal);
      if (options.signal?.aborted) throw options.signal.reason;
    }
  }

  private text(reply: { status: number; text: string }, what: string): string {
    if (reply.status >= 200 && reply.status < 300) return reply.text;
    const { error, reason } = errorOf(reply.text, reply.status);
    throw new CouchError(error, `${what} on ${this.shown}: ${reason}`, reply.status);
  }

  private json(reply: { status: number; text: string }, what: string): unknown {
    const text = this.text(reply, what);
    try {
      return JSON.parse(text);
    } catch {
      throw new CouchError('replication_failed', `${what} on ${this.shown} did not answer JSON.`, 502);
    }
  }

  /**
   * Takes the documents the peer sent since the last call that could not be read: nested deeper
   * than the JSON limit (json/parse.ts MAX_DEPTH). Each is refused alone, by id; the rest of its
   * batch replicates.
   */
  takeUnreadable(): WriteFailure[] {
    const taken = this.unreadable;
    this.unreadable = [];
    return taken;
  }

  private refuseUnreadable(id: string): void {
    this.unreadable.push({ id, error: 'bad_request', reason: tooDeep().reason, status: 400 });
  }

  /**
   * The `results` of a `_bulk_get` answer; an entry too deeply nested to read is set apart
   * (json/parse.ts `parseJsonIsolatingDeep`) and its document refused alone, by the `id` the
   * entry starts with.
   */
  private bulkGetResults(reply: { status: number; text: string }, what: string): JsonValue[] {
    const parsed = this.documents(reply, what);
    const results = parsed.page.get('results');
    const out: JsonValue[] = [];
    for (const result of Array.isArray(results) ? results : []) {
      const text = result instanceof JsonObject ? parsed.tooDeep.get(result) : undefined;
      if (text === undefined) out.push(result);
      else this.refuseUnreadable(String(parseJsonMembers(text, ID_MEMBER).get('id') ?? ''));
    }
    return out;
  }

  /** One document's `open_revs` answer (JSON): when too deeply nested to read, the document is refused alone. */
  private openRevsList(reply: { status: number; text: string }, what: string, id: string): JsonValue[] {
    const text = this.text(reply, what);
    try {
      const list = parseJson(text);
      return Array.isArray(list) ? list : [];
    } catch (error) {
      if (!(error instanceof JsonTooDeepError)) throw error;
      this.refuseUnreadable(id);
      return [];
    }
  }

  /**
   * An answer that carries documents in its `results`, parsed as Divan keeps JSON (exact numbers,
   * member order); an entry nested too deeply to read is set apart in `tooDeep` with its text
   * (json/parse.ts `parseJsonIsolatingDeep`), so that its document alone is refused.
   */
  private documents(
    reply: { status: number; text: string },
    what: string,
  ): { page: JsonObject; tooDeep: Map<JsonObject, string> } {
    const { value, tooDeep } = parseJsonIsolatingDeep(this.text(reply, what), 'results');
    if (!(value instanceof JsonObject)) {
      throw new CouchError('replication_failed', `${what} on ${this.shown} did not answer an object.`, 502);
    }
    return { page: value, tooDeep };
  }
}

/** Attachment bytes a document sends inline (base64 in `_bulk_docs`) at most, all its attachments together. */
const INLINE_ATTACHMENT_BYTES = 64 * 1024;

/** One document of a `_bulk_docs` body: its JSON text, or its JSON as bytes in pieces. */
type BulkDoc = { id: string; json: string; bytes?: undefined } | { id: string; json?: undefined; bytes: Buffer[] };

/**
 * The JSON of the document with its `follows` attachments' bytes inline (`data`, base64), as
 * pieces of bytes, or undefined when they are too many bytes or one is stored gzip (inline data
 * is taken as the content itself). The base64 goes from the bytes into the body without being a
 * JSON string of its own: stringified, the data was scanned for escapes and encoded once more.
 */
function inlined({ doc, parts }: FetchedDoc): Buffer[] | undefined {
  const atts = doc instanceof JsonObject ? doc.get('_attachments') : undefined;
  if (!(doc instanceof JsonObject) || !(atts instanceof JsonObject)) return undefined;
  let bytes = 0;
  for (const [name, att] of atts.entries()) {
    if (!(att instanceof JsonObject) || att.get('follows') !== true) continue;
    const part = parts.get(name);
    if (part === undefined || att.has('encoding')) return undefined;
    bytes += part.length;
    if (bytes > INLINE_ATTACHMENT_BYTES) return undefined;
  }
  const pieces: Buffer[] = [];
  // `_attachments` goes last: the members before it are the document's own, as stringified.
  const others = stringifyJson(doc.without(ATTACHMENTS));
  let text = `${others.length === 2 ? '{' : `${others.slice(0, -1)},`}"_attachments":{`;
  let first = true;
  for (const [name, att] of atts.entries()) {
    text += `${first ? '' : ','}${JSON.stringify(name)}:`;
    first = false;
    const part = parts.get(name);
    if (!(att instanceof JsonObject) || att.get('follows') !== true || part === undefined) {
      text += stringifyJson(att);
      continue;
    }
    const meta = stringifyJson(att.without(FOLLOWS));
    text += `${meta.length === 2 ? '{' : `${meta.slice(0, -1)},`}"data":"`;
    pieces.push(Buffer.from(text), Buffer.from(part.toString('base64'), 'latin1'));
    text = '"}';
  }
  pieces.push(Buffer.from(`${text}}}`));
  return pieces;
}

const FOLLOWS: ReadonlySet<string> = new Set(['follows']);
const ATTACHMENTS: ReadonlySet<string> = new Set(['_attachments']);

/** Whether `withParts` of `total` fetched documents is most of them (none of none is not). */
function mostHaveParts(withParts: number, total: number): boolean {
  return total > 0 && withParts * 2 >= total;
}

/** The query of a replication's `_changes` read: every leaf, from `since`, a longpoll when asked to wait. */
function changesQuery(request: ChangesRequest): URLSearchParams {
  const query = new URLSearchParams({ style: 'all_docs', limit: String(request.limit) });
  if (request.since !== undefined && request.since !== 0) {
    query.set('since', typeof request.since === 'string' ? request.since : JSON.stringify(request.since));
  }
  if (request.waitMs !== undefined) {
    query.set('feed', 'longpoll');
    query.set('timeout', String(request.waitMs));
  }
  return query;
}

function errorOf(text: string, status: number): { error: string; reason: string } {
  try {
    const body = JSON.parse(text) as { error?: unknown; reason?: unknown };
    return { error: String(body.error ?? 'unknown_error'), reason: String(body.reason ?? '') };
  } catch {
    return { error: status === 413 ? 'too_large' : 'unknown_error', reason: `HTTP ${status}` };
  }
}

function idOf(doc: JsonValue): string {
  return doc instanceof JsonObject ? String(doc.get('_id')) : '';
}

/** The document with its gzip-stored attachments decoded (`encoding` dropped, `length` the bytes sent). */
function decodedParts({ doc, parts }: FetchedDoc): FetchedDoc {
  const atts = doc instanceof JsonObject ? doc.get('_attachments') : undefined;
  if (!(atts instanceof JsonObject)) return { doc, parts };
  const decoded = new Map(parts);
  for (const [name, att] of atts.entries()) {
    const bytes = parts.get(name);
    if (!(att instanceof JsonObject) || att.get('encoding') !== 'gzip' || bytes === undefined) continue;
    const plain = gunzipSync(bytes);
    decoded.set(name, plain);
    att.delete('encoding');
    att.delete('encoded_length');
    att.set('length', plain.length);
  }
  return { doc, parts: decoded };
}

/** The boundary of a content type of the given multipart kind, or undefined (another type: JSON). */
function multipartBoundary(contentType: string, kind: string): string | undefined {
  return contentType.toLowerCase().startsWith(kind) ? boundaryOf(contentType) : undefined;
}

/**
 * The documents of an `open_revs` or `_bulk_get` answer in `multipart/mixed`: a part is a document's JSON
 * (`application/json`), a missing revision (`error="true"`, left out), or a `multipart/related`
 * document whose JSON comes first and each `follows` attachment after it, named by its
 * `Content-Disposition` filename (else taken in the order of `_attachments`).
 */
function readMixedDocs(
  bytes: Buffer,
  boundary: string,
  /** Called with the id of a document too deeply nested to read (left out; the others are read). */
  refuse: (id: string) => void,
): FetchedDoc[] {
  const docs: FetchedDoc[] = [];
  // The answer is held whole: its parts are views of it, attachment bytes are never copied.
  for (const { headers, body } of splitMultipart(bytes, boundary)) {
    const type = headers.get('content-type') ?? 'application/json';
    const inner = type.toLowerCase().startsWith('multipart/related') ? boundaryOf(type) : undefined;
    if (inner === undefined) {
      if (/error\s*=\s*"?true/i.test(type)) continue;
      const doc = parsedOrRefused(body.toString('utf8'), refuse);
      if (doc instanceof JsonObject && typeof doc.get('_id') === 'string') docs.push({ doc, parts: new Map() });
      continue;
    }
    const [json, ...attachments] = splitMultipart(body, inner);
    if (json === undefined) throw new CouchError('bad_request', 'a document part without its JSON');
    const doc = parsedOrRefused(json.body.toString('utf8'), refuse);
    if (doc === undefined) continue;
    if (!(doc instanceof JsonObject)) throw new CouchError('bad_request', 'a document part that is not an object');
    const atts = doc.get('_attachments');
    const following =
      atts instanceof JsonObject
        ? [...atts.entries()].filter(([, att]) => att instanceof JsonObject && att.get('follows') === true)
        : [];
    const parts = new Map<string, Buffer>();
    attachments.forEach((part, k) => {
      const named = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(
        part.headers.get('content-disposition') ?? '',
      );
      const name =
        named === null
          ? following[k]?.[0]
          : named[1] !== undefined
            ? (JSON.parse(`"${named[1]}"`) as string)
            : named[2];
      if (name !== undefined) parts.set(name, part.body);
    });
    for (const [name] of following) {
      if (!parts.has(name)) throw new CouchError('bad_request', `the attachment ${JSON.stringify(name)} has no part`);
    }
    docs.push({ doc, parts });
  }
  return docs;
}

/** A document part's JSON, or undefined when it is nested too deeply to read (then refused by its `_id`). */
function parsedOrRefused(text: string, refuse: (id: string) => void): JsonValue | undefined {
  try {
    return parseJson(text);
  } catch (error) {
    if (!(error instanceof JsonTooDeepError)) throw error;
    refuse(String(parseJsonMembers(text, DOC_ID_MEMBER).get('_id') ?? ''));
    return undefined;
  }
}

/** A document's path: a design document's `/` kept, as CouchDB's replicator writes it. */
function docPath(id: string): string {
  if (id.startsWith('_design/')) return `_design/${encodeURIComponent(id.slice('_design/'.length))}`;
  return encodeURIComponent(id);
}

/** `_local/<id>` with the id's own characters escaped (a replication id may hold `+`). */
function localPath(id: string): string {
  return `_local/${encodeURIComponent(id.slice('_local/'.length))}`;
}

function noop(): void {}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    timer.unref();
    signal?.addEventListener('abort', done);
  });
}

/** The `docs` of a `_bulk_get` asking for these revisions (with `atts_since` where attachments are known). */
function bulkGetEntries(wanted: readonly Wanted[]): JsonObject[] {
  return wanted.flatMap(({ id, revs, attsSince }) =>
    revs.map((rev) =>
      attsSince.length === 0
        ? new JsonObject(['id', 'rev'], [id, rev])
        : new JsonObject(['id', 'rev', 'atts_since'], [id, rev, [...attsSince]]),
    ),
  );
}
