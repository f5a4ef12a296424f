#!/usr/bin/env node
// Issue #31's PostgreSQL figure: CPU per request of each server (node, and for divan-postgres
// every process of its PostgreSQL too: common.mjs cpuSecondsOf), fixed request counts, the
// servers in turns (order reversed every round), all started and loaded first. For a same-run
// A/B of the PostgreSQL engine add divan-postgres-base (DIVAN_BENCH_BASE: another build).
//
//   DIVAN_BENCH_BASE=/tmp/base/packages/db SERVERS=divan,divan-postgres-base,divan-postgres \
//     DOCS=5000 ROUNDS=4 [ONLY=PUT,GET] node packages/db/bench/postgres-ab.mjs
//
// Prints each round's ms of CPU per request (PostgreSQL's share in brackets) and the ratio of
// each server's mean to SQLite's (divan).
import { appendFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import {
  AUTHORS,
  authorOf,
  batchBody,
  cpuSecondsOf,
  dateOf,
  docId,
  rng,
  startServer,
  storageCpuSecondsOf,
} from './common.mjs';

const DOCS = Number(process.env.DOCS ?? 5000);
const ROUNDS = Number(process.env.ROUNDS ?? 2);
const servers = (process.env.SERVERS ?? 'divan,divan-postgres-base,divan-postgres').split(',');
const only = process.env.ONLY?.split(',');
const DDOC = {
  _id: '_design/bench',
  views: {
    by_author_date: { map: "function (doc) { if (doc.type === 'post') emit([doc.author, doc.date], doc.title); }" },
  },
};
async function setup(s) {
  const { request, db } = s;
  await request('PUT', `/${db}`);
  for (let i = 0; i < DOCS; i += 1000) {
    const r = await request('POST', `/${db}/_bulk_docs`, batchBody(i, Math.min(DOCS, i + 1000)));
    if (r.status !== 201) throw new Error(`bulk ${r.status}`);
  }
  await request('PUT', `/${db}/_design/bench`, JSON.stringify(DDOC));
  await request('GET', `/${db}/_design/bench/_view/by_author_date?limit=1`);
  await request(
    'POST',
    `/${db}/_index`,
    JSON.stringify({ index: { fields: ['type', 'date'] }, name: 'by-type-date', ddoc: 'by-type-date' }),
  );
  await request(
    'POST',
    `/${db}/_find`,
    JSON.stringify({ selector: { type: 'post', date: { $gt: dateOf(0) } }, limit: 1 }),
  );
  // A document with 1,000 revisions (the writes suite's update row updates it).
  let rev;
  const r0 = await request('PUT', `/${db}/long`, JSON.stringify({ n: 0 }));
  rev = JSON.parse(r0.body).rev;
  for (let i = 1; i < 1000; i++) {
    const r = await request('PUT', `/${db}/long`, JSON.stringify({ _rev: rev, n: i }));
    rev = JSON.parse(r.body).rev;
  }
  s.longRev = rev;
}
let uniq = 0;
// The workloads: requests recorded, concurrency, the request (the figures the engine ratio is asked of).
const WL = {
  'GET c16': { n: 3000, c: 16, next: (r) => ['GET', `/bench/${docId(Math.floor(r() * DOCS))}`] },
  'all_docs startkey c1': {
    n: 600,
    c: 1,
    next: (r) => ['GET', `/bench/_all_docs?startkey=%22${docId(Math.floor(r() * DOCS))}%22&limit=10`],
  },
  'include_docs limit=100 c1': {
    n: 200,
    c: 1,
    next: (r) => [
      'GET',
      `/bench/_design/bench/_view/by_author_date?reduce=false&include_docs=true&limit=100&startkey=${encodeURIComponent(JSON.stringify([authorOf(Math.floor(r() * AUTHORS))]))}`,
    ],
  },
  'find sorted c1': {
    n: 300,
    c: 1,
    next: (r) => {
      const from = Math.floor(r() * (DOCS - 200));
      return [
        'POST',
        '/bench/_find',
        JSON.stringify({
          selector: { type: 'post', date: { $gte: dateOf(from), $lt: dateOf(from + 200) } },
          sort: [{ type: 'asc' }, { date: 'asc' }],
        }),
      ];
    },
  },
  'find scan c1': {
    n: 10,
    c: 1,
    next: () => ['POST', '/bench/_find', JSON.stringify({ selector: { views: { $lt: -1 - uniq++ } }, limit: 25 })],
  },
  'PUT new c1': {
    n: 600,
    c: 1,
    ok: 201,
    next: () => ['PUT', `/bench/new${uniq++}`, JSON.stringify({ type: 'x', n: uniq })],
  },
  'PUT new c16': {
    n: 2000,
    c: 16,
    ok: 201,
    next: () => ['PUT', `/bench/new${uniq++}`, JSON.stringify({ type: 'x', n: uniq })],
  },
  'PUT update 1000 revs c1': { n: 300, c: 1, ok: 201, long: true },
};
async function runOne(s, name, w) {
  const r = rng(42);
  const send = async () => {
    let m;
    if (w.long) m = ['PUT', `/bench/long`, JSON.stringify({ _rev: s.longRev, n: uniq++ })];
    else m = w.next(r);
    const res = await s.request(...m);
    if (res.status !== (w.ok ?? 200)) throw new Error(`${name} ${m[1]}: ${res.status} ${res.body.slice(0, 200)}`);
    if (w.long) s.longRev = JSON.parse(res.body).rev;
  };
  const warm = Math.min(20, w.n);
  for (let i = 0; i < warm; i++) await send();
  const c0 = cpuSecondsOf(s.pid),
    p0 = storageCpuSecondsOf(s.pid);
  let left = w.n;
  await Promise.all(
    Array.from({ length: w.c }, async () => {
      while (left-- > 0) await send();
    }),
  );
  const cpu = cpuSecondsOf(s.pid) - c0,
    pg = storageCpuSecondsOf(s.pid) - p0;
  return { ms: (cpu * 1000) / w.n, pg: (pg * 1000) / w.n };
}
const started = [];
for (const name of servers) {
  const s = await startServer(name);
  await setup(s);
  started.push(s);
  console.error(`started ${name}`);
}
const res = {};
process.on('uncaughtException', async (e) => {
  console.error(e);
  for (const s of started) await s.stop();
  process.exit(1);
});
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? started : [...started].reverse();
  for (const [wn, w] of Object.entries(WL)) {
    if (only && !only.some((o) => wn.includes(o))) continue;
    for (const s of order) {
      const t0 = Number(process.hrtime.bigint() / 1000n);
      const r = await runOne(s, wn, w);
      if (process.env.PHASES)
        appendFileSync(
          process.env.PHASES,
          `divan ${wn.replaceAll(' ', '_')}-${s.name}-${round} ${t0} ${Number(process.hrtime.bigint() / 1000n)}\n`,
        );
      ((res[wn] ??= {})[s.name] ??= []).push(r);
    }
  }
  console.error(`round ${round} done ${new Date().toISOString()}`);
}
const f = (x) => x.toFixed(3);
console.log(
  `docs ${DOCS}, rounds ${ROUNDS}, load ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
console.log(['workload', ...servers, ...servers.filter((n) => n !== 'divan').map((n) => `${n}÷sqlite`)].join(' | '));
for (const [wn, by] of Object.entries(res)) {
  const mean = (a) => a.reduce((x, y) => x + y.ms, 0) / a.length;
  const cells = servers.map((n) => by[n].map((r) => (n === 'divan' ? f(r.ms) : `${f(r.ms)} (${f(r.pg)})`)).join(' · '));
  const ratios =
    by.divan === undefined
      ? []
      : servers.filter((n) => n !== 'divan').map((n) => (mean(by[n]) / mean(by.divan)).toFixed(2));
  console.log([wn, ...cells, ...ratios].join(' | '));
}
for (const s of started) await s.stop();
process.exit(0);
