// Route sets, requests and the reference matcher of the benchmark.
//
// Every route is written once in a canonical form, `{ method, path }` with `:name` for a
// segment param and `*path` for a trailing glob; adapters.mjs translates it to each router's
// syntax. A route's identity is its key, `"GET /res0/:id"`: what every adapter must hand back
// (with the params) for the answers to count as right.

/** Rails 6.1 `resources` output for a plural name under `prefix`, in Rails order. */
function resourceRoutes(prefix, name) {
  const base = `${prefix}/${name}`;
  return [
    ['GET', base, 'index'],
    ['POST', base, 'create'],
    ['GET', `${base}/new`, 'new'],
    ['GET', `${base}/:id/edit`, 'edit'],
    ['GET', `${base}/:id`, 'show'],
    ['PATCH', `${base}/:id`, 'update'],
    ['PUT', `${base}/:id`, 'update'],
    ['DELETE', `${base}/:id`, 'destroy'],
  ].map(([method, path, action]) => ({ method, path, handler: name, action }));
}

/**
 * The Rails-shaped set: `top` resources `resN`, each with `nested` resources `subM`.
 * Rails names the parent param after the singular of the parent (`posts` -> `:post_id`);
 * `res0` has no plural ending, so it stays `res0` -> `:res0_id` (what our list() must give too).
 * Order is Rails' own: the block (nested resources) is drawn before the parent's routes.
 */
export function railsRoutes(top = 40, nested = 4) {
  const routes = [];
  for (let i = 0; i < top; i++) {
    const parent = `res${i}`;
    for (let m = 0; m < nested; m++) routes.push(...resourceRoutes(`/${parent}/:${parent}_id`, `sub${m}`));
    routes.push(...resourceRoutes('', parent));
  }
  return routes;
}

/** Declares the same set with our DSL (`r` is the mapper given by `draw`). */
export function drawRails(r, top = 40, nested = 4) {
  for (let i = 0; i < top; i++) {
    r.resources(`res${i}`, (r) => {
      for (let m = 0; m < nested; m++) r.resources(`sub${m}`);
    });
  }
}

/** 40 x (1 + 4) resources x 8 routes = 1,600 routes. */
export const RAILS = {
  name: 'rails',
  title: 'Rails-shaped set: 200 resources x 8 routes = 1,600 routes (lookups/s)',
  routes: railsRoutes(40, 4),
  draw: (r) => drawRails(r, 40, 4),
  cases: [
    { name: 'index (first)', method: 'GET', path: '/res0' },
    { name: 'create', method: 'POST', path: '/res30' },
    { name: 'new', method: 'GET', path: '/res10/new' },
    { name: 'show (middle)', method: 'GET', path: '/res20/123' },
    { name: 'update', method: 'PATCH', path: '/res5/42' },
    { name: 'edit (last)', method: 'GET', path: '/res39/123/edit' },
    { name: 'nested index (first)', method: 'GET', path: '/res0/1/sub0' },
    { name: 'nested show', method: 'GET', path: '/res20/7/sub2/99' },
    { name: 'nested edit (last)', method: 'GET', path: '/res39/5/sub3/8/edit' },
    { name: 'nested destroy (last)', method: 'DELETE', path: '/res39/5/sub3/8' },
    { name: 'not found', method: 'GET', path: '/res20/7/sub9', miss: true },
  ],
  // The headline: the 10 hits in a row, one loop iteration = 10 lookups.
  mix: { name: 'resource mix', of: (c) => !c.miss },
};

/**
 * The classic 12-route set of delvedor/router-benchmark and Hono's benchmarks/routers.
 * Ours is declared with `format: false` so the paths mean the same as the peers'.
 */
export const CLASSIC = {
  name: 'classic',
  title: 'Classic router-benchmark set: 12 routes (lookups/s)',
  routes: [
    { method: 'GET', path: '/user' },
    { method: 'GET', path: '/user/comments' },
    { method: 'GET', path: '/user/avatar' },
    { method: 'GET', path: '/user/lookup/username/:username' },
    { method: 'GET', path: '/user/lookup/email/:address' },
    { method: 'GET', path: '/event/:id' },
    { method: 'GET', path: '/event/:id/comments' },
    { method: 'POST', path: '/event/:id/comment' },
    { method: 'GET', path: '/map/:location/events' },
    { method: 'GET', path: '/status' },
    { method: 'GET', path: '/very/deeply/nested/route/hello/there' },
    { method: 'GET', path: '/static/*path' },
  ].map((route, i) => ({ ...route, handler: 'classic', action: `r${i}` })),
  draw(r) {
    for (const route of CLASSIC.routes) {
      r[route.method.toLowerCase()](route.path, { to: `${route.handler}#${route.action}`, format: false });
    }
  },
  cases: [
    { name: 'short static', method: 'GET', path: '/user' },
    { name: 'static with same radix', method: 'GET', path: '/user/comments' },
    { name: 'dynamic route', method: 'GET', path: '/user/lookup/username/hey' },
    { name: 'mixed static dynamic', method: 'GET', path: '/event/abcd1234/comments' },
    { name: 'long static', method: 'GET', path: '/very/deeply/nested/route/hello/there' },
    { name: 'wildcard', method: 'GET', path: '/static/index.html' },
  ],
  mix: { name: 'all together', of: () => true },
};

/** The verbs a CouchDB-shaped endpoint answers 405 for when it does not take them. */
const COUCH_VERBS = ['GET', 'PUT', 'POST', 'DELETE'];

/** A database's endpoints, as @divan/db declares them (packages/db/src/http/routes.ts), with their verbs. */
const COUCH_DATABASE = [
  ['/:db', ['DELETE', 'GET', 'POST']],
  ['/:db/_all_docs', ['GET', 'POST']],
  ['/:db/_all_docs/queries', ['POST']],
  ['/:db/_design_docs', ['GET', 'POST']],
  ['/:db/_design_docs/queries', ['POST']],
  ['/:db/_local_docs', ['GET', 'POST']],
  ['/:db/_local_docs/queries', ['POST']],
  ['/:db/_changes', ['GET', 'POST']],
  ['/:db/_bulk_docs', ['POST']],
  ['/:db/_bulk_get', ['POST']],
  ['/:db/_revs_diff', ['POST']],
  ['/:db/_missing_revs', ['POST']],
  ['/:db/_ensure_full_commit', ['POST']],
  ['/:db/_revs_limit', ['GET', 'PUT']],
  ['/:db/_security', ['GET', 'PUT']],
  ['/:db/_compact', ['POST']],
  ['/:db/_compact/:docid', ['POST']],
  ['/:db/_purge', ['POST']],
  ['/:db/_purged_infos', ['GET']],
  ['/:db/_purged_infos_limit', ['GET', 'PUT']],
  ['/:db/_view_cleanup', ['POST']],
  ['/:db/_find', ['POST']],
  ['/:db/_find/*rest', ['POST']],
  ['/:db/_explain', ['POST']],
  ['/:db/_explain/*rest', ['POST']],
  ['/:db/_index', ['GET', 'POST']],
  ['/:db/_index/_bulk_delete', ['POST']],
  ['/:db/_index/_design/:ddoc/:type/:name', ['DELETE']],
  ['/:db/_index/:ddoc/:type/:name', ['DELETE']],
  ['/:db/_partition', ['GET', 'POST', 'PUT', 'DELETE']],
  ['/:db/_partition/:partition', ['GET', 'POST']],
  ['/:db/_partition/:partition/_all_docs', ['GET', 'POST']],
  ['/:db/_partition/:partition/_design/:docid/_view/:view', ['GET', 'POST']],
  ['/:db/_partition/:partition/_find', ['POST']],
  ['/:db/_partition/:partition/_explain', ['POST']],
  ['/:db/_partition/:partition/*rest', ['GET', 'POST', 'PUT', 'DELETE']],
  ['/:db/_shards', ['GET', 'POST', 'PUT', 'DELETE']],
  ['/:db/_temp_view', ['GET', 'POST', 'PUT', 'DELETE']],
  ['/:db/_search_cleanup', ['POST']],
  ['/:db/_local/:docid', ['DELETE', 'GET', 'POST', 'PUT']],
  ['/:db/_design/:docid', ['DELETE', 'GET', 'POST', 'PUT']],
  ['/:db/_design/:docid/_view/:view', ['GET', 'POST']],
  ['/:db/_design/:docid/_view/:view/queries', ['POST']],
  ['/:db/_design/:docid/_info', ['GET']],
  ['/:db/_design/:docid/_show/:func', ['GET', 'POST', 'PUT']],
  ['/:db/_design/:docid/_list/:func/:view', ['GET', 'POST']],
  ['/:db/_design/:docid/_update/:func', ['GET', 'POST', 'PUT', 'DELETE']],
  ['/:db/_design/:docid/_rewrite/*rest', ['GET', 'POST', 'PUT', 'DELETE']],
  ['/:db/_design/:docid/_search/:index', ['GET', 'POST']],
  ['/:db/_design/:docid/_nouveau/:index', ['GET', 'POST']],
  ['/:db/_design/:docid/*attachment', ['DELETE', 'GET', 'PUT']],
  ['/:db/_local/:docid/*attachment', ['DELETE', 'GET', 'PUT']],
  ['/:db/:docid', ['DELETE', 'GET', 'POST', 'PUT']],
  ['/:db/:docid/*attachment', ['DELETE', 'GET', 'PUT']],
];

/** The server's own endpoints, before the databases'. */
const COUCH_SERVER = [
  ['/_up', ['GET']],
  ['/_uuids', ['GET']],
  ['/_all_dbs', ['GET']],
  ['/_session', ['GET', 'POST', 'DELETE']],
  ['/_active_tasks', ['GET']],
  ['/_utils/*rest', ['GET']],
  ['/_scheduler/jobs', ['GET']],
  ['/_replicate', ['POST']],
];

/**
 * Each endpoint's verbs, then a route per other verb (its 405 answer, as @divan/db declares a
 * catch-all): at the root, then again under `/_node/:node` (the node-local API).
 */
function couchRoutes() {
  const routes = [];
  const endpoints = (prefix, list) => {
    for (const [path, verbs] of list) {
      const full = `${prefix}${path}`;
      for (const method of verbs) routes.push({ method, path: full, handler: 'couch', action: method.toLowerCase() });
      for (const method of COUCH_VERBS)
        if (!verbs.includes(method)) routes.push({ method, path: full, handler: 'errors', action: 'methodNotAllowed' });
    }
  };
  // Creating a database comes first, outside its endpoint (whose `Allow` leaves PUT out).
  routes.push({ method: 'PUT', path: '/:db', handler: 'databases', action: 'create' });
  endpoints('', [...COUCH_SERVER, ...COUCH_DATABASE]);
  endpoints('/_node/:node', [['/_stats', ['GET']], ...COUCH_DATABASE]);
  return routes;
}

/**
 * Every param constrained, as @divan/db's are: a database name is any segment but `_node`.
 * (The cases below avoid the paths where that or `:fn` would part from the reference's plain segments.)
 */
const COUCH_CONSTRAINTS = {
  db: /(?!_node(?![^/]))[^/]+/,
  docid: /[^/]+/,
  view: /[^/]+/,
  node: /[^/]+/,
  func: /[^/]+/,
  partition: /[^/]+/,
  index: /[^/]+/,
  ddoc: /[^/]+/,
  type: /[^/]+/,
  name: /[^/]+/,
};

/** ~400 routes shaped like @divan/db's HTTP API, every param constrained (the write path's router cost). */
export const COUCH = {
  name: 'couch',
  title: 'CouchDB-shaped set: @divan/db-like API, ~400 routes, every param constrained (lookups/s)',
  routes: couchRoutes(),
  draw(r) {
    r.scope({ format: false, constraints: COUCH_CONSTRAINTS }, (r) => {
      for (const route of COUCH.routes)
        r.match(route.path, { to: `${route.handler}#${route.action}`, via: route.method.toLowerCase() });
    });
  },
  cases: [
    { name: 'PUT doc', method: 'PUT', path: '/db/doc123' },
    { name: 'GET doc', method: 'GET', path: '/db/doc123' },
    { name: 'GET _all_docs', method: 'GET', path: '/db/_all_docs' },
    { name: 'POST _bulk_docs', method: 'POST', path: '/db/_bulk_docs' },
    { name: 'GET view', method: 'GET', path: '/db/_design/app/_view/by_type' },
    { name: 'PUT attachment', method: 'PUT', path: '/db/doc123/photo.jpg' },
    { name: 'PUT design doc', method: 'PUT', path: '/db/_design/app' },
    { name: 'GET _changes', method: 'GET', path: '/db/_changes' },
    { name: 'not found', method: 'PATCH', path: '/db/doc123', miss: true },
  ],
  mix: { name: 'couch mix', of: (c) => !c.miss },
};

/** Registration: 10,000 routes in the Rails shape (250 top x 5 resources x 8). */
export const BUILD = {
  name: 'build',
  title: 'Declare + compile 10,000 Rails-shaped routes (cold process: register + first lookup)',
  // Built in the child before the clock starts (paths and handlers are the caller's data).
  makeRoutes: () => railsRoutes(250, 4),
  draw: (r) => drawRails(r, 250, 4),
  // The first lookup: the last route declared (a full scan for a linear matcher).
  probe: { method: 'DELETE', path: '/res249/77' },
};

/** URL generation: the nested member edit route `/res5/:res5_id/sub2/:id/edit`. */
export const GENERATE = {
  name: 'generate',
  title: 'URL generation, nested member edit /res5/:res5_id/sub2/:id/edit (paths/s)',
  pattern: '/res5/:res5_id/sub2/:id/edit',
  // Ours generates from the 1,600-route Rails-shaped set above.
  draw: (r) => drawRails(r, 40, 4),
  // Values every generator must encode alike (no sub-delims, where Rails' segment escaping
  // and encodeURIComponent differ, and no dots, which the default segment pattern refuses).
  cases: [
    {
      name: 'numeric ids',
      args: [
        [1, 2],
        [42, 7],
        [1234, 99999],
        [3, 512],
        [10, 20],
        [8, 80],
        [77, 5],
        [600, 1],
      ],
    },
    {
      name: 'string ids',
      args: [
        ['1', '2'],
        ['abc', 'user-7'],
        ['42', 'x_y'],
        ['Z9', '0001'],
        ['slug-a', 'b'],
        ['q', 'r'],
        ['id10', 'id11'],
        ['m', 'nn'],
      ],
    },
    {
      name: 'needs percent-encoding',
      args: [
        ['a b', 'ü'],
        ['x/y', '50%'],
        ['é', 'c d'],
        ['1', 'ä/ö'],
        ['q?', 'r#'],
        ['日本', '2'],
        ['a b', 'c'],
        ['%', ' '],
      ],
    },
  ],
  expected: (a, b) => `/res5/${encodeURIComponent(a)}/sub2/${encodeURIComponent(b)}/edit`,
};

export const SUITES = { rails: RAILS, classic: CLASSIC, couch: COUCH, build: BUILD, generate: GENERATE };

export const keyOf = (method, path) => `${method} ${path}`;

/**
 * The reference: first match in declaration order, one segment per `:name` (non-empty, no
 * `/`), `*name` for the rest of the path. Returns `{ key, params }` or null.
 */
export function referenceMatch(routes, method, path) {
  const parts = path.split('/');
  for (const route of routes) {
    if (route.method !== method) continue;
    const pattern = route.path.split('/');
    const params = {};
    let ok = true;
    for (let i = 0; ok && i < pattern.length; i++) {
      const seg = pattern[i];
      if (seg.startsWith('*')) {
        if (i >= parts.length) ok = false;
        else params[seg.slice(1)] = parts.slice(i).join('/');
        break;
      }
      if (i >= parts.length) ok = false;
      else if (seg.startsWith(':')) {
        if (parts[i] === '') ok = false;
        else params[seg.slice(1)] = decodeURIComponent(parts[i]);
      } else if (seg !== parts[i]) ok = false;
      if (ok && i === pattern.length - 1 && parts.length !== pattern.length) ok = false;
    }
    if (ok) return { key: keyOf(route.method, route.path), params };
  }
  return null;
}

/** A comparable form of an answer: params as sorted string pairs, undefined ones dropped. */
export function normalizeAnswer(answer) {
  if (answer == null) return 'null';
  const params = answer.params ?? {};
  const pairs = Object.keys(params)
    .filter((k) => params[k] !== undefined)
    .sort()
    .map((k) => `${k}=${String(params[k])}`);
  return `${answer.key} {${pairs.join(', ')}}`;
}
