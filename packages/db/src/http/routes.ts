/**
 * The whole HTTP API, declared with @divan/router: each endpoint on one line, with its path, the
 * handler action of each verb, and (for a database's endpoints) who may call it (access.ts). Each
 * endpoint ends with a catch-all that answers 405 with its `Allow` list, derived from its verbs.
 * Static paths come before `/:db/:docid`: the router keeps declaration order, as Rails does.
 * `divan-routes packages/db/dist/src/http/routes.js` prints the table.
 */
import { type AnyScope, draw, type Mapper, type RouteSet, type TypedMapper, type TypedRoute } from '@divan/router';
import type { Access } from './access.js';

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
  func: SEGMENT,
  viewddoc: SEGMENT,
  partition: SEGMENT,
  /** A design document's search index (`_search/{index}`). */
  index: SEGMENT,
  /** A design document's endpoint (`_view`, `_info`, ...): attachment names never start with `_`. */
  fn: /_[^/]*/,
};

/** `handler#action`. */
type Target = `${string}#${string}`;
/** A verb's handler action, with its own access level where it differs from its endpoint's. */
type VerbTarget = Target | readonly [Target, Access];
/**
 * An endpoint's verbs, in the order its `Allow` header lists them (CouchDB's order, which varies
 * between endpoints). HEAD is answered by the GET action on every endpoint; `HEAD: true` lists it
 * in `Allow`, at its place, where CouchDB lists it.
 */
interface Verbs {
  GET?: VerbTarget;
  HEAD?: true;
  POST?: VerbTarget;
  PUT?: VerbTarget;
  DELETE?: VerbTarget;
  COPY?: VerbTarget;
}
type Defaults = Record<string, string>;

/**
 * A route as the router's types know it: the handler table (dispatch.ts) is typed from these.
 * Name and path are left unknown, as the router's types leave them for a pattern path.
 */
type RouteTo<T> = T extends readonly [infer To, Access]
  ? RouteTo<To>
  : T extends `${infer H}#${infer A}`
    ? { name: string; path: string; handler: H; action: A }
    : never;

/** Routes to declare in a scope, carrying the types of those routes. */
interface Declaration<R extends TypedRoute> {
  /** Type only: the routes `declare` adds. */
  readonly routes?: R;
  declare(r: Mapper): void;
}

/** A database's endpoints declare who may call them; the server's and the node's do not. */
type AccessOf<P extends string> = P extends `/:db${string}` ? [access: Access, defaults?: Defaults] : [];

function endpoint<const P extends string, const V extends Verbs>(
  path: P,
  verbs: V,
  ...accessAndDefaults: AccessOf<P>
): Declaration<RouteTo<V[Exclude<keyof V, 'HEAD'>]> | RouteTo<'errors#methodNotAllowed'>> {
  const [access, defaults = {}]: [Access?, Defaults?] = accessAndDefaults;
  return {
    declare(r) {
      const allow: string[] = [];
      for (const [verb, target] of Object.entries(verbs) as [keyof Verbs, VerbTarget | true][]) {
        allow.push(verb);
        if (target === true) continue;
        const [to, level] = typeof target === 'string' ? [target, access] : target;
        // HEAD goes where GET goes; said explicitly so the catch-all below does not take it first.
        const via = verb === 'GET' ? ['get', 'head'] : verb.toLowerCase();
        r.match(path, { to, via, defaults: level === undefined ? defaults : { ...defaults, access: level } });
      }
      r.match(path, {
        to: 'errors#methodNotAllowed',
        via: 'all',
        defaults: { ...defaults, allow: allow.join(','), access: 'none' },
      });
    },
  };
}

/** One verb answered at a path but left out of its endpoint's `Allow` list, as CouchDB leaves it. */
function unlisted<const To extends Target>(
  verb: 'get' | 'post' | 'put' | 'delete' | 'copy',
  path: string,
  to: To,
  access: Access,
): Declaration<RouteTo<To>> {
  return { declare: (r) => r.match(path, { to, via: verb, defaults: { access } }) };
}

/**
 * One handler for every verb at a path, for an endpoint that authorizes before it looks at the
 * verb; it answers the verbs it does not take with a 405 listing `allow`.
 */
function everyVerb<const To extends Target>(path: string, to: To, allow: string): Declaration<RouteTo<To>> {
  return { declare: (r) => r.match(path, { to, via: 'all', defaults: { allow, access: 'none' } }) };
}

/**
 * A path answered with one of `errors`' answers, whatever the verb: before any database check
 * (`none`), or once the caller passed the route's access level (a database's, or `server-admin`
 * for a server path, checked by the answer itself), as CouchDB authorizes before it finds nothing.
 */
function answer<const A extends 'notFound' | 'notImplemented' | 'moved' | 'designEndpoint' | 'tempViewGone'>(
  path: string,
  action: A,
  defaults: Defaults = {},
  access: Access = 'none',
): Declaration<RouteTo<`errors#${A}`>> {
  return {
    declare: (r) => r.match(path, { to: `errors#${action}`, via: 'all', defaults: { ...defaults, access } }),
  };
}

function notImplemented(
  path: string,
  feature: string,
  access: Access = 'none',
): Declaration<RouteTo<'errors#notImplemented'>> {
  return answer(path, 'notImplemented', { feature }, access);
}

/** A partition path CouchDB answers the same whatever the verb (its answer is an error). */
const PARTITION_ANY = <const T extends Target>(to: T) =>
  ({ GET: to, POST: to, PUT: to, DELETE: to, COPY: to }) as const;

/** The routes the declarations carry. */
type RoutesOf<D> = D extends Declaration<infer R> ? R : never;

/**
 * Declares the routes in scope and types the mapper with them: the router's types follow chained
 * calls, not the loops above, so the routes are typed here from their declarations.
 */
function declare<S extends AnyScope, Out extends TypedRoute, const D extends readonly Declaration<TypedRoute>[]>(
  r: TypedMapper<S, Out>,
  declarations: D,
): TypedMapper<S, Out | RoutesOf<D[number]>> {
  for (const declaration of declarations) declaration.declare(r as unknown as Mapper);
  return r as unknown as TypedMapper<S, Out | RoutesOf<D[number]>>;
}

/**
 * A document's verbs, at `/:db/:docid` and its `_local/` and `_design/` forms. In a users
 * database, form uploads are for its DB admins only.
 */
const DOCUMENT = {
  DELETE: 'documents#destroy',
  GET: 'documents#show',
  HEAD: true,
  POST: ['documents#formUpload', 'member'],
  PUT: 'documents#update',
  COPY: 'documents#copy',
} as const;
const ATTACHMENT = {
  DELETE: 'attachments#destroy',
  GET: 'attachments#show',
  HEAD: true,
  PUT: 'attachments#update',
} as const;

/** The server's own endpoints. */
const SERVER = [
  endpoint('/', { GET: 'server#welcome', HEAD: true }),
  endpoint('/_up', { GET: 'server#up', HEAD: true }),
  endpoint('/_uuids', { GET: 'server#uuids' }),
  endpoint('/_all_dbs', { GET: 'server#allDbs', HEAD: true }),
  endpoint('/_dbs_info', { GET: 'server#dbsInfo', HEAD: true, POST: 'server#dbsInfoOf' }),
  endpoint('/_session', { GET: 'session#show', HEAD: true, POST: 'session#create', DELETE: 'session#destroy' }),
  endpoint('/_active_tasks', { GET: 'views#activeTasks' }),
  // Fauxton, and the cluster and scheduler endpoints it reads, as a single CouchDB node has them.
  endpoint('/_utils', { GET: 'fauxton#index', HEAD: true }),
  endpoint('/_utils/*rest', { GET: 'fauxton#file', HEAD: true }),
  endpoint('/_membership', { GET: 'node#membership' }),
  endpoint('/_node/:node', { GET: 'node#name' }),
  endpoint('/_cluster_setup', { GET: 'node#clusterSetup' }),
  endpoint('/_scheduler/jobs', { GET: 'scheduler#jobs' }),
  endpoint('/_scheduler/jobs/:docid', { GET: 'scheduler#job' }),
  endpoint('/_scheduler/docs', { GET: 'scheduler#docs' }),
  // `:replicator`, not `:db`: these read no database, so dispatch does not open or authorize one.
  endpoint('/_scheduler/docs/:replicator', { GET: 'scheduler#docs' }),
  endpoint('/_scheduler/docs/:replicator/:docid', { GET: 'scheduler#doc' }),
  endpoint('/_scheduler/docs/*rest', { GET: 'scheduler#docPath' }),
  answer('/_scheduler/*rest', 'notFound'),
  // Server-side replication (src/replication/): a one-shot answers when done, a continuous job 202.
  endpoint('/_replicate', { POST: 'scheduler#replicate' }),

  // The server's other reserved names, each answered for itself (never read as a database name).
  endpoint('/_db_updates', { GET: 'db_updates#index' }),
  notImplemented('/_reshard', 'Resharding (`/_reshard`)', 'server-admin'),
  notImplemented('/_reshard/*rest', 'Resharding (`/_reshard`)', 'server-admin'),
  // Server admins only whatever the verb (CouchDB authorizes the path first), then POST only.
  everyVerb('/_reload_query_servers', 'node#reloadQueryServers', 'POST'),
  endpoint('/_search_analyze', { POST: 'search#analyze' }),
  endpoint('/_nouveau_analyze', { POST: 'nouveau#analyze' }),
  // CouchDB 1.x endpoints that moved under `/_node/{node}/` in 2.0.
  ...['_config', '_stats', '_log', '_restart'].flatMap((name) => [
    answer(`/${name}`, 'moved', { name }),
    answer(`/${name}/*rest`, 'moved', { name }),
  ]),
];

/**
 * Design-document functions: a show answers any verb (a form may post to it); an update's GET is
 * refused by couchjs itself (405 `Update functions do not allow GET`); a rewrite passes every verb on.
 */
const SHOW = {
  GET: 'design_functions#show',
  HEAD: true,
  POST: 'design_functions#show',
  PUT: 'design_functions#show',
} as const;
/** In CouchDB's order for its `Allow` header (chttpd_show: "GET,POST,HEAD"). */
const LIST = { GET: 'design_functions#list', POST: 'design_functions#list', HEAD: true } as const;
const UPDATE = {
  GET: 'design_functions#update',
  POST: 'design_functions#update',
  PUT: 'design_functions#update',
  DELETE: 'design_functions#update',
} as const;
const REWRITE = {
  GET: 'design_functions#rewrite',
  HEAD: true,
  POST: 'design_functions#rewrite',
  PUT: 'design_functions#rewrite',
  DELETE: 'design_functions#rewrite',
  COPY: 'design_functions#rewrite',
} as const;

/** Every endpoint of one database, at `/:db/...` (also under `/_node/:node/`, the node-local API). */
const DATABASE = [
  // CouchDB creates a database before its database endpoint, whose `Allow` leaves PUT out.
  unlisted('put', '/:db', 'databases#create', 'none'),
  endpoint(
    '/:db',
    { DELETE: ['databases#destroy', 'none'], GET: 'databases#show', HEAD: true, POST: 'documents#create' },
    'member-own-doc',
  ),
  endpoint('/:db/_all_docs', { GET: 'all_docs#index', HEAD: true, POST: ['all_docs#query', 'feed'] }, 'feed-ids'),
  endpoint('/:db/_all_docs/queries', { POST: 'all_docs#queries' }, 'feed'),
  endpoint('/:db/_design_docs', { GET: 'design_docs#index', HEAD: true, POST: 'design_docs#query' }, 'member'),
  endpoint('/:db/_design_docs/queries', { POST: 'design_docs#queries' }, 'member'),
  endpoint('/:db/_local_docs', { GET: 'local_docs#index', HEAD: true, POST: 'local_docs#query' }, 'member'),
  endpoint('/:db/_local_docs/queries', { POST: 'local_docs#queries' }, 'member'),
  endpoint('/:db/_changes', { GET: 'changes#index', POST: ['changes#query', 'feed'], HEAD: true }, 'feed-ids'),
  endpoint('/:db/_bulk_docs', { POST: 'bulk#docs' }, 'member-own-doc'),
  endpoint('/:db/_bulk_get', { POST: 'bulk#get' }, 'member'),
  endpoint('/:db/_revs_diff', { POST: 'bulk#revsDiff' }, 'member-own-doc'),
  endpoint('/:db/_missing_revs', { POST: 'bulk#missingRevs' }, 'member-own-doc'),
  endpoint('/:db/_ensure_full_commit', { POST: 'databases#ensureFullCommit' }, 'member-own-doc'),
  endpoint('/:db/_revs_limit', { GET: 'databases#revsLimit', PUT: ['databases#setRevsLimit', 'db-admin'] }, 'member'),
  endpoint(
    '/:db/_security',
    { GET: 'databases#security', PUT: ['databases#setSecurity', 'db-admin'] },
    'member-own-doc',
  ),
  endpoint('/:db/_compact', { POST: 'maintenance#compact' }, 'db-admin-maintenance'),
  endpoint('/:db/_compact/:docid', { POST: 'maintenance#compactViews' }, 'db-admin-maintenance'),
  endpoint('/:db/_purge', { POST: 'maintenance#purge' }, 'server-admin'),
  endpoint('/:db/_purged_infos', { GET: 'maintenance#purgedInfos' }, 'member'),
  endpoint(
    '/:db/_purged_infos_limit',
    { GET: 'maintenance#purgedInfosLimit', PUT: ['maintenance#setPurgedInfosLimit', 'db-admin'] },
    'member',
  ),
  endpoint('/:db/_view_cleanup', { POST: 'views#cleanup' }, 'db-admin-maintenance'),
  // Mango and the rest of a database's reserved names: each its own route, so none falls through
  // to the document routes below (a POST to `/db/_find` is not a form upload).
  endpoint('/:db/_find', { POST: 'mango#find' }, 'member'),
  endpoint('/:db/_find/*rest', { POST: 'mango#find' }, 'member'),
  endpoint('/:db/_explain', { POST: 'mango#explain' }, 'member'),
  endpoint('/:db/_explain/*rest', { POST: 'mango#explain' }, 'member'),
  endpoint('/:db/_index', { GET: 'mango#indexes', POST: ['mango#createIndex', 'db-admin'] }, 'member'),
  endpoint('/:db/_index/_bulk_delete', { POST: 'mango#bulkDeleteIndexes' }, 'db-admin'),
  endpoint('/:db/_index/_design/:ddoc/:type/:name', { DELETE: 'mango#deleteIndex' }, 'db-admin', { design: '1' }),
  endpoint('/:db/_index/:ddoc/:type/:name', { DELETE: 'mango#deleteIndex' }, 'db-admin'),
  answer('/:db/_index/*rest', 'notFound'),
  // Partitioned databases (documents/partition.ts, http/handlers/partitions.ts).
  endpoint('/:db/_partition', PARTITION_ANY('partitions#invalid'), 'member'),
  unlisted('post', '/:db/_partition/:partition', 'partitions#infoPost', 'member'),
  endpoint('/:db/_partition/:partition', { GET: 'partitions#info' }, 'member'),
  endpoint(
    '/:db/_partition/:partition/_all_docs',
    { GET: 'partitions#allDocs', HEAD: true, POST: ['partitions#allDocsQuery', 'feed'] },
    'feed-ids',
  ),
  endpoint('/:db/_partition/:partition/_all_docs/queries', { POST: 'partitions#allDocsQueries' }, 'feed'),
  endpoint(
    '/:db/_partition/:partition/_design/:docid/_view/:view',
    { GET: 'partitions#view', POST: 'partitions#viewQuery', HEAD: true },
    'member',
  ),
  endpoint(
    '/:db/_partition/:partition/_design/:docid/_view/:view/queries',
    { POST: 'partitions#viewQueries' },
    'member',
  ),
  endpoint(
    '/:db/_partition/:partition/_design/:docid/_search/:index',
    { GET: 'partitions#search', POST: 'partitions#search' },
    'member',
  ),
  endpoint(
    '/:db/_partition/:partition/_design/:docid/_nouveau/:index',
    { GET: 'partitions#nouveau', POST: 'partitions#nouveau' },
    'member',
  ),
  endpoint('/:db/_partition/:partition/_find', { POST: 'partitions#find' }, 'member'),
  endpoint('/:db/_partition/:partition/_explain', { POST: 'partitions#explain' }, 'member'),
  endpoint('/:db/_partition/:partition/*rest', PARTITION_ANY('partitions#other'), 'member'),
  notImplemented('/:db/_shards', 'Shard maps (`_shards`)', 'member'),
  notImplemented('/:db/_shards/*rest', 'Shard maps (`_shards`)', 'member'),
  notImplemented('/:db/_sync_shards', 'Shard maps (`_sync_shards`)', 'server-admin'),
  // Temporary views were removed in CouchDB 2.0: 410, as CouchDB answers.
  answer('/:db/_temp_view', 'tempViewGone', {}, 'member'),
  endpoint('/:db/_search_cleanup', { POST: 'search#cleanup' }, 'db-admin'),
  endpoint('/:db/_nouveau_cleanup', { POST: 'nouveau#cleanup' }, 'db-admin'),

  endpoint('/:db/_local/:docid', DOCUMENT, 'member-own-doc', { prefix: '_local/' }),
  endpoint('/:db/_design/:docid', DOCUMENT, 'member-own-doc', { prefix: '_design/' }),
  endpoint('/:db/_design/:docid/_view/:view', { GET: 'views#show', POST: 'views#query', HEAD: true }, 'member'),
  endpoint('/:db/_design/:docid/_view/:view/queries', { POST: 'views#queries' }, 'member'),
  endpoint('/:db/_design/:docid/_info', { GET: 'views#info' }, 'member'),
  endpoint('/:db/_design/:docid/_show/:func', SHOW, 'member'),
  endpoint('/:db/_design/:docid/_show/:func/*rest', SHOW, 'member'),
  endpoint('/:db/_design/:docid/_list/:func/:view', LIST, 'member'),
  endpoint('/:db/_design/:docid/_list/:func/:viewddoc/:view', LIST, 'member'),
  endpoint('/:db/_design/:docid/_update/:func', UPDATE, 'member-own-doc'),
  endpoint('/:db/_design/:docid/_update/:func/*rest', UPDATE, 'member-own-doc'),
  endpoint('/:db/_design/:docid/_rewrite', REWRITE, 'member'),
  endpoint('/:db/_design/:docid/_rewrite/*rest', REWRITE, 'member'),
  // Full-text search (src/search/): `_search` and `_search_info` of an index.
  endpoint('/:db/_design/:docid/_search/:index', { GET: 'search#query', POST: 'search#query' }, 'member'),
  endpoint('/:db/_design/:docid/_search_info/:index', { GET: 'search#info' }, 'member'),
  // Nouveau (src/search/nouveau*.ts): a Nouveau index is a search index with typed fields.
  endpoint('/:db/_design/:docid/_nouveau/:index', { GET: 'nouveau#query', POST: 'nouveau#query' }, 'member'),
  endpoint('/:db/_design/:docid/_nouveau_info/:index', { GET: 'nouveau#info' }, 'member'),
  // Any other `_name` under a design document: no attachment name starts with `_`, so each is
  // answered as an endpoint, naming it.
  answer('/:db/_design/:docid/:fn', 'designEndpoint', {}, 'member'),
  answer('/:db/_design/:docid/:fn/*rest', 'designEndpoint', {}, 'member'),
  endpoint('/:db/_design/:docid/*attachment', ATTACHMENT, 'member-own-doc', { prefix: '_design/' }),
  endpoint('/:db/_local/:docid/*attachment', ATTACHMENT, 'member-own-doc', { prefix: '_local/' }),
  endpoint('/:db/:docid', DOCUMENT, 'member-own-doc'),
  endpoint('/:db/:docid/*attachment', ATTACHMENT, 'member-own-doc'),
];

/** The node-local API, `/_node/{node}/...`: this node's own endpoints (and its databases, declared after). */
const NODE = [
  endpoint('/_all_dbs', { GET: 'server#allDbs', HEAD: true }),
  endpoint('/_config', { GET: 'config#all', HEAD: true }),
  endpoint('/_config/_reload', { POST: 'config#reload' }),
  endpoint('/_config/:section', { GET: 'config#section', HEAD: true }),
  endpoint('/_config/:section/:key', {
    DELETE: 'config#destroy',
    GET: 'config#show',
    HEAD: true,
    PUT: 'config#update',
  }),
  answer('/_config/*rest', 'notFound'),
  endpoint('/_stats', { GET: 'node#stats' }),
  endpoint('/_stats/*rest', { GET: 'node#stats' }),
  endpoint('/_system', { GET: 'node#system' }),
  endpoint('/_prometheus', { GET: 'node#prometheus' }),
  endpoint('/_versions', { GET: 'node#versions' }),
  endpoint('/_restart', { POST: 'node#restart' }),
  endpoint('/_smoosh/status', { GET: 'node#smooshStatus' }),
  answer('/_smoosh/*rest', 'notFound'),
];

export const routes = draw((r) =>
  r.scope({ format: false, constraints: CONSTRAINTS }, (r) =>
    declare(r, [...SERVER, ...DATABASE]).scope('/_node/:node', (r) => declare(r, [...NODE, ...DATABASE])),
  ),
);

/** The routes of the API, as the router's types know them (the handler table is checked against these). */
export type ApiRoutes = typeof routes extends RouteSet<infer R> ? R : never;

/** The route table for `divan-routes packages/db/dist/src/http/routes.js`. */
export default routes;
