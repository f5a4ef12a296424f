/**
 * `/{db}/_partition/{partition}/...` (CouchDB's chttpd_db:handle_partition_req): a partition's
 * info, and its `_all_docs`, views, `_search`, `_nouveau`, `_find` and `_explain`, answered as the database-wide
 * endpoints answer them with `partition` set (a `partition` in the query string that names
 * another is CouchDB's 400). The database must be partitioned; the partition is checked first.
 */
import { CouchError } from '../../errors.js';
import { partitionInfo, requirePartitioned } from '../../documents/partition-info.js';
import { validatePartition } from '../../documents/partition.js';
import { param, type RequestContext } from '../context.js';
import { sendJson } from '../respond.js';
import { allDocsHandlers } from './all-docs.js';
import { dbOf } from './databases.js';
import { mango } from './mango.js';
import { nouveau } from './nouveau.js';
import { search } from './search.js';
import { errors } from './server.js';
import { views } from './views.js';

/** Checks the request's partition and puts it in the query string, as CouchDB rewrites the request. */
async function scoped(ctx: RequestContext): Promise<void> {
  requirePartitioned(dbOf(ctx));
  const partition = validatePartition(param(ctx, 'partition'));
  const asked = ctx.query.get('partition');
  if (asked !== null && asked !== partition) {
    throw new CouchError('bad_request', 'Conflicting value for `partition` in query string');
  }
  ctx.query.set('partition', partition);
}

export const partitions = {
  /** `/{db}/_partition` names no partition. */
  async invalid(ctx: RequestContext): Promise<void> {
    dbOf(ctx);
    throw new CouchError('bad_request', 'invalid_partition_req');
  },

  async info(ctx: RequestContext): Promise<void> {
    sendJson(ctx, 200, await partitionInfo(dbOf(ctx), param(ctx, 'partition')));
  },

  /** A POST to a partition is a 405, except that CouchDB checks an underscore first. */
  async infoPost(ctx: RequestContext): Promise<void> {
    dbOf(ctx);
    const partition = param(ctx, 'partition');
    if (partition.startsWith('_')) validatePartition(partition);
    ctx.params.allow = 'GET';
    errors.methodNotAllowed(ctx);
  },

  async allDocs(ctx: RequestContext): Promise<void> {
    await scoped(ctx);
    return allDocsHandlers.index(ctx);
  },

  async allDocsQuery(ctx: RequestContext): Promise<void> {
    await scoped(ctx);
    return allDocsHandlers.query(ctx);
  },

  async allDocsQueries(ctx: RequestContext): Promise<void> {
    await scoped(ctx);
    return allDocsHandlers.queries(ctx);
  },

  async view(ctx: RequestContext): Promise<void> {
    await scoped(ctx);
    return views.show(ctx);
  },

  async viewQuery(ctx: RequestContext): Promise<void> {
    await scoped(ctx);
    return views.query(ctx);
  },

  async viewQueries(ctx: RequestContext): Promise<void> {
    await scoped(ctx);
    return views.queries(ctx);
  },

  async find(ctx: RequestContext): Promise<void> {
    await scoped(ctx);
    return mango.find(ctx);
  },

  async explain(ctx: RequestContext): Promise<void> {
    await scoped(ctx);
    return mango.explain(ctx);
  },

  /** A partitioned design document's `_search` (./search.ts checks the index is partitioned). */
  async search(ctx: RequestContext): Promise<void> {
    await scoped(ctx);
    return search.query(ctx);
  },

  /** A design document's `_nouveau` for one partition (Nouveau's `_partition` clause: ../../search/query-bm25.ts). */
  async nouveau(ctx: RequestContext): Promise<void> {
    await scoped(ctx);
    return nouveau.query(ctx);
  },

  /** Anything else under a partition: CouchDB's 404, once the database and partition pass. */
  async other(ctx: RequestContext): Promise<void> {
    await scoped(ctx);
    throw new CouchError('not_found', 'missing');
  },
};
