#!/usr/bin/env node
// Same-process A/B of the views suite's index build and POST 100 keys, for a loaded machine
// (issue #31): two builds of this package are imported into one process (each its own module
// graph) and take turns, each round building the bench's two views (views.mjs DDOC) over a
// fresh copy of the same loaded data folder, then answering 300 POST {"keys": [100 keys]}.
// The figures are this process's CPU (server and its loopback client) and its main thread's per
// build, and CPU per keys request; wall time is printed too, but is noise on a loaded machine.
// The order of the two builds alternates from round to round.
//
//   node --no-node-snapshot packages/db/bench/views-ab.mjs BASE_PACKAGE_DIR [NEW_PACKAGE_DIR] [--rounds N] [--docs N]
//
// A package dir holds bin/, dist/, native/ and package.json (a copy made before a change; it
// must resolve node_modules from where it sits, say under packages/db/bench/node_modules/).
// NEW defaults to this package. The loaded data folder is made once per run with the new
// build's embedded API.

import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PACKAGE, takeNumberOption, authorOf, dateOf, isPost, makeDoc, median, rng, threadSchedMs } from './common.mjs';
import { DDOC } from './views.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => takeNumberOption(args, name, fallback);
const rounds = option('--rounds', 4);
const docs = option('--docs', 100_000);
if (args.length < 1) {
  console.error('usage: node --no-node-snapshot bench/views-ab.mjs BASE_DIR [NEW_DIR] [--rounds N] [--docs N]');
  process.exit(2);
}
const packages = [resolve(args[0]), resolve(args[1] ?? PACKAGE)];
const builds = await Promise.all(packages.map((dir) => import(join(dir, 'dist/src/index.js'))));
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
// This thread's CPU (the server's main thread: the index build's critical path), from the kernel's
// per-thread run time; undefined where /proc has no schedstat.
const mainCpuMs = () => {
  try {
    return threadSchedMs().run;
  } catch {
    return Number.NaN;
  }
};

// The data folder, loaded once.
const template = mkdtempSync(join(tmpdir(), 'divan-views-ab-'));
{
  const divan = builds[1].openDivan(template);
  const db = await divan.createDb('bench');
  for (let i = 0; i < docs; i += 1000) {
    const batch = [];
    for (let k = i; k < Math.min(i + 1000, docs); k++) batch.push(makeDoc(k));
    await db.bulkDocs(batch);
  }
  await divan.close();
}

const auth = `Basic ${Buffer.from('ab:ab').toString('base64')}`;
const results = packages.map(() => ({ build: [], main: [], wall: [], keys: [] }));

async function round(k) {
  const dir = mkdtempSync(join(tmpdir(), 'divan-views-ab-run-'));
  cpSync(template, dir, { recursive: true });
  const server = await builds[k].startServer({
    dataDir: dir,
    port: 0,
    host: '127.0.0.1',
    admin: { name: 'ab', password: 'ab' },
    log: () => {},
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const request = (method, path, body) =>
    new Promise((done, fail) => {
      const headers = { authorization: auth, 'content-type': 'application/json' };
      const req = http.request(`http://127.0.0.1:${server.port}${path}`, { method, agent, headers }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => done({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
      });
      req.on('error', fail);
      req.end(body);
    });
  try {
    const view = (name, query) => `/bench/_design/bench/_view/${name}?${query}`;
    const put = await request('PUT', '/bench/_design/bench', JSON.stringify(DDOC));
    if (put.status !== 201) throw new Error(`PUT design doc: ${put.status} ${put.body}`);
    const before = cpuMs();
    const beforeMain = mainCpuMs();
    const beforeWall = performance.now();
    for (const name of ['by_author_date', 'count_by_author']) {
      const r = await request('GET', view(name, 'reduce=false&limit=1'));
      if (r.status !== 200) throw new Error(`${name}: ${r.status} ${r.body}`);
    }
    results[k].build.push(cpuMs() - before);
    results[k].main.push(mainCpuMs() - beforeMain);
    results[k].wall.push(performance.now() - beforeWall);
    const random = rng(11);
    const postIndex = () => {
      const i = Math.floor(random() * docs);
      return isPost(i) ? i : i - 1;
    };
    let start = 0;
    for (let q = 0; q < 400; q++) {
      if (q === 100) start = cpuMs(); // the first 100 warm up
      const keys = Array.from({ length: 100 }, () => {
        const i = postIndex();
        return [authorOf(i), dateOf(i)];
      });
      const r = await request('POST', view('by_author_date', 'reduce=false'), JSON.stringify({ keys }));
      if (JSON.parse(r.body).rows.length !== 100) throw new Error(`keys: ${r.status} ${r.body.slice(0, 200)}`);
    }
    results[k].keys.push((cpuMs() - start) / 300);
  } finally {
    await server.close();
    agent.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

try {
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? [0, 1] : [1, 0];
    for (const k of order) await round(k);
  }
} finally {
  rmSync(template, { recursive: true, force: true });
}

const fmt = (a, digits) => a.map((x) => x.toFixed(digits)).join(' ');
for (const [k, name] of ['base', 'new'].entries()) {
  const { build, main, wall, keys } = results[k];
  console.log(
    `${name} (${packages[k]}): build CPU ms ${fmt(build, 0)} (median ${median(build).toFixed(0)}, least ${Math.min(...build).toFixed(0)}); ` +
      `main thread ${fmt(main, 0)} (median ${median(main).toFixed(0)}); wall ${fmt(wall, 0)} (median ${median(wall).toFixed(0)}); ` +
      `POST 100 keys CPU ms per request ${fmt(keys, 3)} (median ${median(keys).toFixed(3)})`,
  );
}
const ratio = (f) => (median(results[1][f]) / median(results[0][f])).toFixed(2);
console.log(
  `new / base, medians: build ${ratio('build')}×, main thread ${ratio('main')}×, wall ${ratio('wall')}×, keys ${ratio('keys')}×; load ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
