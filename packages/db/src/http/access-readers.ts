/**
 * The endpoints a reader of an access-enabled database (a non-admin, who sees only the documents
 * their principals may read: documents/access-rules.ts) reaches at all. Every endpoint that
 * answers from documents must filter by the reader's access rows; an endpoint that does not (yet)
 * is refused here, by name, before its handler runs, so nothing of another user's documents
 * leaks through an endpoint added later: this list is an allowlist.
 */
import type { RouteInfo } from '@divan/router';
import { CouchError } from '../errors.js';

/** `handler#action`s that answer a reader from their own documents only. */
const FOR_READERS: ReadonlySet<string> = new Set([
  'databases#show',
  'databases#revsLimit',
  'databases#security',
  'databases#ensureFullCommit',
  'maintenance#purgedInfosLimit',
  'documents#show',
  'documents#update',
  'documents#create',
  'documents#destroy',
  'documents#copy',
  'documents#formUpload',
  'attachments#show',
  'attachments#update',
  'attachments#destroy',
  'bulk#docs',
  'bulk#get',
  'bulk#revsDiff',
  'bulk#missingRevs',
  'all_docs#index',
  'all_docs#query',
  'all_docs#queries',
  'design_docs#index',
  'design_docs#query',
  'design_docs#queries',
  'local_docs#index',
  'local_docs#query',
  'local_docs#queries',
  'changes#index',
  'changes#query',
  'views#show',
  'views#query',
  'views#queries',
  'mango#find',
  'mango#explain',
  'mango#indexes',
  'errors#notFound',
  'errors#notImplemented',
  'errors#designEndpoint',
  'errors#tempViewGone',
]);

/** Design documents are invisible to readers: what names one answers as a missing document. */
const DESIGN_READS: ReadonlySet<string> = new Set(['views#info']);

/** Refuses a reader an endpoint that does not filter by their access (see the top). */
export function checkReaderRoute(route: RouteInfo): void {
  const endpoint = `${route.handler}#${route.action}`;
  if (FOR_READERS.has(endpoint)) return;
  if (DESIGN_READS.has(endpoint)) throw new CouchError('not_found', 'missing');
  throw new CouchError('forbidden', `Only admins may use this endpoint of a database with per-document access.`);
}
