/**
 * The one error type of the database. The core throws `CouchError(error, reason)` with CouchDB's
 * error names; the HTTP layer turns it into `{"error", "reason"}` with the status below (or the
 * explicit one, for the few places where CouchDB answers one name with two statuses).
 */
import { MAX_DEPTH } from './json/parse.js';

export class CouchError extends Error {
  readonly status: number;
  constructor(
    readonly error: string,
    readonly reason: string,
    status?: number,
  ) {
    super(`${error}: ${reason}`);
    this.name = 'CouchError';
    this.status = status ?? STATUS_OF[error] ?? 500;
  }

  toJSON(): { error: string; reason: string } {
    return { error: this.error, reason: this.reason };
  }
}

/** CouchDB's status for each error name (chttpd:error_info). */
const STATUS_OF: Record<string, number> = {
  bad_request: 400,
  query_parse_error: 400,
  illegal_docid: 400,
  illegal_partition: 400,
  doc_validation: 400,
  invalid_design_doc: 400,
  compilation_error: 400,
  illegal_database_name: 400,
  database_name_too_long: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  not_acceptable: 406,
  conflict: 409,
  file_exists: 412,
  precondition_failed: 412,
  missing_stub: 412,
  request_entity_too_large: 413,
  too_large: 413,
  attachment_too_large: 413,
  bad_content_type: 415,
  requested_range_not_satisfiable: 416,
  expectation_failed: 417,
  not_implemented: 501,
  unknown_error: 500,
};

export const badRequest = (reason: string): CouchError => new CouchError('bad_request', reason);
export const notFound = (reason = 'missing'): CouchError => new CouchError('not_found', reason);
export const conflict = (): CouchError => new CouchError('conflict', 'Document update conflict.');
export const invalidJson = (): CouchError => new CouchError('bad_request', 'invalid UTF-8 JSON');
export const tooDeep = (): CouchError =>
  new CouchError('bad_request', `JSON nested deeper than ${MAX_DEPTH} levels is not accepted.`);
export const dbNotFound = (): CouchError => new CouchError('not_found', 'Database does not exist.');
