// One adapter per router. An adapter declares a route set in its router's own syntax and says,
// as code, how one request is looked up: `prelude` runs once in the generated benchmark
// function (binding `ctx`, what `build` returned), `call(M, P)` is the lookup expression.
// Each lookup does what a framework needs per request: handler + params, nullish on a miss.
// `answer` gives `{ key, params }` (see routes.mjs) for the check against the reference.

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { keyOf } from './routes.mjs';

// BENCH_DIVAN_DIST=/path/to/index.js benchmarks another build of ours (a baseline, a branch).
export const OURS_DIST = process.env.BENCH_DIVAN_DIST
  ? resolve(process.env.BENCH_DIVAN_DIST)
  : fileURLToPath(new URL('../dist/src/index.js', import.meta.url));

// BENCH_DIVAN_BASE_DIST=/path/to/index.js adds `divan-base`: another build of ours run beside this
// one in the same rounds (an A/B, say against the build before a change).
export const BASE_DIST = process.env.BENCH_DIVAN_BASE_DIST ? resolve(process.env.BENCH_DIVAN_BASE_DIST) : null;

const withGlob = (params, from) => {
  if (params == null || !(from in params)) return params;
  const { [from]: glob, ...rest } = params;
  return { ...rest, path: glob };
};

// --- lookups ---------------------------------------------------------------------------------

export const ROUTERS = {
  divan: {
    label: '@divan/router',
    async load() {
      if (!existsSync(OURS_DIST)) throw new Error('not built (packages/router/dist/src/index.js missing)');
      const mod = await import(pathToFileURL(OURS_DIST).href);
      if (typeof mod.draw !== 'function') throw new Error('dist/src/index.js does not export draw yet');
      return mod;
    },
    build(mod, set) {
      const routes = mod.draw((r) => set.draw(r));
      return { routes };
    },
    prelude: 'const routes = ctx.routes;',
    call: (M, P) => `routes.recognize(${M}, ${P})`,
    answer(ctx, method, path) {
      const m = ctx.routes.recognize(method, path);
      if (m == null) return null;
      return { key: ourKey(m.route), params: m.params };
    },
    /** Our list() against the canonical set: the first difference, or null. */
    listDiff(ctx, set) {
      const ours = ctx.routes.list().map(ourKey);
      const want = set.routes.map((r) => keyOf(r.method, r.path));
      for (let i = 0; i < Math.max(ours.length, want.length); i++) {
        if (ours[i] !== want[i]) {
          return `route #${i}: ours ${ours[i] ?? '(none)'}, expected ${want[i] ?? '(none)'} (${ours.length} routes, expected ${want.length})`;
        }
      }
      return null;
    },
  },

  'find-my-way': {
    label: 'find-my-way',
    async load() {
      return (await import('find-my-way')).default;
    },
    build(FindMyWay, set, handlers) {
      const router = FindMyWay();
      set.routes.forEach((r, i) => {
        router.on(r.method, r.path.replace(/\*\w+$/, '*'), handlers[i], keyOf(r.method, r.path));
      });
      return { router };
    },
    prelude: 'const router = ctx.router;',
    call: (M, P) => `router.find(${M}, ${P})`,
    answer(ctx, method, path) {
      const m = ctx.router.find(method, path);
      return m && { key: m.store, params: withGlob(m.params, '*') };
    },
  },

  memoirist: {
    label: 'memoirist',
    async load() {
      return (await import('memoirist')).Memoirist;
    },
    build(Memoirist, set, handlers) {
      const router = new Memoirist();
      set.routes.forEach((r, i) => {
        router.add(r.method, r.path.replace(/\*\w+$/, '*'), { handler: handlers[i], key: keyOf(r.method, r.path) });
      });
      return { router };
    },
    prelude: 'const router = ctx.router;',
    call: (M, P) => `router.find(${M}, ${P})`,
    answer(ctx, method, path) {
      const m = ctx.router.find(method, path);
      return m && { key: m.store.key, params: withGlob(m.params, '*') };
    },
  },

  rou3: {
    label: 'rou3',
    async load() {
      return await import('rou3');
    },
    build({ createRouter, addRoute, findRoute }, set, handlers) {
      const router = createRouter();
      set.routes.forEach((r, i) => {
        addRoute(router, r.method, r.path.replace(/\*(\w+)$/, '**:$1'), {
          handler: handlers[i],
          key: keyOf(r.method, r.path),
        });
      });
      return { router, findRoute };
    },
    prelude: 'const router = ctx.router, findRoute = ctx.findRoute;',
    call: (M, P) => `findRoute(router, ${M}, ${P})`,
    answer(ctx, method, path) {
      const m = ctx.findRoute(ctx.router, method, path);
      return m ? { key: m.data.key, params: m.params } : null;
    },
  },

  'rou3 compiled': {
    label: 'rou3 compiled',
    async load() {
      return { ...(await import('rou3')), ...(await import('rou3/compiler')) };
    },
    build({ createRouter, addRoute, compileRouter }, set, handlers) {
      const router = createRouter();
      set.routes.forEach((r, i) => {
        addRoute(router, r.method, r.path.replace(/\*(\w+)$/, '**:$1'), {
          handler: handlers[i],
          key: keyOf(r.method, r.path),
        });
      });
      return { match: compileRouter(router) };
    },
    prelude: 'const match = ctx.match;',
    call: (M, P) => `match(${M}, ${P})`,
    answer(ctx, method, path) {
      const m = ctx.match(method, path);
      return m ? { key: m.data.key, params: m.params } : null;
    },
  },
  // Hono's RegExpRouter, from the repository's own hono (a dev dependency of the package, for the
  // adapter), not from bench/package.json. It refuses a set where one position holds params of
  // different names (`/res0/:id`, `/res0/:res0_id/sub0`: the Rails-shaped set), as Hono's
  // SmartRouter does before falling back to its TrieRouter; the run reports that as its error.
  'hono RegExpRouter': {
    label: "Hono's RegExpRouter",
    async load() {
      return (await import('hono/router/reg-exp-router')).RegExpRouter;
    },
    build(RegExpRouter, set, handlers) {
      const router = new RegExpRouter();
      set.routes.forEach((r, i) => {
        // A final glob as a param taking slashes: Hono's `*` captures nothing.
        router.add(r.method, r.path.replace(/\*(\w+)$/, ':$1{.+}'), {
          handler: handlers[i],
          key: keyOf(r.method, r.path),
        });
      });
      return { router };
    },
    prelude: 'const router = ctx.router;',
    // The first handler of the match (Hono runs them all in turn) with its params' indexes.
    call: (M, P) => `router.match(${M}, ${P})[0][0]`,
    answer(ctx, method, path) {
      const [handlers, stash] = ctx.router.match(method, path);
      const first = handlers[0];
      if (first === undefined) return null;
      const [store, map] = first;
      const params = {};
      for (const key in map) params[key] = stash === undefined ? map[key] : stash[map[key]];
      return { key: store.key, params };
    },
  },
};

/** `GET /posts/:post_id/comments(.:format)` -> the canonical key `GET /posts/:post_id/comments`. */
function ourKey(route) {
  return keyOf(route.verb, route.path.replace(/\(\.:format\)$/, ''));
}

if (BASE_DIST !== null) {
  ROUTERS['divan-base'] = {
    ...ROUTERS.divan,
    label: '@divan/router (base build)',
    async load() {
      const mod = await import(pathToFileURL(BASE_DIST).href);
      if (typeof mod.draw !== 'function') throw new Error(`${BASE_DIST} does not export draw`);
      return mod;
    },
  };
}

// --- URL generation --------------------------------------------------------------------------
// `call(A, B)` builds the path of the nested member edit route from two values.

/** Our route name for `/res5/:res5_id/sub2/:id/edit`, read from list() (expected: edit_res5_sub2). */
function ourEditName(routes) {
  const info = routes.list().find((r) => r.action === 'edit' && r.path.startsWith('/res5/:res5_id/sub2/:id/edit'));
  if (!info?.name) throw new Error('no named edit route for /res5/:res5_id/sub2/:id/edit in list()');
  return info.name;
}
const camelize = (name) => name.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());

async function buildOurs(set) {
  const mod = await ROUTERS.divan.load();
  const routes = mod.draw((r) => set.draw(r));
  const name = ourEditName(routes);
  return { routes, name, helperName: `${camelize(name)}Path` };
}

export const GENERATORS = {
  template: {
    label: 'template string + encodeURIComponent',
    async build() {
      return {};
    },
    prelude: '',
    call: (A, B) => `\`/res5/\${encodeURIComponent(${A})}/sub2/\${encodeURIComponent(${B})}/edit\``,
  },

  'divan helper': {
    label: '@divan/router helpers.<name>Path',
    build: buildOurs,
    describe: (ctx) => `routes.helpers.${ctx.helperName}(a, b)`,
    prelude: 'const helpers = ctx.routes.helpers;',
    // The property name is spliced in once `build` has told it (see harness.mjs).
    call: (A, B, ctx) => `helpers.${ctx.helperName}(${A}, ${B})`,
  },

  'divan path()': {
    label: '@divan/router routes.path(name, ...)',
    build: buildOurs,
    describe: (ctx) => `routes.path('${ctx.name}', a, b)`,
    prelude: 'const routes = ctx.routes, name = ctx.name;',
    call: (A, B) => `routes.path(name, ${A}, ${B})`,
  },

  'path-to-regexp': {
    label: 'path-to-regexp compile (values as strings)',
    async build(set) {
      const { compile } = await import('path-to-regexp');
      return { toPath: compile(set.pattern) };
    },
    prelude: 'const toPath = ctx.toPath;',
    // path-to-regexp only takes strings; String() of a string is a no-op.
    call: (A, B) => `toPath({ res5_id: String(${A}), id: String(${B}) })`,
  },
};
