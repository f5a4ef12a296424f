#!/usr/bin/env node
// Adapter overhead: each framework serving the same routes with its own router, and with ours
// through its adapter, in one process, requests injected in process (no sockets, so that the
// routers' share of the time is not drowned in network noise):
//   Express 5: its router (app.get) vs expressRouter        (light-my-request)
//   Fastify 5: find-my-way (app.get) vs fastifyRouter        (app.inject)
//   Hono 4:    its default router (app.on) vs honoRouter     (app.fetch)
// (Hono's RegExpRouter refuses this set: `/posts/new` beside `/posts/:id` throws
// UnsupportedPathError; its default SmartRouter then serves it with TrieRouter.)
// The routes: 24 resources with nested comments (Rails-shaped, 216 routes); the native apps
// get the same paths without the optional `(.:format)`. Rounds alternate native and adapter;
// the table prints medians of requests per CPU second and the ratio adapter / native (target:
// the adapter adds at most 10%, a ratio ≥ 0.90).
//
//   node bench/frameworks.mjs [--rounds N] [--requests N]
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import inject from 'light-my-request';
import { draw } from '../dist/src/index.js';
import { expressRouter } from '../dist/src/adapters/express.js';
import { fastifyRouter } from '../dist/src/adapters/fastify.js';
import { honoRouter } from '../dist/src/adapters/hono.js';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(args[i + 1]);
};
const ROUNDS = option('rounds', 5);
const REQUESTS = option('requests', 20000);

const NAMES = [
  'posts',
  'photos',
  'users',
  'accounts',
  'orders',
  'invoices',
  'products',
  'carts',
  'reviews',
  'tags',
  'teams',
  'projects',
  'tasks',
  'events',
  'tickets',
  'messages',
  'threads',
  'boards',
  'pages',
  'files',
  'reports',
  'payments',
  'coupons',
  'shipments',
];

const routes = draw((r) => {
  for (const name of NAMES) r.resources(name, (r) => r.resources('comments', { only: ['index', 'show'] }));
});
const list = routes.list();

/** Requests over the whole set: every resource, collection and member, GET and PATCH. */
const REQUESTS_MIX = [];
for (const name of NAMES) {
  REQUESTS_MIX.push(
    ['GET', `/${name}`],
    ['GET', `/${name}/12`],
    ['PATCH', `/${name}/12`],
    ['GET', `/${name}/3/comments/7`],
  );
}

const body = (handler, action, id) => `${handler}#${action} ${id ?? ''}`;

/** Every (handler, action) of the set, as a handler table built by `make(handler, action)`. */
function table(make) {
  const out = {};
  for (const route of list) (out[route.handler] ??= {})[route.action] = make(route.handler, route.action);
  return out;
}

/** The native path of a route (Express, Fastify and Hono all read `:param`). */
const nativePath = (path) => path.replace('(.:format)', '');

async function expressApps() {
  const native = express();
  for (const route of list) {
    const { handler, action } = route;
    for (const verb of route.verb.split('|'))
      native[verb.toLowerCase()](nativePath(route.path), (req, res) => res.send(body(handler, action, req.params.id)));
  }
  const ours = express();
  ours.use(
    expressRouter(
      routes,
      table((h, a) => (req, res) => res.send(body(h, a, req.params.id))),
    ),
  );
  const run = (app) => async (method, url) => (await inject(app, { method, url })).statusCode;
  return { native: run(native), adapter: run(ours) };
}

async function fastifyApps() {
  const native = Fastify();
  for (const route of list) {
    const { handler, action } = route;
    native.route({
      method: route.verb.split('|'),
      url: nativePath(route.path),
      handler: async (request) => body(handler, action, request.params.id),
    });
  }
  const ours = Fastify();
  await ours.register(
    fastifyRouter(
      routes,
      table((h, a) => async (request) => body(h, a, request.params.id)),
    ),
  );
  await native.ready();
  await ours.ready();
  const run = (app) => async (method, url) => (await app.inject({ method, url })).statusCode;
  return { native: run(native), adapter: run(ours) };
}

async function honoApps() {
  const native = new Hono();
  for (const route of list) {
    const { handler, action } = route;
    for (const verb of route.verb.split('|'))
      native.on(verb, nativePath(route.path), (c) => c.text(body(handler, action, c.req.param('id'))));
  }
  const ours = new Hono();
  ours.use(
    honoRouter(
      routes,
      table((h, a) => (c) => c.text(body(h, a, c.get('params').id))),
    ),
  );
  const run = (app) => async (method, url) =>
    (await app.fetch(new Request(`http://localhost${url}`, { method }))).status;
  return { native: run(native), adapter: run(ours) };
}

/**
 * Requests per second of `n` requests of the mix, sequential, per second of this process's CPU
 * time (user + system): on a shared machine, wall time also counts the other processes' turns.
 */
async function measure(send, n) {
  const t0 = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const [method, url] = REQUESTS_MIX[i % REQUESTS_MIX.length];
    const status = await send(method, url);
    if (status !== 200) throw new Error(`${method} ${url}: ${status}`);
    // Let the event loop turn: the frameworks finish each response in later phases
    // (setImmediate), which a loop of awaits alone would pile up (the heap grew by GBs).
    if (i % 64 === 63) await new Promise(setImmediate);
  }
  const used = process.cpuUsage(t0);
  return n / ((used.user + used.system) / 1e6);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const rows = [];
for (const [name, make, router] of [
  ['Express 5', expressApps, 'Express router'],
  ['Fastify 5', fastifyApps, 'find-my-way'],
  ['Hono 4', honoApps, 'SmartRouter (TrieRouter)'],
]) {
  const apps = await make();
  // Same answers first: every request of the mix answers 200 both ways.
  await measure(apps.native, REQUESTS_MIX.length);
  await measure(apps.adapter, REQUESTS_MIX.length);
  await measure(apps.native, REQUESTS); // warm-up
  await measure(apps.adapter, REQUESTS);
  const native = [];
  const adapter = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate which goes first, so that drift on a shared machine hits both.
    if (round % 2 === 0) {
      native.push(await measure(apps.native, REQUESTS));
      adapter.push(await measure(apps.adapter, REQUESTS));
    } else {
      adapter.push(await measure(apps.adapter, REQUESTS));
      native.push(await measure(apps.native, REQUESTS));
    }
  }
  const ratio = median(adapter) / median(native);
  rows.push({ name, router, native: median(native), adapter: median(adapter), ratio });
}

console.log(`\n### Adapter overhead (${list.length} routes, ${ROUNDS} rounds × ${REQUESTS} requests, medians)\n`);
console.log('| framework | its own router | native req/s | with @divan/router req/s | ratio | target ≥ 0.90 |');
console.log('|---|---|---:|---:|---:|---|');
for (const r of rows) {
  const fmt = (x) => Math.round(x).toLocaleString('en');
  console.log(
    `| ${r.name} | ${r.router} | ${fmt(r.native)} | ${fmt(r.adapter)} | ${r.ratio.toFixed(2)} | ${r.ratio >= 0.9 ? 'PASS' : 'FAIL'} |`,
  );
}
