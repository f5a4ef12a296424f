/**
 * Percent-escapes of a request path. A malformed escape (`%zz`) or escapes that do not decode to
 * UTF-8 (`caf%E9`) are a 400, as CouchDB answers (the path would otherwise address a document
 * named with the escape as written). In an attachment's name CouchDB says so in its own words.
 */
import { CouchError } from '../errors.js';
import { localDocAttachmentsRefused } from './handlers/attachments.js';

/** Throws on a malformed escape; false when the escapes do not decode to UTF-8. */
export function pathDecodes(rawPath: string): boolean {
  if (!rawPath.includes('%')) return true;
  if (/%(?![0-9a-fA-F]{2})/.test(rawPath)) throw new CouchError('bad_request', 'invalid_url_encoding');
  return decodes(rawPath);
}

/**
 * The 400 for a path that does not decode to UTF-8, given the route it was recognized as (the
 * router keeps an undecodable segment as written). Only the attachment name at fault gets
 * CouchDB's attachment wording; under `_local/` every attachment path gets its usual 400.
 */
export function undecodablePath(
  route: { handler: string; action?: string; params: Record<string, unknown> } | null,
  rawPath: string,
): CouchError {
  // A document written under an id that is not UTF-8: CouchDB's couch_doc:validate_docid answer.
  if (route?.handler === 'documents' && route.action === 'update') {
    const db = rawPath.split('/').filter((segment) => segment !== '')[route.params.node === undefined ? 0 : 2];
    if (db !== undefined && decodes(db)) return new CouchError('illegal_docid', 'Document id must be valid UTF-8');
  }
  if (route?.handler === 'attachments') {
    const prefix = route.params.prefix;
    // The database and the document id: `db/doc`, or `db/_design/doc` and `db/_local/doc` (after
    // `_node/{node}/` on the node-local API).
    const head = rawPath
      .split('/')
      .filter((segment) => segment !== '')
      .slice(0, (route.params.node === undefined ? 0 : 2) + (prefix === undefined ? 2 : 3));
    if (head.every(decodes)) {
      return prefix === '_local/'
        ? localDocAttachmentsRefused()
        : new CouchError('bad_request', 'Attachment name is not UTF-8 encoded');
    }
  }
  return new CouchError('bad_request', 'The URL path must be valid UTF-8 once its percent-escapes are decoded.');
}

function decodes(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}
