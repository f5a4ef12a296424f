#!/usr/bin/env node
// Same-process A/B of the views suite's "next query after a 1% update" (issue #31), for a loaded
// machine: two builds of this package are imported into one process (each its own module graph)
// and take turns. Each round opens a fresh copy of a 100k-doc folder whose two views (views.mjs
// DDOC) are built, reads every row once (the trees cached, as after the suite's build), then makes
// WARMUP + UPDATES updates of 1% of the docs (views.mjs's: random docs, a new title) through the
// embedded API's bulkDocs, each followed by the suite's two queries (reduce=false&limit=1 of each
// view, the first of which brings the index up to date). The figure is this thread's CPU
// (/proc/thread-self/schedstat: process CPU swings with SQLite's checkpoints and GC helpers) over
// the two queries; the index's flush after them (FLUSH_WAIT_MS later) is measured on its own.
// Beside it, the queries' wall time and how much of it the thread was blocked (neither running
// nor waiting for a core, schedstat's second field): what a quiet wall adds to the CPU.
// Answers are hashed (every query after every update, then group=true, group_level=1, reduce and
// every row) and must be the same for both builds.
//
//   node --no-node-snapshot packages/db/bench/views-update-ab.mjs BASE_PACKAGE_DIR [NEW_PACKAGE_DIR] [--rounds N] [--updates N] [--docs N]
//
// A package dir holds dist/, native/ and package.json (a worktree's packages/db, built).

import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PACKAGE, takeNumberOption, makeDoc, median, rng, threadSchedMs } from './common.mjs';
import { DDOC } from './views.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => takeNumberOption(args, name, fallback);
const rounds = option('--rounds', 6);
const updates = option('--updates', 20);
const docs = option('--docs', 100_000);
const WARMUP = 3;
// PROFILE=FILE: the new build's query windows profiled (100 µs), self time per function summed into FILE.
const profileFile = process.env.PROFILE;
const profiler = profileFile === undefined ? undefined : new (await import('node:inspector')).Session();
const selfMs = new Map();
const post = (method, params) =>
  new Promise((done, fail) => profiler.post(method, params, (error, out) => (error ? fail(error) : done(out))));
if (profiler !== undefined) {
  profiler.connect();
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 100 });
}
const totalMs = new Map();
// ALLOC=1 with PROFILE: bytes allocated in the windows (sampled, collected objects included), by allocating function (self) and stack (inclusive).
const addAllocations = ({ head }) => {
  const walk = (node, stack) => {
    const f = node.callFrame;
    const name = `${f.functionName || '(anon)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}`;
    const bytes = node.selfSize / 1024;
    selfMs.set(name, (selfMs.get(name) ?? 0) + bytes);
    const next = new Set(stack).add(name);
    for (const s of next) totalMs.set(s, (totalMs.get(s) ?? 0) + bytes);
    for (const c of node.children) walk(c, next);
  };
  walk(head, []);
};
// With PROFILE, the hottest lines (ticks) head the file.
const lineTicks = new Map();
const addProfile = ({ nodes, samples, timeDeltas }) => {
  for (const n of nodes) {
    for (const t of n.positionTicks ?? []) {
      const line = `${n.callFrame.functionName} ${n.callFrame.url.split('/').slice(-2).join('/')}:${t.line}`;
      lineTicks.set(line, (lineTicks.get(line) ?? 0) + t.ticks);
    }
  }
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const nameOf = (f) => `${f.functionName || '(anon)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}`;
  samples.forEach((id, i) => {
    if (i === 0) return;
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const name = nameOf(byId.get(at).callFrame);
      if (seen.has(name)) continue;
      seen.add(name);
      totalMs.set(name, (totalMs.get(name) ?? 0) + (timeDeltas[i] ?? 0) / 1000);
    }
  });
  samples.forEach((id, i) => {
    if (i === 0) return; // its delta reaches back before the window
    const f = byId.get(id).callFrame;
    const name = `${f.functionName || '(anon)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}`;
    selfMs.set(name, (selfMs.get(name) ?? 0) + (timeDeltas[i] ?? 0) / 1000);
  });
};
const FLUSH_WAIT_MS = 40;
if (args.length < 1) {
  console.error(
    'usage: node --no-node-snapshot bench/views-update-ab.mjs BASE_DIR [NEW_DIR] [--rounds N] [--updates N]',
  );
  process.exit(2);
}
const packages = [resolve(args[0]), resolve(args[1] ?? PACKAGE)];
const builds = await Promise.all(packages.map((dir) => import(join(dir, 'dist/src/index.js'))));
const mainCpuMs = () => threadSchedMs().run;
// This thread's time waiting for a core (schedstat's second field): wall - CPU - this is time blocked.
const mainWaitMs = () => threadSchedMs().wait;
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

// Each build's own template (a change of the stored format shows as a different answer, not a crash).
const templates = [];
const revsOf = [];
for (const build of builds) {
  const dir = mkdtempSync(join(tmpdir(), 'divan-update-ab-'));
  const divan = build.openDivan(dir);
  const db = await divan.createDb('bench');
  const revs = [];
  for (let i = 0; i < docs; i += 1000) {
    const batch = [];
    for (let k = i; k < Math.min(i + 1000, docs); k++) batch.push(makeDoc(k));
    for (const r of await db.bulkDocs(batch)) revs.push(r.rev);
  }
  await db.upsert(DDOC);
  await db.view('bench', 'by_author_date', { reduce: false, limit: 1 });
  await db.view('bench', 'count_by_author', { reduce: false, limit: 1 });
  await divan.close();
  templates.push(dir);
  revsOf.push(revs);
}

const results = packages.map(() => ({
  queries: [],
  flush: [],
  write: [],
  gc: [],
  wall: [],
  blocked: [],
  hashes: new Set(),
}));
// GC pauses on this thread (ms, by kind) within the query windows.
const { PerformanceObserver, constants: perf } = await import('node:perf_hooks');
const gcs = [];
new PerformanceObserver((list) => gcs.push(...list.getEntries())).observe({ entryTypes: ['gc'] });
const gcKinds = {
  [perf.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [perf.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [perf.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [perf.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};
const gcIn = (from, to) => {
  const out = { minor: 0, major: 0, incremental: 0, weakcb: 0, minors: 0 };
  for (const e of gcs) {
    if (e.startTime < from || e.startTime >= to) continue;
    const kind = gcKinds[e.detail?.kind ?? e.kind];
    out[kind] += e.duration;
    if (kind === 'minor') out.minors++;
  }
  return out;
};

async function round(k) {
  const dir = mkdtempSync(join(tmpdir(), 'divan-update-ab-run-'));
  cpSync(templates[k], dir, { recursive: true });
  const divan = builds[k].openDivan(dir);
  const hash = createHash('sha256');
  try {
    const db = await divan.db('bench');
    // Every row read once: the trees' nodes cached, as after the suite's build and reads.
    for (const name of ['by_author_date', 'count_by_author']) await db.view('bench', name, { reduce: false });
    const revs = [...revsOf[k]];
    const random = rng(23);
    const count = Math.floor(docs / 100);
    for (let u = 1; u <= WARMUP + updates; u++) {
      const picked = new Set();
      while (picked.size < count) picked.add(Math.floor(random() * docs));
      const indices = [...picked];
      const batch = indices.map((i) => ({
        ...makeDoc(i),
        _rev: revs[i],
        title: `updated in round ${u}: ${i}`,
        edits: u,
      }));
      const w0 = mainCpuMs();
      const saved = await db.bulkDocs(batch);
      const w1 = mainCpuMs();
      saved.forEach((r, n) => {
        if (r.error !== undefined) throw new Error(`bulkDocs: ${JSON.stringify(r)}`);
        revs[indices[n]] = r.rev;
      });
      const profiling = profiler !== undefined && k === 1 && u > WARMUP;
      if (profiling && process.env.ALLOC) {
        await post('HeapProfiler.enable');
        await post('HeapProfiler.startSampling', {
          samplingInterval: 1024,
          includeObjectsCollectedByMajorGC: true,
          includeObjectsCollectedByMinorGC: true,
        });
      } else if (profiling) await post('Profiler.start');
      const t0 = performance.now();
      const q0 = mainCpuMs();
      const r0 = mainWaitMs();
      for (const name of ['by_author_date', 'count_by_author']) {
        hash.update(JSON.stringify(await db.view('bench', name, { reduce: false, limit: 1 })));
      }
      const q1 = mainCpuMs();
      const r1 = mainWaitMs();
      const t1 = performance.now();
      if (profiling && process.env.ALLOC) addAllocations((await post('HeapProfiler.stopSampling')).profile);
      else if (profiling) addProfile((await post('Profiler.stop')).profile);
      await sleep(FLUSH_WAIT_MS);
      const f1 = mainCpuMs();
      if (u > WARMUP) {
        results[k].queries.push(q1 - q0);
        results[k].flush.push(f1 - q1);
        results[k].write.push(w1 - w0);
        results[k].wall.push(t1 - t0);
        results[k].blocked.push(t1 - t0 - (q1 - q0) - (r1 - r0));
        await sleep(0); // the observer's entries
        results[k].gc.push(gcIn(t0, t1));
      }
    }
    hash.update(JSON.stringify(await db.view('bench', 'count_by_author', { group: true })));
    hash.update(JSON.stringify(await db.view('bench', 'by_author_date', { group_level: 1 })));
    hash.update(JSON.stringify(await db.view('bench', 'by_author_date', {})));
    hash.update(JSON.stringify(await db.view('bench', 'by_author_date', { reduce: false })));
    hash.update(JSON.stringify(await db.view('bench', 'count_by_author', { reduce: false })));
    results[k].hashes.add(hash.digest('hex'));
  } finally {
    await divan.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

try {
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? [0, 1] : [1, 0];
    for (const k of order) await round(k);
    console.error(`round ${r + 1}/${rounds} done, load ${loadavg()[0].toFixed(1)}`);
  }
} finally {
  for (const dir of templates) rmSync(dir, { recursive: true, force: true });
}

if (profileFile !== undefined) {
  const total = [...selfMs.values()].reduce((a, b) => a + b, 0);
  const lines = [...selfMs]
    .sort((a, b) => b[1] - a[1])
    .map(([n, ms]) => `${((100 * ms) / total).toFixed(1).padStart(5)}% ${ms.toFixed(1).padStart(7)} ms  ${n}`);
  const inclusive = [...totalMs]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 120)
    .map(([n, ms]) => `${((100 * ms) / total).toFixed(1).padStart(5)}% ${ms.toFixed(1).padStart(7)} ms  ${n}`);
  (await import('node:fs')).writeFileSync(
    profileFile,
    `${[...lineTicks]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 80)
      .map(([k, v]) => `${v} ${k}`)
      .join('\n')}\n${total.toFixed(0)} ms sampled\n${lines.join('\n')}\n\ninclusive:\n${inclusive.join('\n')}\n`,
  );
}
const mean = (a) => a.reduce((x, y) => x + y, 0) / a.length;
for (const [k, name] of ['base', 'new'].entries()) {
  const { queries, flush, write } = results[k];
  console.log(
    `${name} (${packages[k]}): the two queries' main-thread CPU ms, median ${median(queries).toFixed(2)}, mean ${mean(queries).toFixed(2)} (n ${queries.length}); ` +
      `wall median ${median(results[k].wall).toFixed(2)}, blocked (wall - CPU - waiting for a core) median ${median(results[k].blocked).toFixed(2)}; ` +
      `flush median ${median(flush).toFixed(2)}; bulkDocs median ${median(write).toFixed(2)}; ` +
      `GC in the query windows, mean ms: ${['minor', 'major', 'incremental']
        .map((kind) => `${kind} ${mean(results[k].gc.map((g) => g[kind])).toFixed(2)}`)
        .concat(`scavenges ${mean(results[k].gc.map((g) => g.minors)).toFixed(2)}`)
        .join(', ')}`,
  );
}
const ratio = (f) => (median(results[1][f]) / median(results[0][f])).toFixed(3);
const answers = [...results[0].hashes, ...results[1].hashes];
console.log(
  `new / base, medians: queries ${ratio('queries')}×, flush ${ratio('flush')}×, bulkDocs ${ratio('write')}×; ` +
    `answers ${new Set(answers).size === 1 ? 'identical' : 'DIFFER'}; load ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
);
