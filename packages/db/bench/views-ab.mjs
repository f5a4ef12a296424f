#!/usr/bin/env node
// Same-process A/B of the views suite's index build and POST 100 keys, for a loaded machine
// (issue #31): two builds of this package are imported into one process (each its own module
// graph) and take turns, each round building the bench's two views (views.mjs DDOC) over a
// fresh copy of the same loaded data folder, then answering 300 POST {"keys": [100 keys]}.
// The figure is this process's CPU (server and its loopback client), per build and per keys
// request; the order of the two builds alternates from round to round. A build's figures are
// the process's CPU (every thread: an index build's worker, V8's GC and compiler threads), the
// main thread's CPU (/proc: the event loop, where requests wait) and the wall clock, which on a
// loaded machine is noise; on an idle two-core machine a build takes about the larger of its
// critical path (main and worker thread in parallel while both run, see watchThreads) and half
// its process CPU.
//
//   node --no-node-snapshot packages/db/bench/views-ab.mjs BASE_PACKAGE_DIR [NEW_PACKAGE_DIR] [--rounds N] [--docs N] [--build-only]
//
// A package dir holds bin/, dist/, native/ and package.json (a copy made before a change; it
// must resolve node_modules from where it sits, say under packages/db/bench/node_modules/).
// NEW defaults to this package. The loaded data folder is made once per run with the new
// build's embedded API.

import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  PACKAGE,
  takeNumberOption,
  authorOf,
  dateOf,
  isPost,
  makeDoc,
  median,
  peakRssOf,
  resetPeakRss,
  rng,
} from './common.mjs';
import { DDOC } from './views.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => takeNumberOption(args, name, fallback);
const rounds = option('--rounds', 4);
const docs = option('--docs', 100_000);
const buildOnly = args.includes('--build-only');
if (buildOnly) args.splice(args.indexOf('--build-only'), 1);
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
/** A thread's CPU (ms): the first field of its schedstat is nanoseconds on the CPU. */
const threadCpuMs = (tid) => Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
const mainCpuMs = () => threadCpuMs(process.pid);

/**
 * Watches the threads a build starts (an index build's worker) every few ms: the busiest one's
 * CPU, and the main thread's CPU when it ended. The build's critical path on an idle machine is
 * then the larger of the two threads' CPU up to that point, plus the main thread's after it.
 */
function watchThreads() {
  const before = new Set(readdirSync('/proc/self/task'));
  /** Per new thread: its CPU when last seen, and the main thread's when it was first seen gone. */
  const seen = new Map();
  const timer = setInterval(() => {
    const alive = new Set(readdirSync('/proc/self/task'));
    for (const tid of alive) {
      if (before.has(tid)) continue;
      try {
        seen.set(tid, { cpu: threadCpuMs(tid), mainAtEnd: undefined });
      } catch {}
    }
    for (const [tid, thread] of seen) {
      if (!alive.has(tid) && thread.mainAtEnd === undefined) thread.mainAtEnd = mainCpuMs();
    }
  }, 5);
  return () => {
    clearInterval(timer);
    const busiest = [...seen.values()].sort((a, b) => b.cpu - a.cpu)[0];
    return { worker: busiest?.cpu ?? 0, mainAtEnd: busiest?.mainAtEnd };
  };
}

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
const results = packages.map(() => ({ build: [], main: [], worker: [], critical: [], wall: [], peak: [], keys: [] }));

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
    resetPeakRss(process.pid);
    const before = cpuMs();
    const mainBefore = mainCpuMs();
    const wallBefore = performance.now();
    const threads = watchThreads();
    for (const name of ['by_author_date', 'count_by_author']) {
      const r = await request('GET', view(name, 'reduce=false&limit=1'));
      if (r.status !== 200) throw new Error(`${name}: ${r.status} ${r.body}`);
    }
    const mainAfter = mainCpuMs();
    const { worker, mainAtEnd } = threads();
    results[k].build.push(cpuMs() - before);
    results[k].main.push(mainAfter - mainBefore);
    results[k].worker.push(worker);
    results[k].critical.push(
      mainAtEnd === undefined
        ? mainAfter - mainBefore
        : Math.max(mainAtEnd - mainBefore, worker) + (mainAfter - mainAtEnd),
    );
    results[k].wall.push(performance.now() - wallBefore);
    results[k].peak.push(peakRssOf(process.pid) / 1048576);
    if (buildOnly) return;
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
const summary = (a, digits) =>
  `${fmt(a, digits)} (median ${median(a).toFixed(digits)}, least ${Math.min(...a).toFixed(digits)})`;
for (const [k, name] of ['base', 'new'].entries()) {
  const { build, main, worker, critical, wall, peak, keys } = results[k];
  console.log(
    `${name} (${packages[k]}): build CPU ms ${summary(build, 0)}; main thread ${summary(main, 0)}; ` +
      `worker thread ${summary(worker, 0)}; critical path ${summary(critical, 0)}; wall ${summary(wall, 0)}; ` +
      `peak RSS MB (the process's, both builds loaded) ${summary(peak, 0)}` +
      (buildOnly ? '' : `; POST 100 keys CPU ms per request ${summary(keys, 3)}`),
  );
}
const ratio = (f) => (median(results[1][f]) / median(results[0][f])).toFixed(2);
console.log(
  `new / base, medians: build ${ratio('build')}×, main thread ${ratio('main')}×, critical path ${ratio('critical')}×, ` +
    `wall ${ratio('wall')}×` +
    (buildOnly ? '' : `, keys ${ratio('keys')}×`) +
    `; load ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
);
