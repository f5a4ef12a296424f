/**
 * What a reader of a replication document (`_replicator` and any `…/_replicator` database) is
 * shown, as CouchDB 3.5's replicator database reads them (couch_replicator_docs:after_doc_read):
 * its owner and the database's admins read it whole; anyone else reads it without credentials —
 * the user info of a `source`/`target` URL is removed, and an endpoint object loses its
 * `headers` and `auth`. The document is then shown under a new rev id, computed as CouchDB's
 * (couch_db:new_revid of the stripped body on the revision's parent), so that the stripped body
 * never passes for the stored revision (an ETag, a replication of it).
 *
 * Beyond CouchDB: the user info of an endpoint object's `url` is removed too, and a document
 * whose `owner` is null is stripped for anonymous readers (CouchDB matches a null owner with the
 * null name of an anonymous reader).
 *
 * Every read that renders a document for a client (document-reader.ts) goes through `shownBody`;
 * a read that does not say who reads (no `Viewer`) is answered as to a stranger, so a read path
 * that forgets to say it shows less, never more.
 */
import { JsonObject, parseJson, stringifyJson, type JsonValue } from '../json/index.js';
import { newRevId, parseRev, type Rev } from '../revisions/index.js';
import { attachmentsOf, digestBytes, splitStoredBody } from './attachment.js';
import { isReplicatorDb } from './replicator-db.js';

/** Who reads: CouchDB's user name, and whether they administer the database (server or DB admin). */
export interface Viewer {
  name: string | null;
  dbAdmin: boolean;
}

/** The reads of the server itself (the embedded API, an admin's job): everything shown. */
export const ADMIN_VIEWER: Viewer = { name: null, dbAdmin: true };

/** A revision as a reader is shown it: its stored body text and rev. */
export interface ShownRevision {
  rev: string;
  body: string;
}

/** The rule of the database called `name`: undefined for every database but replicator databases. */
export function readRuleOf(name: string): ReadRule | undefined {
  return isReplicatorDb(name) ? shownBody : undefined;
}

export type ReadRule = typeof shownBody;

/**
 * The body and rev `viewer` is shown of a revision (`stored`: its stored body text, attachment
 * stubs in front); `path` gives its revision path (`_revisions`) for a new rev id. Answers the
 * input unchanged when nothing is stripped.
 */
export function shownBody(
  id: string,
  rev: string,
  stored: string,
  deleted: boolean,
  path: () => { start: number; ids: string[] } | undefined,
  viewer: Viewer | undefined,
): ShownRevision {
  const unchanged = { rev, body: stored };
  if (viewer?.dbAdmin === true || id.startsWith('_design/')) return unchanged;
  const split = splitStoredBody(stored);
  // Most bodies name no endpoint at all (a tombstone): nothing to parse.
  if (!split.body.includes('"source"') && !split.body.includes('"target"')) return unchanged;
  const body = parseJson(split.body);
  if (!(body instanceof JsonObject)) return unchanged;
  const owner = body.get('owner');
  if (typeof owner === 'string' && viewer !== undefined && owner === viewer.name) return unchanged;
  let changed = false;
  for (const field of ['source', 'target']) {
    const value = body.get(field);
    if (value === undefined) continue;
    const stripped = withoutCredentials(value);
    if (stripped === value) continue;
    body.set(field, stripped);
    changed = true;
  }
  if (!changed) return unchanged;
  const json = stringifyJson(body);
  // The stubs (and encodings) stay in front of the body's own members, as stored.
  const text =
    split.stubs === undefined ? json : `${stored.slice(0, stored.length - split.body.length + 1)}${json.slice(1)}`;
  return { rev: newRev(rev, deleted, body, text, path()), body: text };
}

/** An endpoint without credentials (the same value when it has none). */
function withoutCredentials(value: JsonValue): JsonValue {
  if (typeof value === 'string') return withoutUserInfo(value);
  if (!(value instanceof JsonObject)) return value;
  const url = value.get('url');
  const plainUrl = typeof url === 'string' ? withoutUserInfo(url) : url;
  if (!value.has('headers') && !value.has('auth') && plainUrl === url) return value;
  const out = value.without(CREDENTIAL_MEMBERS);
  if (plainUrl !== undefined && plainUrl !== url) out.set('url', plainUrl);
  return out;
}

const CREDENTIAL_MEMBERS: ReadonlySet<string> = new Set(['headers', 'auth']);

/** A URL without its user info (`http://user:pass@host/db` → `http://host/db`). */
function withoutUserInfo(url: string): string {
  const match = /^([a-z][a-z0-9+.-]*:\/\/)[^/?#@]*@/i.exec(url);
  return match === null ? url : `${match[1]}${url.slice(match[0].length)}`;
}

/** CouchDB's rev id of the stripped body on the revision's parent (couch_db:new_revid). */
function newRev(
  rev: string,
  deleted: boolean,
  body: JsonObject,
  stored: string,
  path: { start: number; ids: string[] } | undefined,
): string {
  const { pos } = parseRev(rev);
  const parentId = path?.ids[1];
  const parent: Rev | null = parentId === undefined || pos < 2 ? null : { pos: pos - 1, id: parentId };
  const atts = attachmentsOf(stored).map((att) => ({
    name: att.name,
    contentType: att.contentType,
    md5: digestBytes(att.digest),
  }));
  return `${pos}-${newRevId(deleted, parent, body, atts)}`;
}
