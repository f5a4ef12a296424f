// The mango suite: Mango queries on the bench documents (issue #31's targets), each server in the
// same run. Index builds: a 1-field JSON index (author) and a 2-field one (type, date), timed by
// the first query that uses each; then `_find` by author (limit 25) at c16 and c1, once with 500
// queries repeated (the answer cache serves them) and once every request unique; a range on
// (type, date) sorted by both, a query no index serves (a full scan), and
// `_changes?filter=_selector` over every change. Each figure is printed with the server's CPU beside
// it (an index build's also with its main thread's, which a quiet machine's wall clock follows).

import { readFileSync } from 'node:fs';
import { AUTHORS, authorOf, closedLoop, cpuSecondsOf, dateOf, fmt, nowUs, phase } from './common.mjs';
import { reportMangoScale, saveForScale } from './scale.mjs';

/**
 * CPU seconds of a server's main thread (/proc/pid/task/pid/stat: user + system), or undefined.
 * An index build keeps that thread busy from the `_index` request to the end of its first
 * `_find` (no idle sample in a profile, a few ms of fsync), while V8's helper threads collect
 * garbage beside it on another core: the main thread's time is what a quiet machine's wall
 * clock reads, the process's total is not (docs/benchmarks.md, Mango, session 43).
 */
function mainThreadCpuSecondsOf(pid) {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

const TARGETS = {
  build1: { label: 'build a 1-field JSON index (author), s', goal: 0.88, better: 'lower', couch: '13.2 s (both)' },
  build2: { label: 'build a 2-field JSON index (type, date), s', goal: 0.88, better: 'lower', couch: '' },
  author16: {
    label: '_find author=…, limit 25, 500 queries repeated (answer cache), c16, req/s',
    goal: 5000,
    better: 'higher',
    couch: '291 req/s',
  },
  author1: { label: 'the same, c1, p50 ms', goal: 1, better: 'lower', couch: '4.4 ms' },
  author16u: {
    label: '_find author=…, limit 25, skip ≤ 150, every request unique (no answer cache), c16, req/s',
    goal: 2360,
    better: 'higher',
    couch: '118 req/s',
  },
  author1u: { label: 'the same, each request unique, c1, p50 ms', goal: 0.5, better: 'lower', couch: '17.1 ms' },
  range1: {
    label: '_find type=post, date range, sort [type, date], c1, p50 ms',
    goal: 0.47,
    better: 'lower',
    couch: '4.7 ms',
  },
  scan1: {
    label: '_find without a usable index (full scan), c1, p50 ms',
    goal: 192,
    better: 'lower',
    couch: '1,917 ms',
  },
  selector: { label: '_changes?filter=_selector over every change, s', goal: 0.5, better: 'lower', couch: '2.35 s' },
};

export async function runMango(server, opts) {
  const { request, db } = server;
  const log = (line) => console.error(`${server.name}: ${line}`);
  const capMs = opts.peerTimeout * 1000;
  const post = (path, body) => request('POST', `/${db}${path}`, JSON.stringify(body), { timeoutMs: capMs });
  const out = {};
  const timed = async (name, fn) => {
    try {
      const t0 = process.hrtime.bigint();
      const started = nowUs();
      const cpuBefore = cpuSecondsOf(server.pid);
      const mainBefore = mainThreadCpuSecondsOf(server.pid);
      await fn();
      const cpu = cpuBefore === undefined ? undefined : cpuSecondsOf(server.pid) - cpuBefore;
      const main = mainBefore === undefined ? undefined : mainThreadCpuSecondsOf(server.pid) - mainBefore;
      out[name] = {
        seconds: Number(process.hrtime.bigint() - t0) / 1e9,
        serverCpuMs: cpu === undefined ? undefined : cpu * 1000,
        mainThreadCpuMs: main === undefined ? undefined : main * 1000,
      };
      phase(server, name, started);
    } catch (e) {
      out[name] = { error: e.message };
      log(`${name}: ${e.message}`);
    }
  };
  const ok = (r, what) => {
    if (r.status !== 200) throw new Error(`${what}: ${r.status} ${r.body.slice(0, 200)}`);
    return JSON.parse(r.body);
  };
  log('mango: building the JSON indexes ...');
  await timed('build1', async () => {
    ok(await post('/_index', { index: { fields: ['author'] }, name: 'by-author', ddoc: 'by-author' }), '_index');
    ok(await post('/_find', { selector: { author: authorOf(0) }, limit: 1 }), '_find');
  });
  await timed('build2', async () => {
    ok(
      await post('/_index', { index: { fields: ['type', 'date'] }, name: 'by-type-date', ddoc: 'by-type-date' }),
      '_index',
    );
    ok(await post('/_find', { selector: { type: 'post', date: { $gt: dateOf(0) } }, limit: 1 }), '_find');
  });
  const loop = async (name, concurrency, next, check) => {
    try {
      const started = nowUs();
      out[name] = await closedLoop({
        request,
        next,
        seconds: opts.viewSeconds,
        concurrency,
        timeoutMs: capMs,
        pid: server.pid,
        check: (r) => check(JSON.parse(r.body)),
      });
      phase(server, name, started);
    } catch (e) {
      out[name] = { error: e.message };
      log(`${name}: ${e.message}`);
    }
  };
  let k = 0;
  const byAuthor = () => [
    'POST',
    `/${db}/_find`,
    JSON.stringify({ selector: { author: authorOf(k++ % AUTHORS) }, limit: 25 }),
  ];
  // An author has docs / 500 documents: at 100k 200 each, so a page of 25 after a skip ≤ 150 is
  // always full; a smaller run (--quick: 10k, 20 each) gets what there is.
  const fullPages = opts.docs >= AUTHORS * (150 + 25);
  const authorCheck = (body) => {
    const n = body.docs?.length;
    if (fullPages ? n !== 25 : !(n <= 25)) throw new Error(`by author: ${n} docs`);
  };
  await loop('author16', 16, byAuthor, authorCheck);
  await loop('author1', 1, byAuthor, authorCheck);
  // Every request unique (the query of a cold answer cache), as CouchDB's figure was taken: an
  // author and a skip ≤ 150. 500 and 151 are coprime, so (u % 500, 73u % 151) repeats only after
  // 75,500 requests, and the skips spread evenly over 0..150 from the start.
  let u = 0;
  const byAuthorUnique = () => {
    const body = { selector: { author: authorOf(u % AUTHORS) }, skip: (u * 73) % 151, limit: 25 };
    u++;
    return ['POST', `/${db}/_find`, JSON.stringify(body)];
  };
  await loop('author16u', 16, byAuthorUnique, authorCheck);
  await loop('author1u', 1, byAuthorUnique, authorCheck);
  let d = 0;
  await loop(
    'range1',
    1,
    () => {
      const from = (d++ * 977) % Math.max(1, opts.docs - 1000);
      return [
        'POST',
        `/${db}/_find`,
        JSON.stringify({
          selector: { type: 'post', date: { $gte: dateOf(from), $lt: dateOf(from + 200) } },
          sort: [{ type: 'asc' }, { date: 'asc' }],
          limit: 25,
        }),
      ];
    },
    (body) => {
      if (body.docs?.length !== 25) throw new Error(`range: ${body.docs?.length} docs`);
    },
  );
  await loop(
    'scan1',
    1,
    () => ['POST', `/${db}/_find`, JSON.stringify({ selector: { views: { $lt: -1 - u++ } }, limit: 25 })],
    (body) => {
      if (!Array.isArray(body.docs)) throw new Error('scan: no docs');
    },
  );
  await timed('selector', async () => {
    const body = ok(
      await post('/_changes?filter=_selector', { selector: { type: 'comment', score: { $lt: 10 } } }),
      '_changes',
    );
    if (!Array.isArray(body.results)) throw new Error('_changes: no results');
  });
  return out;
}

export function reportMango(results, opts) {
  const names = Object.keys(results);
  console.log('\n## mango suite\n');
  const peers = names.filter((name) => name !== 'divan' && results.divan !== undefined);
  const header = [...names, ...peers.map((peer) => `divan vs ${peer}`)];
  console.log(`| workload | ${header.join(' | ')} | issue's CouchDB | target | verdict |`);
  console.log(`|---|${header.map(() => '---:').join('|')}|---:|---:|---:|`);
  /** The figure a workload is judged by (seconds, req/s or p50 ms). */
  const judgedBy = (r, target) =>
    r === undefined || r.error ? undefined : (r.seconds ?? (target.better === 'higher' ? r.perSecond : r.p50));
  for (const [key, target] of Object.entries(TARGETS)) {
    const cells = names.map((name) => {
      const r = results[name]?.[key];
      if (r === undefined) return 'n/a';
      if (r.error) return `error: ${r.error.slice(0, 50)}`;
      // The server's CPU beside each figure: on a loaded machine the wall clock says little.
      if (r.seconds !== undefined) {
        if (r.serverCpuMs === undefined) return fmt(r.seconds, 2);
        const main = r.mainThreadCpuMs === undefined ? '' : `, main thread ${fmt(r.mainThreadCpuMs / 1000, 2)}`;
        return `${fmt(r.seconds, 2)} (CPU ${fmt(r.serverCpuMs / 1000, 2)}${main})`;
      }
      const cpu = r.serverCpuMs === undefined ? '' : `, CPU ${fmt(r.serverCpuMs, 2)} ms/req`;
      if (target.better === 'higher') return `${fmt(r.perSecond)} (p50 ${fmt(r.p50, 2)} ms${cpu})`;
      return `${fmt(r.p50, 2)} (p99 ${fmt(r.p99, 2)}${cpu})`;
    });
    // How many times better divan is than each peer (× faster, or × the throughput).
    for (const peer of peers) {
      const a = judgedBy(results.divan[key], target);
      const b = judgedBy(results[peer]?.[key], target);
      cells.push(a === undefined || b === undefined ? 'n/a' : `${fmt(target.better === 'higher' ? a / b : b / a, 1)}×`);
    }
    const value = judgedBy(results.divan?.[key], target);
    const verdict =
      value === undefined || target.goal === undefined
        ? '—'
        : (target.better === 'lower' ? value <= target.goal : value >= target.goal)
          ? 'PASS'
          : 'MISS';
    console.log(
      `| ${target.label} | ${cells.join(' | ')} | ${target.couch} | ${target.goal === undefined ? '' : `${target.better === 'lower' ? '≤' : '≥'} ${fmt(target.goal, Number.isInteger(target.goal) ? 0 : 2)}`} | ${verdict} |`,
    );
  }
  // Issue #31's Scale target: a 100k run keeps Divan's figures, the 1M run prints the growth.
  saveForScale('mango', results.divan, opts);
  reportMangoScale(results, opts, TARGETS, judgedBy);
}
