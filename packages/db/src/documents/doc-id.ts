import { CouchError } from '../errors.js';
import { isWellFormed } from '../support/unicode.js';

export const DESIGN_PREFIX = '_design/';
export const LOCAL_PREFIX = '_local/';

/**
 * CouchDB's rules for an id being written (couch_doc:validate_docid). Reads do no validation: a
 * `GET /db/_foo` is simply a missing document.
 */
export function validateDocId(id: unknown): string {
  if (typeof id !== 'string') throw new CouchError('illegal_docid', 'Document id must be a string');
  if (id === '') throw new CouchError('illegal_docid', 'Document id must not be empty');
  if (!isWellFormed(id)) throw new CouchError('illegal_docid', 'Document id must be valid UTF-8');
  if (id.startsWith(DESIGN_PREFIX)) {
    if (id.length === DESIGN_PREFIX.length) throw new CouchError('illegal_docid', 'Illegal document id `_design/`');
    return id;
  }
  if (id.startsWith(LOCAL_PREFIX)) {
    if (id.length === LOCAL_PREFIX.length) throw new CouchError('illegal_docid', 'Illegal document id `_local/`');
    return id;
  }
  if (id.startsWith('_')) {
    throw new CouchError('illegal_docid', 'Only reserved document ids may start with underscore.');
  }
  return id;
}

export const isLocalId = (id: string): boolean => id.startsWith(LOCAL_PREFIX);
export const isDesignId = (id: string): boolean => id.startsWith(DESIGN_PREFIX);

/** A new document id: 32 lower-case hex digits, as CouchDB's default uuid algorithm (random). */
export function randomId(): string {
  return crypto.randomUUID().replaceAll('-', '');
}
