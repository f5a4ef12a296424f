/**
 * One side of a replication, behind the same interface whether it is this server's own database
 * (./local-endpoint.ts, in process) or a CouchDB-protocol server (./remote-endpoint.ts, HTTP).
 * A replication session (./session.ts) speaks only this: the replication protocol's requests, each one call.
 * Documents travel as Divan's JSON values (exact numbers, member order), so a document comes
 * out of the target as it went into the source.
 */
import type { JsonValue } from '../json/index.js';

/** A sequence as the source gives it: an integer (Divan), a string (CouchDB 2+), any JSON. */
export type Seq = unknown;

export interface ChangeEntry {
  seq: Seq;
  id: string;
  /** Every leaf (`style=all_docs`). */
  changes: { rev: string }[];
  deleted?: boolean;
}

export interface ChangesPage {
  results: ChangeEntry[];
  lastSeq: Seq;
}

/** Which changes a replication reads (CouchDB's `doc_ids`, `selector`, `filter` + `query_params`). */
export type ChangesFilter =
  | { kind: 'doc_ids'; ids: readonly string[] }
  | { kind: 'selector'; selector: Record<string, unknown> }
  | { kind: 'design'; name: string; queryParams: Record<string, string> };

export interface ChangesRequest {
  since: Seq;
  limit: number;
  filter?: ChangesFilter;
  /** Wait up to this long for a change when there is none (a continuous job's longpoll). */
  waitMs?: number;
  /** Ends a wait early (the job was cancelled). */
  signal?: AbortSignal;
}

export interface RevsDiff {
  missing: string[];
  /** The target's leaves that may be ancestors of the missing revs: their attachments need not travel. */
  possibleAncestors: string[];
}

/** Revisions of one document to fetch, and the ancestors the target has (`atts_since`). */
export interface Wanted {
  id: string;
  revs: readonly string[];
  attsSince: readonly string[];
}

export interface EndpointInfo {
  /** Changes when the database is created again: a checkpoint is only good for one instance. */
  instanceStartTime: string;
  updateSeq: Seq;
}

/**
 * A fetched revision whose attachments travel as their stored bytes beside the JSON: each
 * attachment with data is a `follows: true` entry (with `encoding`/`encoded_length` when stored
 * gzip-compressed), its bytes in `parts` by name, in the stored encoding. This is how CouchDB's
 * replicator moves attachments (multipart, compressed ones as stored): no base64, no second
 * compression.
 */
export interface FetchedDoc {
  doc: JsonValue;
  parts: ReadonlyMap<string, Buffer>;
}

/**
 * A revision as a database of this server stores it, for another database of this server: its
 * body is the stored text (canonical JSON without special members, no attachments), so it goes
 * from one store to the other without being rendered as a document and parsed back.
 */
export interface StoredRevision {
  id: string;
  rev: string;
  deleted: boolean;
  /** `_revisions`: the revision's generation and the ids back to its root, newest first. */
  revisions: { start: number; ids: string[] };
  body: string;
}

/** What `fetchStored` read as stored, and the revisions left to `fetch`/`fetchWithParts` (attachments, filtered readers). */
export interface StoredFetch {
  stored: StoredRevision[];
  others: Wanted[];
}

/** A document the target did not take, and why (`status` decides skip or fail: CouchDB 3.3's policy). */
export interface WriteFailure {
  id: string;
  rev?: string;
  error: string;
  reason: string;
  status: number;
}

export interface Endpoint {
  /** How the endpoint is shown in answers, tasks and log lines: never with credentials. */
  readonly shown: string;
  info(): Promise<EndpointInfo>;
  changes(request: ChangesRequest): Promise<ChangesPage>;
  /** For each id, the revs of those given that the endpoint lacks (ids lacking none left out). */
  revsDiff(revs: ReadonlyMap<string, readonly string[]>): Promise<Map<string, RevsDiff>>;
  /**
   * The named revisions with `_revisions` and attachment data inline (`revs=true&attachments=true`),
   * but stubs for attachments the target already has (`atts_since` its possible ancestors);
   * a revision the endpoint no longer has is left out.
   */
  fetch(wanted: readonly Wanted[]): Promise<JsonValue[]>;
  /** Writes with `new_edits=false`; answers the documents it refused. */
  write(docs: readonly JsonValue[]): Promise<WriteFailure[]>;
  /**
   * Like `fetch`, attachment data as stored bytes beside each document (endpoints that can read
   * them so: a local database).
   */
  fetchWithParts?(wanted: readonly Wanted[]): Promise<FetchedDoc[]>;
  /**
   * Writes one fetched document with its attachment bytes (`new_edits=false`; over HTTP a
   * multipart `PUT`); answers its refusal, if any.
   */
  writeWithParts?(fetched: FetchedDoc): Promise<WriteFailure[]>;
  /**
   * Writes several fetched documents with their attachment bytes at once (`new_edits=false`, every
   * write rule for each; a database of this server: one transaction); answers those it refused.
   */
  writeAllWithParts?(fetched: readonly FetchedDoc[]): Promise<WriteFailure[]>;
  /**
   * Writes those of `fetched` it can send together with their bytes inline (a remote target:
   * small attachments stored plain, in one `_bulk_docs`); answers their failures and the rest,
   * left for `writeWithParts`.
   */
  writeInline?(fetched: readonly FetchedDoc[]): Promise<{ failures: WriteFailure[]; rest: FetchedDoc[] }>;
  /**
   * The documents read since the last call that could not be handed over (a remote peer's
   * document nested deeper than the JSON limit): each is a failure of its own, the job goes on.
   */
  takeUnreadable?(): WriteFailure[];
  /**
   * Like `fetch`, the revisions as stored (a database of this server); those it cannot give so
   * are handed back in `others`. Used only when the target has `writeStored`.
   */
  fetchStored?(wanted: readonly Wanted[]): Promise<StoredFetch>;
  /** Writes revisions read by `fetchStored` (`new_edits=false`, every write rule); answers those it refused. */
  writeStored?(revisions: readonly StoredRevision[]): Promise<WriteFailure[]>;
  /** A `_local` document's body (plain JSON), or undefined. */
  getLocal(id: string): Promise<Record<string, unknown> | undefined>;
  /** Writes a `_local` document over the one read (its `_rev` in `body`); answers the new rev. */
  putLocal(id: string, body: Record<string, unknown>): Promise<string>;
  /** The source of a design document's filter function (a filtered replication's id hashes it). */
  filterSource(name: string): Promise<string>;
  /** Releases what the endpoint holds (a filter's sandbox, waiting requests). */
  close(): void;
}

/** The HTTP status CouchDB gives each document-level error name. */
export function statusOfError(error: string): number {
  switch (error) {
    case 'unauthorized':
      return 401;
    case 'forbidden':
      return 403;
    case 'not_found':
      return 404;
    case 'conflict':
      return 409;
    case 'attachment_too_large':
    case 'document_too_large':
    case 'too_large':
      return 413;
    case 'bad_content_type':
    case 'unsupported_media_type':
      return 415;
    case 'bad_request':
    case 'doc_validation':
    case 'illegal_docid':
      return 400;
    default:
      return 500;
  }
}
