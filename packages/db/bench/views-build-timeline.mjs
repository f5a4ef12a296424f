#!/usr/bin/env node
// Where a views-suite index build's wall time goes (issue #31): the suite's case — a `divan serve`
// server that has just bulk-loaded the docs (`_bulk_docs` × 1,000, 4 in flight), then the two
// views' first queries — with the server's threads read from /proc every few ms during the
// build. Per thread (grouped by name: the main thread, V8's workers, libuv's, SQLite's checkpoint
// worker …) the CPU it ran; for the main thread also the time it waited for a core (runnable, not
// running: the machine's other threads had both) and the time it slept (idle or blocked: I/O,
// fsync, a lock). wall = main run + main runqueue wait + main asleep. A timeline in 100 ms steps
// shows which part of the build each falls in.
//
//   node packages/db/bench/views-build-timeline.mjs [--rounds N] [--docs N] [--servers divan,divan-base]
//
// divan-base needs DIVAN_BENCH_BASE (a build of the package, as in run.mjs). Rounds alternate
// the servers' order. Environment: TIMELINE=1 prints the 100 ms steps (--step N for others);
// BY_TID=1 totals threads one by one (name + offset of their id from the process's: V8's
// platform workers come first) rather than by name; SLEEPS=1 lists each sample that found the
// main thread asleep, with its kernel wait channel (futex: waiting on another thread, such as
// V8's helpers at the end of a parallel collection) and the threads that ran meanwhile;
// GC_WINDOW=1 prints the build's window (epoch ms, and the monotonic clock of a --cpu-prof given
// through DIVAN_BENCH_NODE_ARGS). The server's collections in the build are counted (a preload
// this script writes and adds to DIVAN_BENCH_NODE_ARGS).

import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { takeNumberOption, startServer, cpuSecondsOf, median, peakRssOf, resetPeakRss } from './common.mjs';
import { bulkLoad } from './docs.mjs';
import { DDOC } from './views.mjs';

const args = process.argv.slice(2);
const rounds = takeNumberOption(args, '--rounds', 1);
const docs = takeNumberOption(args, '--docs', 100_000);
const step = takeNumberOption(args, '--step', 100);
const serversAt = args.indexOf('--servers');
const servers = serversAt >= 0 ? args[serversAt + 1].split(',') : ['divan'];

// The server's garbage collections (V8's `gc` performance entries), written to a file when it
// stops: a preload given to the server through DIVAN_BENCH_NODE_ARGS (common.mjs).
const gcDir = mkdtempSync(join(tmpdir(), 'divan-build-gc-'));
const gcPreload = join(gcDir, 'gc-log.cjs');
writeFileSync(
  gcPreload,
  `const { PerformanceObserver, performance } = require('node:perf_hooks');
const entries = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) entries.push([performance.timeOrigin + e.startTime, e.duration, e.detail?.kind]);
}).observe({ entryTypes: ['gc'] });
const dump = () => require('node:fs').writeFileSync(${JSON.stringify(gcDir)} + '/gc-' + process.pid + '.json', JSON.stringify(entries));
process.on('exit', dump);
process.prependListener('SIGTERM', dump);
`,
);
process.env.DIVAN_BENCH_NODE_ARGS = `${process.env.DIVAN_BENCH_NODE_ARGS ?? ''} --require ${gcPreload}`;
process.on('exit', () => rmSync(gcDir, { recursive: true, force: true }));

/** The server's collections within [from, to] (epoch ms): young ones, full ones and their ms. */
function collections(pid, from, to) {
  const file = join(gcDir, `gc-${pid}.json`);
  if (!existsSync(file)) return undefined;
  const inWindow = JSON.parse(readFileSync(file, 'utf8')).filter(([t]) => t >= from && t <= to);
  const kind = (k) => inWindow.filter((e) => e[2] === k);
  // kinds: 1 a scavenge, 4 a mark-compact (a full collection), 8 incremental marking steps
  return { scavenges: kind(1).length, full: kind(4).length, fullMs: kind(4).reduce((a, e) => a + e[1], 0) };
}

/** Each thread's [name, run ns, runqueue wait ns, state] from /proc. */
function threads(pid) {
  const out = new Map();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const comm = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      const [run, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      const wchan = Number(tid) === pid && state !== 'R' ? readFileSync(`/proc/${pid}/task/${tid}/wchan`, 'utf8') : '';
      out.set(tid, { wchan, comm: Number(tid) === pid ? 'MAIN' : comm.replace(/\d+$/, '#'), run, wait, state });
    } catch {}
  }
  return out;
}

async function measure(name) {
  const server = await startServer(name);
  try {
    const db = server.db;
    const created = await server.request('PUT', `/${db}`);
    if (created.status !== 201) throw new Error(`PUT db: ${created.status}`);
    await bulkLoad(server, docs, 4);
    const put = await server.request('PUT', `/${db}/_design/bench`, JSON.stringify(DDOC));
    if (put.status !== 201) throw new Error(`PUT ddoc: ${put.status} ${put.body}`);
    resetPeakRss(server.pid);
    const pid = server.pid;
    const first = threads(pid);
    const cpu0 = cpuSecondsOf(pid);
    const t0 = performance.now();
    const mono0 = process.hrtime.bigint() / 1000n;
    const samples = [{ t: 0, th: first }];
    let done = false;
    const sampler = (async () => {
      while (!done) {
        await new Promise((r) => setTimeout(r, 5));
        samples.push({ t: performance.now() - t0, th: threads(pid) });
      }
    })();
    const perView = [];
    for (const view of ['by_author_date', 'count_by_author']) {
      const v0 = performance.now();
      const r = await server.request('GET', `/${db}/_design/bench/_view/${view}?reduce=false&limit=1`);
      if (r.status !== 200) throw new Error(`${view}: ${r.status}`);
      perView.push(performance.now() - v0);
    }
    const wall = performance.now() - t0;
    if (process.env.GC_WINDOW)
      console.log(
        `  build window (epoch ms) ${performance.timeOrigin + t0} ${performance.timeOrigin + t0 + wall}, monotonic µs (a --cpu-prof's clock) ${mono0} ${process.hrtime.bigint() / 1000n}, pid ${pid}`,
      );
    done = true;
    await sampler;
    const last = threads(pid);
    const wchans = new Map();
    for (const x of samples) {
      const m = x.th.get(String(pid));
      const w = m === undefined ? '?' : m.state === 'R' ? 'R' : `${m.state}:${m.wchan}`;
      wchans.set(w, (wchans.get(w) ?? 0) + 1);
    }
    if (process.env.SLEEPS) {
      for (let i = 1; i < samples.length; i++) {
        const m = samples[i].th.get(String(pid));
        if (m === undefined || m.state === 'R') continue;
        const prev = samples[i - 1].th;
        const ran = [...samples[i].th]
          .filter(([tid]) => Number(tid) !== pid)
          .map(([tid, th]) => [Number(tid) - pid, (th.run - (prev.get(tid)?.run ?? th.run)) / 1e6])
          .filter(([, r]) => r > 0.5)
          .map(([t, r]) => `+${t}:${r.toFixed(1)}`);
        console.log(`    ${samples[i].t.toFixed(0)} ms ${m.state}:${m.wchan}; ran meanwhile ${ran.join(' ')}`);
      }
    }
    console.log(
      `  main thread's state in ${samples.length} samples: ${[...wchans]
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
    );
    samples.push({ t: wall, th: last });
    const cpu = (cpuSecondsOf(pid) - cpu0) * 1000;
    // Totals by thread group.
    const groups = new Map();
    for (const [tid, th] of last) {
      const before = first.get(tid) ?? { run: 0, wait: 0 };
      const key = process.env.BY_TID && th.comm !== 'MAIN' ? `${th.comm}${Number(tid) - pid}` : th.comm;
      const g = groups.get(key) ?? { run: 0, wait: 0, n: 0 };
      g.run += (th.run - before.run) / 1e6;
      g.wait += (th.wait - before.wait) / 1e6;
      g.n += 1;
      groups.set(key, g);
    }
    // Threads that ended during the build are not in `last`: their run is lost (rare here).
    const main = groups.get('MAIN');
    const asleep = wall - main.run - main.wait;
    // Timeline: per step, main run / wait / asleep, others' run, main's state counts.
    const lines = [];
    for (let s = 0; s * step < wall; s++) {
      const inStep = samples.filter((x) => x.t >= s * step && x.t < (s + 1) * step);
      if (inStep.length < 2) continue;
      const a = inStep[0];
      const b = inStep[inStep.length - 1];
      const dt = b.t - a.t;
      const m0 = a.th.get(String(pid));
      const m1 = b.th.get(String(pid));
      let other = 0;
      for (const [tid, th] of b.th) {
        if (Number(tid) === pid) continue;
        other += (th.run - (a.th.get(tid)?.run ?? th.run)) / 1e6;
      }
      const run = (m1.run - m0.run) / 1e6;
      const wait = (m1.wait - m0.wait) / 1e6;
      lines.push(
        `  ${String(Math.round(a.t)).padStart(5)} ms: main run ${run.toFixed(0).padStart(3)}, waits for a core ${wait.toFixed(0).padStart(3)}, asleep ${(dt - run - wait).toFixed(0).padStart(3)} of ${dt.toFixed(0)}; other threads ran ${other.toFixed(0).padStart(3)}`,
      );
    }
    const window = [performance.timeOrigin + t0, performance.timeOrigin + t0 + wall];
    return { name, wall, perView, cpu, groups, asleep, peak: peakRssOf(pid), lines, pid, window };
  } finally {
    await server.stop();
  }
}

const results = new Map(servers.map((s) => [s, []]));
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? servers : [...servers].reverse();
  for (const name of order) {
    const m = await measure(name);
    m.gc = collections(m.pid, ...m.window);
    results.get(name).push(m);
    const g = [...m.groups].sort((x, y) => y[1].run - x[1].run);
    console.log(
      `${name} round ${r + 1}: wall ${m.wall.toFixed(0)} ms (${m.perView.map((x) => x.toFixed(0)).join(' + ')}), process CPU ${m.cpu.toFixed(0)} ms, ` +
        `main: run ${m.groups.get('MAIN').run.toFixed(0)}, waited for a core ${m.groups.get('MAIN').wait.toFixed(0)}, asleep ${m.asleep.toFixed(0)}; ` +
        `peak RSS ${(m.peak / 1048576).toFixed(1)} MB; collections: ${m.gc === undefined ? 'n/a' : `${m.gc.scavenges} young, ${m.gc.full} full (${m.gc.fullMs.toFixed(0)} ms in their pauses' wall)`}; load ${loadavg()[0].toFixed(1)}`,
    );
    console.log(
      `  threads: ${g
        .filter(([, v]) => v.run >= 1)
        .map(([k, v]) => `${k}×${v.n} ${v.run.toFixed(0)}`)
        .join(', ')}`,
    );
    if (process.env.TIMELINE) console.log(m.lines.join('\n'));
  }
}
for (const [name, ms] of results) {
  console.log(
    `${name}: medians of ${ms.length}: wall ${median(ms.map((m) => m.wall)).toFixed(0)}, process CPU ${median(ms.map((m) => m.cpu)).toFixed(0)}, ` +
      `main run ${median(ms.map((m) => m.groups.get('MAIN').run)).toFixed(0)}, waited ${median(ms.map((m) => m.groups.get('MAIN').wait)).toFixed(0)}, asleep ${median(ms.map((m) => m.asleep)).toFixed(0)} ms`,
  );
}
