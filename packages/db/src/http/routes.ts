/**
 * The whole HTTP API, declared with @divan/router. Each endpoint lists the verbs it answers and
 * ends with a catch-all that answers 405 with CouchDB's `Allow` list for that endpoint.
 * Static paths come before `/:db/:docid`: the router keeps declaration order, as Rails does.
 * `divan-routes packages/db/dist/src/http/routes.js` prints the table.
 */
import { draw, type Mapper } from '@divan/router';

/** Database names and document ids are any non-empty segment (ids may hold dots; `%2F` decodes to `/`). */
const SEGMENT = /[^/]+/;
/**
 * A database name is any segment but `_node`, whose paths are the node-local API (declared after
 * the database routes, so the common requests never try their patterns).
 */
const DB = /(?!_node(?![^/]))[^/]+/;

/** Every path parameter's pattern (`section`/`key` are `_config`'s). */
const CONSTRAINTS = {
  db: DB,
  docid: SEGMENT,
  view: SEGMENT,
  node: SEGMENT,
  section: SEGMENT,
  key: SEGMENT,
  replicator: SEGMENT,
};

type Verbs = Partial<Record<'get' | 'put' | 'post' | 'delete' | 'copy', string>>;

function endpoint(r: Mapper, path: string, verbs: Verbs, allow: string, defaults: Record<string, string> = {}): void {
  for (const [verb, to] of Object.entries(verbs)) {
    // HEAD goes where GET goes; said explicitly so the catch-all below does not take it first.
    r.match(path, { to, via: verb === 'get' ? ['get', 'head'] : verb, defaults });
  }
  r.match(path, { to: 'errors#methodNotAllowed', via: 'all', defaults: { ...defaults, allow } });
}

function notImplemented(r: Mapper, path: string, feature: string): void {
  r.match(path, { to: 'errors#notImplemented', via: 'all', defaults: { feature } });
}

/** Every endpoint of one database, at `/:db/...` (also under `/_node/:node/`, the node-local API). */
function databaseRoutes(r: Mapper): void {
  endpoint(
    r,
    '/:db',
    { get: 'databases#show', put: 'databases#create', delete: 'databases#destroy', post: 'documents#create' },
    'DELETE,GET,HEAD,POST',
  );
  endpoint(r, '/:db/_all_docs', { get: 'all_docs#index', post: 'all_docs#query' }, 'GET,HEAD,POST');
  endpoint(r, '/:db/_all_docs/queries', { post: 'all_docs#queries' }, 'POST');
  endpoint(r, '/:db/_design_docs', { get: 'design_docs#index', post: 'design_docs#query' }, 'GET,HEAD,POST');
  endpoint(r, '/:db/_design_docs/queries', { post: 'design_docs#queries' }, 'POST');
  endpoint(r, '/:db/_local_docs', { get: 'local_docs#index', post: 'local_docs#query' }, 'GET,HEAD,POST');
  endpoint(r, '/:db/_local_docs/queries', { post: 'local_docs#queries' }, 'POST');
  endpoint(r, '/:db/_changes', { get: 'changes#index', post: 'changes#query' }, 'GET,POST,HEAD');
  endpoint(r, '/:db/_bulk_docs', { post: 'bulk#docs' }, 'POST');
  endpoint(r, '/:db/_bulk_get', { post: 'bulk#get' }, 'POST');
  endpoint(r, '/:db/_revs_diff', { post: 'bulk#revsDiff' }, 'POST');
  endpoint(r, '/:db/_missing_revs', { post: 'bulk#missingRevs' }, 'POST');
  endpoint(r, '/:db/_ensure_full_commit', { post: 'databases#ensureFullCommit' }, 'POST');
  endpoint(r, '/:db/_revs_limit', { get: 'databases#revsLimit', put: 'databases#setRevsLimit' }, 'GET,PUT');
  endpoint(r, '/:db/_security', { get: 'databases#security', put: 'databases#setSecurity' }, 'GET,PUT');
  endpoint(r, '/:db/_compact', { post: 'maintenance#compact' }, 'POST');
  endpoint(r, '/:db/_compact/:docid', { post: 'maintenance#compactViews' }, 'POST');
  endpoint(r, '/:db/_purge', { post: 'maintenance#purge' }, 'POST');
  endpoint(
    r,
    '/:db/_purged_infos_limit',
    { get: 'maintenance#purgedInfosLimit', put: 'maintenance#setPurgedInfosLimit' },
    'GET,PUT',
  );
  endpoint(r, '/:db/_view_cleanup', { post: 'views#cleanup' }, 'POST');
  // Mango and the rest of a database's reserved names: each its own route, so none falls through
  // to the document routes below (a POST to `/db/_find` is not a form upload).
  endpoint(r, '/:db/_find', { post: 'mango#find' }, 'POST');
  endpoint(r, '/:db/_find/*rest', { post: 'mango#find' }, 'POST');
  endpoint(r, '/:db/_explain', { post: 'mango#explain' }, 'POST');
  endpoint(r, '/:db/_explain/*rest', { post: 'mango#explain' }, 'POST');
  endpoint(r, '/:db/_index', { get: 'mango#indexes', post: 'mango#createIndex' }, 'GET,POST');
  endpoint(r, '/:db/_index/_bulk_delete', { post: 'mango#bulkDeleteIndexes' }, 'POST');
  endpoint(r, '/:db/_index/_design/:ddoc/:type/:name', { delete: 'mango#deleteIndex' }, 'DELETE', { design: '1' });
  endpoint(r, '/:db/_index/:ddoc/:type/:name', { delete: 'mango#deleteIndex' }, 'DELETE');
  r.match('/:db/_index/*rest', { to: 'errors#notFound', via: 'all' });
  notImplemented(r, '/:db/_partition/*rest', 'Partitioned databases (`_partition`)');
  notImplemented(r, '/:db/_shards', 'Shard maps (`_shards`)');
  notImplemented(r, '/:db/_shards/*rest', 'Shard maps (`_shards`)');
  notImplemented(r, '/:db/_sync_shards', 'Shard maps (`_sync_shards`)');

  const doc = {
    get: 'documents#show',
    put: 'documents#update',
    delete: 'documents#destroy',
    copy: 'documents#copy',
    post: 'documents#formUpload',
  };
  const docAllow = 'DELETE,GET,HEAD,POST,PUT,COPY';
  endpoint(r, '/:db/_local/:docid', doc, docAllow, { prefix: '_local/' });
  endpoint(r, '/:db/_design/:docid', doc, docAllow, { prefix: '_design/' });
  endpoint(r, '/:db/_design/:docid/_view/:view', { get: 'views#show', post: 'views#query' }, 'GET,POST,HEAD');
  endpoint(r, '/:db/_design/:docid/_view/:view/queries', { post: 'views#queries' }, 'POST');
  endpoint(r, '/:db/_design/:docid/_info', { get: 'views#info' }, 'GET');
  for (const fn of ['_show', '_list', '_update', '_rewrite']) {
    notImplemented(r, `/:db/_design/:docid/${fn}/*rest`, `Design document functions (\`${fn}\`)`);
  }
  const attachment = { get: 'attachments#show', put: 'attachments#update', delete: 'attachments#destroy' };
  const attachmentAllow = 'DELETE,GET,HEAD,PUT';
  endpoint(r, '/:db/_design/:docid/*attachment', attachment, attachmentAllow, { prefix: '_design/' });
  endpoint(r, '/:db/_local/:docid/*attachment', attachment, attachmentAllow, { prefix: '_local/' });
  endpoint(r, '/:db/:docid', doc, docAllow);
  endpoint(r, '/:db/:docid/*attachment', attachment, attachmentAllow);
}

export const routes = draw((r) => {
  r.scope({ format: false, constraints: CONSTRAINTS }, (r) => {
    endpoint(r, '/', { get: 'server#welcome' }, 'GET,HEAD');
    endpoint(r, '/_up', { get: 'server#up' }, 'GET,HEAD');
    endpoint(r, '/_uuids', { get: 'server#uuids' }, 'GET');
    endpoint(r, '/_all_dbs', { get: 'server#allDbs' }, 'GET,HEAD');
    endpoint(r, '/_dbs_info', { get: 'server#dbsInfo', post: 'server#dbsInfoOf' }, 'GET,HEAD,POST');
    endpoint(
      r,
      '/_session',
      { get: 'session#show', post: 'session#create', delete: 'session#destroy' },
      'GET,HEAD,POST,DELETE',
    );
    endpoint(r, '/_active_tasks', { get: 'views#activeTasks' }, 'GET');
    // Fauxton, and the cluster and scheduler endpoints it reads, as a single CouchDB node has them.
    endpoint(r, '/_utils', { get: 'utils#index' }, 'GET,HEAD');
    endpoint(r, '/_utils/*rest', { get: 'utils#file' }, 'GET,HEAD');
    endpoint(r, '/_membership', { get: 'node#membership' }, 'GET');
    endpoint(r, '/_cluster_setup', { get: 'node#clusterSetup' }, 'GET');
    endpoint(r, '/_scheduler/jobs', { get: 'scheduler#jobs' }, 'GET');
    endpoint(r, '/_scheduler/jobs/:docid', { get: 'scheduler#job' }, 'GET');
    endpoint(r, '/_scheduler/docs', { get: 'scheduler#docs' }, 'GET');
    // `:replicator`, not `:db`: these read no database, so dispatch does not open or authorize one.
    endpoint(r, '/_scheduler/docs/:replicator', { get: 'scheduler#docs' }, 'GET');
    endpoint(r, '/_scheduler/docs/:replicator/:docid', { get: 'scheduler#doc' }, 'GET');
    r.match('/_scheduler/*rest', { to: 'errors#notFound', via: 'all' });
    // Answered with a refusal that says server-side replication is not available (not a 501).
    endpoint(r, '/_replicate', { post: 'scheduler#replicate' }, 'POST');

    // The server's other reserved names, each answered for itself (never read as a database name).
    for (const [path, feature] of [
      ['/_db_updates', 'The database updates feed (`/_db_updates`)'],
      ['/_reshard', 'Resharding (`/_reshard`)'],
      ['/_reshard/*rest', 'Resharding (`/_reshard`)'],
      ['/_reload_query_servers', 'Query server reloading (`/_reload_query_servers`)'],
      ['/_search_analyze', 'Full-text search (`/_search_analyze`)'],
      ['/_nouveau_analyze', 'Full-text search (`/_nouveau_analyze`)'],
    ] as const) {
      notImplemented(r, path, feature);
    }
    // CouchDB 1.x endpoints that moved under `/_node/{node}/` in 2.0.
    for (const name of ['_config', '_stats', '_log', '_restart']) {
      r.match(`/${name}`, { to: 'errors#moved', via: 'all', defaults: { name } });
      r.match(`/${name}/*rest`, { to: 'errors#moved', via: 'all', defaults: { name } });
    }

    databaseRoutes(r);

    // The node-local API, `/_node/{node}/...`: this node's own endpoints and its databases.
    r.scope('/_node/:node', (r) => {
      endpoint(r, '/_all_dbs', { get: 'server#allDbs' }, 'GET,HEAD');
      endpoint(r, '/_config', { get: 'config#all' }, 'GET,HEAD');
      endpoint(r, '/_config/:section', { get: 'config#section' }, 'GET,HEAD');
      const configKey = { get: 'config#show', put: 'config#update', delete: 'config#destroy' };
      endpoint(r, '/_config/:section/:key', configKey, 'DELETE,GET,HEAD,PUT');
      r.match('/_config/*rest', { to: 'errors#notFound', via: 'all' });
      endpoint(r, '/_stats', { get: 'node#stats' }, 'GET');
      endpoint(r, '/_stats/*rest', { get: 'node#stats' }, 'GET');
      endpoint(r, '/_system', { get: 'node#system' }, 'GET');
      for (const [path, feature] of [
        ['/_prometheus', 'Prometheus metrics (`/_node/{node}/_prometheus`)'],
        ['/_versions', 'Versions (`/_node/{node}/_versions`)'],
        ['/_restart', 'Restarting (`/_node/{node}/_restart`)'],
        ['/_smoosh/*rest', 'Compaction daemon status (`/_node/{node}/_smoosh`)'],
      ] as const) {
        notImplemented(r, path, feature);
      }
      databaseRoutes(r);
    });
  });
});

/** The route table for `divan-routes packages/db/dist/src/http/routes.js`. */
export default routes;
