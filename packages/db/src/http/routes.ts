/**
 * The whole HTTP API, declared with @divan/router. Each endpoint lists the verbs it answers and
 * ends with a catch-all that answers 405 with CouchDB's `Allow` list for that endpoint.
 * Static paths come before `/:db/:docid`: the router keeps declaration order, as Rails does.
 * `divan-routes packages/db/dist/src/http/routes.js` prints the table.
 */
import { draw, type Mapper } from '@divan/router';

/** Database names and document ids are any non-empty segment (ids may hold dots; `%2F` decodes to `/`). */
const SEGMENT = /[^/]+/;

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

export const routes = draw((r) => {
  r.scope({ format: false, constraints: { db: SEGMENT, docid: SEGMENT, view: SEGMENT } }, (r) => {
    endpoint(r, '/', { get: 'server#welcome' }, 'GET,HEAD');
    endpoint(r, '/_up', { get: 'server#up' }, 'GET,HEAD');
    endpoint(r, '/_uuids', { get: 'server#uuids' }, 'GET');
    endpoint(r, '/_all_dbs', { get: 'server#allDbs' }, 'GET,HEAD');
    endpoint(r, '/_session', { get: 'server#session' }, 'GET,HEAD,POST,DELETE');
    endpoint(r, '/_active_tasks', { get: 'views#activeTasks' }, 'GET');

    endpoint(
      r,
      '/:db',
      { get: 'databases#show', put: 'databases#create', delete: 'databases#destroy', post: 'documents#create' },
      'DELETE,GET,HEAD,POST',
    );
    endpoint(r, '/:db/_all_docs', { get: 'all_docs#index', post: 'all_docs#query' }, 'GET,HEAD,POST');
    endpoint(r, '/:db/_all_docs/queries', { post: 'all_docs#queries' }, 'POST');
    endpoint(r, '/:db/_design_docs', { get: 'design_docs#index', post: 'design_docs#query' }, 'GET,HEAD,POST');
    endpoint(r, '/:db/_local_docs', { get: 'local_docs#index', post: 'local_docs#query' }, 'GET,HEAD,POST');
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
    notImplemented(r, '/:db/_design/:docid/*rest', 'Design document functions and attachments');
    endpoint(r, '/:db/:docid', doc, docAllow);
    notImplemented(r, '/:db/:docid/*attachment', 'Attachments');
  });
});

/** The route table for `divan-routes packages/db/dist/src/http/routes.js`. */
export default routes;
