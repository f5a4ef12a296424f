// The replication suite (issue #28), Divan servers only (--suite replication --server divan): the
// server under test (A) and a second Divan server of the same kind (B) on loopback.
//
//   small      N small docs (the bench documents) one-shot, `create_target`: A → A in process
//              (local → local), B pulling from A and A pushing to B over loopback (server → server,
//              Divan's replicator on either side), and PouchDB (node, http adapter both ends)
//              replicating the same pair A → B as the in-run peer; CouchDB 3.5's own replicator's
//              figures recorded on this kind of machine are printed beside, with ratios.
//   attachments  10,000 docs with a 10 KB attachment: A → A, A → B (pull by B, push by A),
//              PouchDB A → B.
//   lag        a continuous job (A → A, and B pulling from A) while 200 writes/s land on the source
//              for --seconds: write acknowledged → change on the target's feed, p50/p99, and the
//              servers' CPU per 1,000 writes (the writes, the job and the feeds together).
//   idle       500 idle continuous jobs on A: GET /db/doc p99 at c16 before and with them, the RSS
//              they add, and A's CPU over 5 s with nothing to replicate (what waiting costs).

import { createRequire } from 'node:module';
import { join } from 'node:path';
import http from 'node:http';
import {
  PACKAGE,
  batchBody,
  closedLoop,
  cpuSecondsOf,
  docId,
  fmt,
  mb,
  nowUs,
  percentile,
  phase,
  rng,
  rssOf,
  startServer,
} from './common.mjs';

/**
 * CouchDB 3.5.0's replicator, 100k small docs one-shot with `create_target`, measured on this kind
 * of machine (2 shared cores) in a run beside Divan: the team's CouchDB 3.5.0 figures note
 * (couchdb-figures.md), "Replication". CouchDB cannot run in this benchmark (not installable
 * here), so its figures are constants, named as such in the report.
 */
const COUCHDB = {
  source: 'Apache CouchDB 3.5.0, recorded 2026-11-29 (couchdb-figures.md, "Replication", 100k small docs)',
  couchToCouch: { seconds: 25.5, docsPerSecond: 3925 },
  divanToCouch: { seconds: 15.0, docsPerSecond: 6688 },
  couchToDivan: { seconds: 9.6, docsPerSecond: 10417 },
};

const ATT_DOCS = 10_000;
const ATT_BYTES = 10 * 1024;
const LAG_RATE = 200;
const IDLE_JOBS = 500;

let PouchDBClass;
/** PouchDB over HTTP (the db package's dev dependencies), plugins registered once per process. */
function pouchDB() {
  if (PouchDBClass === undefined) {
    const require = createRequire(join(PACKAGE, 'package.json'));
    PouchDBClass = require('pouchdb-core')
      .plugin(require('pouchdb-adapter-http'))
      .plugin(require('pouchdb-replication'));
  }
  return PouchDBClass;
}

/** A database of `server` as PouchDB opens it, with the server's Authorization header. */
function pouchRemote(server, db) {
  const PouchDB = pouchDB();
  return new PouchDB(`${server.base}/${db}`, {
    fetch: (url, opts) => {
      if (server.auth) opts.headers.set('Authorization', server.auth);
      return PouchDB.fetch(url, opts);
    },
  });
}

/** `{url, headers}` of a database of `server`, as a `_replicate` body names a remote endpoint. */
const endpointOf = (server, db) => ({ url: `${server.base}/${db}`, headers: { Authorization: server.auth } });

async function replicateOnce(server, body, capMs) {
  const r = await server.request('POST', '/_replicate', JSON.stringify(body), { timeoutMs: capMs });
  if (r.status !== 200) throw new Error(`_replicate: ${r.status} ${r.body.slice(0, 300)}`);
  const answer = JSON.parse(r.body);
  return answer.history?.[0] ?? { docs_written: 0 };
}

/** Wall time, and the CPU both servers used, of `work`. */
async function timed(servers, work) {
  const cpu = servers.map((s) => cpuSecondsOf(s.pid));
  const t0 = performance.now();
  const result = await work();
  const seconds = (performance.now() - t0) / 1000;
  const serverCpu = servers.reduce((sum, s, i) => sum + ((cpuSecondsOf(s.pid) ?? 0) - (cpu[i] ?? 0)), 0);
  return { seconds, serverCpu, result };
}

async function loadSmall(server, db, docs) {
  await server.request('PUT', `/${db}`);
  let next = 0;
  const sender = async () => {
    while (next < docs) {
      const from = next;
      next = Math.min(docs, next + 1000);
      const r = await server.request('POST', `/${db}/_bulk_docs`, batchBody(from, next));
      if (r.status !== 201) throw new Error(`load: ${r.status} ${r.body.slice(0, 200)}`);
    }
  };
  await Promise.all(Array.from({ length: 4 }, sender));
}

async function loadAttachments(server, db) {
  await server.request('PUT', `/${db}`);
  const random = rng(11);
  const data = Buffer.allocUnsafe(ATT_BYTES);
  for (let i = 0; i < ATT_BYTES; i++) data[i] = Math.floor(random() * 256);
  for (let from = 0; from < ATT_DOCS; from += 500) {
    const docs = [];
    for (let i = from; i < from + 500; i++) {
      data.writeUInt32LE(i, 0);
      docs.push({
        _id: `att${String(i).padStart(6, '0')}`,
        n: i,
        _attachments: { 'a.bin': { content_type: 'application/octet-stream', data: data.toString('base64') } },
      });
    }
    const r = await server.request('POST', `/${db}/_bulk_docs`, JSON.stringify({ docs }));
    if (r.status !== 201) throw new Error(`attachments load: ${r.status} ${r.body.slice(0, 200)}`);
  }
}

/**
 * The ids arriving on `db`'s continuous changes feed (from now on), each with its arrival time.
 * `stop()` ends the feed.
 */
function watchFeed(server, db, arrived) {
  const url = new URL(server.base);
  const req = http.request({
    host: url.hostname,
    port: url.port,
    path: `/${db}/_changes?feed=continuous&since=now&heartbeat=1000`,
    headers: { authorization: server.auth },
  });
  let rest = '';
  req.on('response', (res) => {
    res.setEncoding('utf8');
    res.on('data', (chunk) => {
      const now = performance.now();
      rest += chunk;
      const lines = rest.split('\n');
      rest = lines.pop();
      for (const line of lines) {
        if (line.trim() === '') continue;
        const change = JSON.parse(line);
        if (change.id !== undefined && !arrived.has(change.id)) arrived.set(change.id, now);
      }
    });
  });
  req.on('error', () => {});
  req.end();
  return { stop: () => req.destroy() };
}

/** 200 writes/s for `seconds` on A's `source`; lag of each to `target` on `targetServer`. */
async function measureLag(a, source, targetServer, target, seconds) {
  const arrived = new Map();
  const feed = watchFeed(targetServer, target, arrived);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const acked = new Map();
  const total = Math.round(LAG_RATE * seconds);
  const start = performance.now();
  const writes = [];
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / LAG_RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const id = `lag${String(i).padStart(6, '0')}`;
    writes.push(
      a.request('PUT', `/${source}/${id}`, JSON.stringify({ i, at: Date.now() })).then((r) => {
        if (r.status !== 201) throw new Error(`lag write: ${r.status}`);
        acked.set(id, performance.now());
      }),
    );
  }
  await Promise.all(writes);
  const deadline = performance.now() + 10_000;
  while (arrived.size < total && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  feed.stop();
  const lags = [];
  for (const [id, at] of acked) {
    const seen = arrived.get(id);
    // Seen before the write's answer reached us (the feed raced it): no lag to speak of.
    if (seen !== undefined) lags.push(Math.max(0, seen - at));
  }
  lags.sort((x, y) => x - y);
  return { p50: percentile(lags, 0.5), p99: percentile(lags, 0.99), arrived: lags.length, total };
}

async function startContinuous(server, body) {
  const r = await server.request('POST', '/_replicate', JSON.stringify({ ...body, continuous: true }));
  if (r.status !== 202) throw new Error(`continuous _replicate: ${r.status} ${r.body.slice(0, 200)}`);
  return JSON.parse(r.body)._local_id;
}

async function cancel(server, id) {
  await server.request('POST', '/_replicate', JSON.stringify({ replication_id: id, cancel: true }));
}

/** GET of random docs of `db` at c16 for `seconds`: p50/p99. */
function docReads(server, db, docs, seconds) {
  const random = rng(5);
  return closedLoop({
    request: server.request,
    next: () => ['GET', `/${db}/${docId(Math.floor(random() * docs))}`],
    seconds,
    concurrency: 16,
    pid: server.pid,
  });
}

export async function runReplication(a, opts) {
  const log = (line) => console.error(`${a.name}: replication: ${line}`);
  const capMs = opts.peerTimeout * 1000;
  const out = {};
  const b = await startServer(a.name);
  try {
    const n = opts.docs;
    log(`loading ${fmt(n)} small docs into repl_src ...`);
    await loadSmall(a, 'repl_src', n);
    const step = async (key, servers, work) => {
      const started = nowUs();
      try {
        out[key] = await timed(servers, work);
        out[key].docsPerSecond = n / out[key].seconds;
        log(`${key}: ${fmt(out[key].seconds, 2)} s`);
      } catch (e) {
        out[key] = { error: e.message };
        log(`${key}: ${e.message}`);
      }
      phase(a, `repl-${key}`, started);
    };
    await step('local', [a], () =>
      replicateOnce(a, { source: 'repl_src', target: 'repl_local', create_target: true }, capMs),
    );
    // A small doc_ids replication between two local databases (target: under 100 ms), the
    // target existing (creating a database is not the replication's time).
    {
      const ids = Array.from({ length: 10 }, (_, k) => docId(Math.floor((k * n) / 10)));
      await a.request('PUT', '/repl_ids');
      const t0 = performance.now();
      const written = await replicateOnce(a, { source: 'repl_src', target: 'repl_ids', doc_ids: ids }, capMs);
      out.docIds = { ms: performance.now() - t0, written: written.docs_written };
    }
    await step('pull', [a, b], () =>
      replicateOnce(b, { source: endpointOf(a, 'repl_src'), target: 'repl_pulled', create_target: true }, capMs),
    );
    await step('push', [a, b], () =>
      replicateOnce(a, { source: 'repl_src', target: endpointOf(b, 'repl_pushed'), create_target: true }, capMs),
    );
    await step('pouchdb', [a, b], async () => {
      const result = await pouchDB().replicate(pouchRemote(a, 'repl_src'), pouchRemote(b, 'repl_pouch'));
      if (result.docs_written !== n) throw new Error(`PouchDB wrote ${result.docs_written}`);
      return result;
    });

    log(`loading ${fmt(ATT_DOCS)} docs with a 10 KB attachment ...`);
    await loadAttachments(a, 'repl_att');
    const attStep = async (key, servers, work) => {
      const started = nowUs();
      try {
        out[key] = await timed(servers, work);
        out[key].docsPerSecond = ATT_DOCS / out[key].seconds;
        log(`${key}: ${fmt(out[key].seconds, 2)} s`);
      } catch (e) {
        out[key] = { error: e.message };
        log(`${key}: ${e.message}`);
      }
      phase(a, `repl-${key}`, started);
    };
    await attStep('attLocal', [a], () =>
      replicateOnce(a, { source: 'repl_att', target: 'repl_att_local', create_target: true }, capMs),
    );
    await attStep('attPull', [a, b], () =>
      replicateOnce(b, { source: endpointOf(a, 'repl_att'), target: 'repl_att_pulled', create_target: true }, capMs),
    );
    await attStep('attPush', [a, b], () =>
      replicateOnce(a, { source: 'repl_att', target: endpointOf(b, 'repl_att_pushed'), create_target: true }, capMs),
    );
    await attStep('attPouchdb', [a, b], () =>
      pouchDB().replicate(pouchRemote(a, 'repl_att'), pouchRemote(b, 'repl_att_pouch')),
    );

    log(`continuous lag at ${LAG_RATE} writes/s for ${opts.seconds} s ...`);
    await a.request('PUT', '/lag_src');
    let started = nowUs();
    const localJob = await startContinuous(a, { source: 'lag_src', target: 'lag_local', create_target: true });
    try {
      const { result, serverCpu } = await timed([a], () => measureLag(a, 'lag_src', a, 'lag_local', opts.seconds));
      out.lagLocal = { ...result, cpuPerThousand: (serverCpu * 1000) / result.total };
    } finally {
      await cancel(a, localJob);
    }
    phase(a, 'repl-lag-local', started);
    started = nowUs();
    await a.request('PUT', '/lag_src2');
    const remoteJob = await startContinuous(b, {
      source: endpointOf(a, 'lag_src2'),
      target: 'lag_remote',
      create_target: true,
    });
    try {
      const { result, serverCpu } = await timed([a, b], () => measureLag(a, 'lag_src2', b, 'lag_remote', opts.seconds));
      out.lagRemote = { ...result, cpuPerThousand: (serverCpu * 1000) / result.total };
    } finally {
      await cancel(b, remoteJob);
    }
    phase(a, 'repl-lag-remote', started);

    log(`${IDLE_JOBS} idle continuous jobs ...`);
    started = nowUs();
    const readSeconds = Math.min(opts.seconds, 5);
    // The jobs' databases exist before the baseline: the figure is what the jobs add (500
    // open databases cost memory of their own, reported apart).
    const rssNoDbs = rssOf(a.pid);
    await a.request('PUT', '/idle_src');
    const idleTarget = (i) => `idle_${String(i).padStart(3, '0')}`;
    for (let i = 0; i < IDLE_JOBS; i++) await a.request('PUT', `/${idleTarget(i)}`);
    out.idleDbsRss = rssNoDbs === undefined ? undefined : rssOf(a.pid) - rssNoDbs;
    out.idleBefore = await docReads(a, 'repl_src', n, readSeconds);
    const rssBefore = rssOf(a.pid);
    const jobs = [];
    for (let i = 0; i < IDLE_JOBS; i++)
      jobs.push(await startContinuous(a, { source: 'idle_src', target: idleTarget(i) }));
    await new Promise((resolve) => setTimeout(resolve, 2000));
    out.idleCpu = (await timed([a], () => new Promise((resolve) => setTimeout(resolve, 5000)))).serverCpu;
    out.idleWith = await docReads(a, 'repl_src', n, readSeconds);
    out.idleRssGrowth = rssBefore === undefined ? undefined : rssOf(a.pid) - rssBefore;
    out.idleJobs = JSON.parse((await a.request('GET', '/_active_tasks')).body).filter(
      (task) => task.type === 'replication',
    ).length;
    for (const id of jobs) await cancel(a, id);
    phase(a, 'repl-idle', started);
  } finally {
    await b.stop();
  }
  return out;
}

export function reportReplication(results) {
  console.log('\n## replication suite\n');
  console.log(`CouchDB column: ${COUCHDB.source}; not measured in this run.\n`);
  for (const [name, r] of Object.entries(results)) {
    const cell = (x, docs) =>
      x === undefined
        ? 'n/a'
        : x.error
          ? `error: ${x.error.slice(0, 60)}`
          : `${fmt(x.seconds, 2)} s (${fmt(docs / x.seconds)} docs/s, server CPU ${fmt(x.serverCpu, 1)} s)`;
    const n = r.local?.docsPerSecond === undefined ? undefined : Math.round(r.local.docsPerSecond * r.local.seconds);
    const ratio = (x, seconds) => (x?.seconds === undefined ? 'n/a' : `${fmt(seconds / x.seconds, 1)}×`);
    console.log(`${name}, ${fmt(n)} small docs, one-shot with create_target:`);
    console.log('| replication | time | vs CouchDB → CouchDB (25.5 s) | vs PouchDB, same pair |');
    console.log('|---|---:|---:|---:|');
    const pouch = r.pouchdb?.seconds;
    for (const [key, label] of [
      ['local', 'Divan → Divan, one server (in process)'],
      ['pull', 'Divan → Divan over loopback, Divan replicator on the target (pull)'],
      ['push', 'Divan → Divan over loopback, Divan replicator on the source (push)'],
      ['pouchdb', 'PouchDB (node) replicating the same pair over loopback'],
    ]) {
      const x = r[key];
      console.log(
        `| ${label} | ${cell(x, n)} | ${ratio(x, COUCHDB.couchToCouch.seconds * ((n ?? 100_000) / 100_000))} | ${pouch === undefined || x?.seconds === undefined ? 'n/a' : `${fmt(pouch / x.seconds, 1)}×`} |`,
      );
    }
    console.log(
      `| CouchDB → CouchDB (recorded) | ${COUCHDB.couchToCouch.seconds} s (${fmt(COUCHDB.couchToCouch.docsPerSecond)} docs/s) | 1× | |`,
    );
    console.log(
      `| Divan → CouchDB, CouchDB's replicator (recorded) | ${COUCHDB.divanToCouch.seconds} s (${fmt(COUCHDB.divanToCouch.docsPerSecond)} docs/s) | | |`,
    );
    console.log(
      `| CouchDB → Divan, CouchDB's replicator (recorded) | ${COUCHDB.couchToDivan.seconds} s (${fmt(COUCHDB.couchToDivan.docsPerSecond)} docs/s) | | |`,
    );
    console.log('targets: in process ≥ 10× CouchDB → CouchDB (100k ≤ 2.5 s); over loopback ≥ 5× (≤ 5 s)');
    console.log(
      `doc_ids (10 of ${fmt(n)}) between two local databases: ${r.docIds === undefined ? 'n/a' : `${fmt(r.docIds.ms, 1)} ms (${r.docIds.written} written)`}; target < 100 ms\n`,
    );
    console.log(`${fmt(ATT_DOCS)} docs × 10 KB attachment:`);
    const attPouch = r.attPouchdb?.seconds;
    for (const [key, label] of [
      ['attLocal', 'Divan → Divan, in process'],
      ['attPull', 'Divan → Divan over loopback (pull)'],
      ['attPush', 'Divan → Divan over loopback (push)'],
      ['attPouchdb', 'PouchDB (node), same pair'],
    ]) {
      const x = r[key];
      const vs = attPouch === undefined || x?.seconds === undefined ? 'n/a' : `${fmt(attPouch / x.seconds, 1)}×`;
      console.log(`  ${label.padEnd(36)} ${cell(x, ATT_DOCS)}  vs PouchDB ${vs}`);
    }
    console.log('  target: ≥ 3× PouchDB\n');
    const lag = (x) =>
      x === undefined
        ? 'n/a'
        : `p50 ${fmt(x.p50, 1)} ms, p99 ${fmt(x.p99, 1)} ms (${fmt(x.arrived)} of ${fmt(x.total)} seen; server CPU ${x.cpuPerThousand === undefined ? 'n/a' : `${fmt(x.cpuPerThousand, 2)} s`} per 1,000 writes)`;
    console.log(
      `continuous lag under ${LAG_RATE} writes/s: in process ${lag(r.lagLocal)}; over loopback ${lag(r.lagRemote)}`,
    );
    console.log('  target: p50 ≤ 50 ms, p99 ≤ 250 ms');
    const p99 = (x) => (x === undefined ? 'n/a' : `${fmt(x.p99, 2)} ms`);
    console.log(
      `${IDLE_JOBS} idle continuous jobs (${r.idleJobs ?? 'n/a'} running): GET doc c16 p99 ${p99(r.idleBefore)} without, ${p99(r.idleWith)} with (${r.idleBefore && r.idleWith ? `${fmt(r.idleWith.p99 / r.idleBefore.p99, 2)}×` : 'n/a'}); RSS +${mb(r.idleRssGrowth)} MB by the jobs (their ${IDLE_JOBS} target databases, opened before: +${mb(r.idleDbsRss)} MB)`,
    );
    console.log(
      `  server CPU over 5 s with the ${IDLE_JOBS} jobs idle: ${r.idleCpu === undefined ? 'n/a' : `${fmt(r.idleCpu, 2)} s`}`,
    );
    console.log('  target: p99 ≤ 2× idle, RSS ≤ +100 MB\n');
  }
}
