/**
 * What a request adds to the node's statistics, by the endpoint that answered it (CouchDB's
 * `couchdb` and `mango` groups of `_stats`): documents read and written, bulk, view, purge and
 * `_changes` requests, Mango queries. Counted once the request is answered, successes only, as
 * CouchDB counts at the operations that succeed; a `_changes` client while its feed lasts.
 */
import type { FindRun } from '../mango/find.js';
import type { ServerStats } from '../server/stats.js';
import type { RequestContext } from './context.js';

const READS = new Set(['documents#show', 'attachments#show']);
const WRITES = new Set([
  'documents#create',
  'documents#update',
  'documents#destroy',
  'documents#copy',
  'documents#formUpload',
  'attachments#update',
  'attachments#destroy',
]);
const CHANGES = new Set(['changes#index', 'changes#query']);

/** At the start of a request: a continuous `_changes` client counts while it is connected. */
export function countStart(ctx: RequestContext): void {
  if (!CHANGES.has(ctx.endpoint ?? '')) return;
  const feed = ctx.query.get('feed');
  if (feed !== 'continuous' && feed !== 'eventsource') return;
  const { stats } = ctx.server;
  stats.increment('couchdb.httpd.clients_requesting_changes');
  ctx.res.once('close', () => stats.decrement('couchdb.httpd.clients_requesting_changes'));
}

/** Once a request is answered. */
export function countAnswer(ctx: RequestContext): void {
  const endpoint = ctx.endpoint;
  if (endpoint === undefined || ctx.res.statusCode >= 400) return;
  const { stats } = ctx.server;
  if (READS.has(endpoint)) stats.increment('couchdb.database_reads');
  else if (WRITES.has(endpoint)) {
    const local = String(ctx.params.prefix ?? '') === '_local/';
    stats.increment(local ? 'couchdb.local_document_writes' : 'couchdb.database_writes');
  } else if (endpoint === 'bulk#docs') {
    stats.increment('couchdb.httpd.bulk_requests');
    stats.increment('couchdb.database_writes');
  } else if (endpoint === 'views#show' || endpoint === 'views#query' || endpoint === 'views#queries') {
    stats.increment('couchdb.httpd.view_reads');
  } else if (endpoint === 'maintenance#purge') {
    stats.increment('couchdb.httpd.purge_requests');
    stats.increment('couchdb.database_purges');
  }
}

/** One run of a Mango query. */
export function countFind(stats: ServerStats, run: FindRun): void {
  stats.increment('mango.keys_examined', run.keysExamined);
  stats.increment('mango.docs_examined', run.docsExamined);
  stats.increment('mango.results_returned', run.resultsReturned);
  if (run.unindexed) stats.increment('mango.unindexed_queries');
  if (run.tooManyScanned) stats.increment('mango.too_many_docs_scanned');
  stats.observe('mango.query_time', run.ms);
}
