#!/usr/bin/env node
// Benchmark of @divan/db against pouchdb-server (in-memory) and, when COUCHDB_URL answers,
// Apache CouchDB, in the same run. Each server is started, loaded once with N docs of ~365 bytes
// (POST /db/_bulk_docs in batches of 1,000), then the selected suites run on it:
//
//   docs   (docs.mjs)  bulk load docs/s, random GET /db/{id} at c16, peak RSS, JSON parser speed;
//   views  (views.mjs) index build of two views (time, peak RSS), reduce/group queries, range
//                      reads, multi-key fetch, a streamed include_docs read, incremental update;
//   search (search.mjs) on its own corpus (~1 KB English docs, english.mjs): search index build against a
//                      one-field view, term/phrase queries, the $regex peer, update, size
//   mango  (mango.mjs) JSON index builds, _find by an indexed field, a sorted range, a full scan,
//                      _changes?filter=_selector (not in the default suites until Mango lands);
//   nodes  (nodes.mjs) divan-postgres only: a node's CPU per read request alone and with a
//                      second node on the same PostgreSQL (not in the default suites).
//   auth   (auth.mjs, only when asked: --suite auth) a cookie-authenticated GET /db/doc at c16
//                      against Basic auth of an admin; 100 first logins at once while GET /_up
//                      is probed (divan, divan-postgres, couchdb).
//   writes (writes.mjs, only when asked: --suite writes) single-document PUTs over keep-alive at
//                      c1 and c16 and over new connections, and the update of a document with
//                      1,000 revisions beside the PUT of a new one.
//   replication (replication.mjs, only when asked: --suite replication --server divan) Divan's
//                      replicator: 100k small docs in process, server → server both ways and
//                      PouchDB on the same pair (CouchDB's recorded figures beside), 10k docs with
//                      10 KB attachments, continuous lag at 200 writes/s, 500 idle continuous jobs.
//   fauxton (fauxton.mjs, only when asked: --suite fauxton) the first load of /_utils/ with every
//                      asset, over loopback and in Debian's Chromium (cold), against pouchdb-server's.
//   attachments (attachments.mjs, only when asked: --suite attachments) one 100 MB attachment up
//                      and down (MB/s, RSS), 100 MB of text up (compressed on the way in), 10,000 docs with a 10 KB inline attachment
//                      (_bulk_docs docs/s), PouchDB (memory) pulling and pushing them.
//
// In-process suites (only when asked; no server, no load: compiled from bench/*.ts by `tsc -b`):
//   btree   (btree.ts) the generic B-tree on SQLite and in memory: bulk build, 1% updates, grouped
//                      and range reductions, short folds, heap (BTREE_BENCH_ROWS sets the big build);
//   sandbox (sandbox-map.ts) the view sandbox's map step: --docs docs through two views, docs/s;
//   access  (access.ts) per-document access: a user's _all_docs/_changes among 100k docs of 1,000
//                      users against a database of their own, a write against a plain database.
//   access-sync (access-sync.ts) 1,000 users' PouchDB-style first syncs and a fan-in view: one
//                      access-enabled database against couch_peruser's 1,000 (disk, RSS, CPU ratios).
//   access-writes (access-writes.ts) the write target alone: access-enabled / plain writes (new documents,
//                      updates), CPU per write and pages per commit.
//
//   npm run bench -w @divan/db [-- --suite docs,views --docs 100000 --seconds 10 --view-seconds 5
//                                  --server divan,pouchdb-server --peer-timeout 300 --quick]
//
// --docs 1000000 is the 1M variant of the view issues (index build ≤ 30 s, peak RSS ≤ 300 MB);
// expect pouchdb-server to hit its cap there (use --server divan). Its views and mango tables are
// followed by issue #31's Scale table (scale.mjs): CouchDB's recorded 1M figures, the ratio at 1M
// and at 100k, each side's growth; run the same command with --docs 100000 just before.
// pouchdb-server is this folder's own dependency (bench/package.json), installed on first run.
// --data-from DIR starts Divan on a copy of DIR, the data folder of a loaded run kept with
// DIVAN_BENCH_KEEP=1 (its view indexes left out, so they are built again), instead of loading:
// a 1M load takes minutes and loads a shared machine; the bulk load's figure is then absent.
// DIVAN_BENCH_NODE_ARGS adds node flags to the divan server (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof").

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { BENCH, PACKAGE, ROOT, couchdbTarget, client, fmt, makeDoc, nowUs, phase, startServer } from './common.mjs';
import { bulkLoad, reportDocs, runDocs } from './docs.mjs';
import { reportMango, runMango } from './mango.mjs';
import { reportSearch, runSearch } from './search.mjs';
import { reportNodes, runNodes } from './nodes.mjs';
import { WORKLOADS, reportViews, runViews } from './views.mjs';
import { reportAttachments, runAttachments } from './attachments.mjs';
import { reportAuth, runAuth } from './auth.mjs';
import { reportFauxton, runFauxton } from './fauxton.mjs';
import { reportWrites, runWrites } from './writes.mjs';
import { reportReplication, runReplication } from './replication.mjs';

const USAGE =
  'usage: node bench/run.mjs [--suite docs,views,mango,search,writes,nodes,attachments,auth,fauxton,replication,btree,sandbox,access,access-sync,access-writes] [--docs N] [--seconds S] [--view-seconds S] [--bulk-concurrency N]\n' +
  '                          [--server divan,pouchdb-server,couchdb] [--peer-timeout S] [--workload w1,w2] [--no-build] [--quick] [--data-from DIR]\n' +
  `  view workloads: ${WORKLOADS.join(', ')} (build always runs)`;

function parseArgs(argv) {
  const opts = {
    docs: 100_000,
    seconds: 10,
    viewSeconds: 5,
    servers: undefined,
    concurrency: 16,
    bulkConcurrency: 4,
    suites: ['docs', 'views'],
    peerTimeout: 300,
    workloads: WORKLOADS,
    build: true,
    dataFrom: undefined,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => (a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i]);
    if (a === '--quick') Object.assign(opts, { docs: 10_000, seconds: 3, viewSeconds: 2 });
    else if (a.startsWith('--docs')) opts.docs = Number(value());
    else if (a.startsWith('--seconds')) opts.seconds = Number(value());
    else if (a.startsWith('--view-seconds')) opts.viewSeconds = Number(value());
    else if (a.startsWith('--bulk-concurrency')) opts.bulkConcurrency = Number(value());
    else if (a.startsWith('--peer-timeout')) opts.peerTimeout = Number(value());
    else if (a.startsWith('--suite')) opts.suites = value().split(',');
    else if (a.startsWith('--workload')) opts.workloads = ['build', ...value().split(',')];
    else if (a.startsWith('--server')) opts.servers = value().split(',');
    else if (a === '--no-build') opts.build = false;
    else if (a.startsWith('--data-from')) opts.dataFrom = value();
    else if (a === '--help' || a === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else throw new Error(`unknown argument ${a}\n${USAGE}`);
  }
  for (const suite of opts.suites) {
    if (
      ![
        'docs',
        'views',
        'mango',
        'search',
        'writes',
        'nodes',
        'attachments',
        'auth',
        'fauxton',
        'replication',
        ...Object.keys(IN_PROCESS),
      ].includes(suite)
    ) {
      throw new Error(`unknown suite ${suite}`);
    }
  }
  for (const w of opts.workloads) if (!WORKLOADS.includes(w)) throw new Error(`unknown workload ${w}`);
  if (!(opts.docs >= 1) || !(opts.peerTimeout > 0)) throw new Error('--docs and --peer-timeout must be positive');
  if (opts.dataFrom !== undefined && opts.suites.includes('docs')) {
    throw new Error('--data-from: the docs suite measures the load; leave it out');
  }
  return opts;
}

/** The in-process suites: a script of dist/bench, its node flags and arguments. */
const IN_PROCESS = {
  btree: { script: 'btree.js', flags: [], args: () => [] },
  // Per-document access: one user's reads among 1,000 users' documents, write cost (#30).
  access: { script: 'access.js', flags: ['--no-node-snapshot'], args: () => [] },
  // One access-enabled database against couch_peruser: 1,000 users' first syncs, a fan-in view (#30).
  'access-sync': { script: 'access-sync.js', flags: ['--no-node-snapshot'], args: () => [] },
  // The write target of #30 alone: access-enabled / plain writes, new documents and updates (CPU, pages).
  'access-writes': { script: 'access-writes.js', flags: ['--no-node-snapshot'], args: () => [] },
  // isolated-vm needs every process started without the node snapshot.
  sandbox: { script: 'sandbox-map.js', flags: ['--no-node-snapshot'], args: (opts) => [String(opts.docs)] },
};

/** Runs an in-process suite in its own node process; its figures print as they come. */
function runInProcess(suite, opts) {
  const { script, flags, args } = IN_PROCESS[suite];
  console.log(`${suite} (in-process, dist/bench/${script}):`);
  const r = spawnSync(process.execPath, [...flags, join(PACKAGE, 'dist', 'bench', script), ...args(opts)], {
    stdio: 'inherit',
  });
  if (r.status !== 0) console.error(`${suite}: failed (exit ${r.status ?? r.signal})`);
  console.log();
}

// --- setup -----------------------------------------------------------------------------------

function ensurePeers() {
  if (existsSync(join(BENCH, 'node_modules', 'pouchdb-server'))) return;
  console.error('bench: installing pouchdb-server into packages/db/bench/node_modules (about 90 s) ...');
  const r = spawnSync('npm', ['install', '--no-audit', '--no-fund'], {
    cwd: BENCH,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (r.status !== 0) throw new Error('npm install in packages/db/bench failed');
}

function ensureBuild() {
  const r = spawnSync('npx', ['tsc', '-b'], { cwd: ROOT, stdio: 'inherit' });
  // tsc still emits on type errors; say so rather than refuse to measure.
  if (r.status !== 0) console.error('bench: the build reported errors; measuring what it emitted');
}

/** Apache CouchDB joins by default when COUCHDB_URL is set and answers. */
async function couchdbAnswers() {
  const target = couchdbTarget();
  if (target === undefined) return false;
  const request = client(target.base, target.auth, 1);
  try {
    return (await request('GET', '/', undefined, { timeoutMs: 2000 })).status === 200;
  } catch {
    return false;
  } finally {
    request.close();
  }
}

/** Mean JSON size of the docs (of the first 100,000: later ones differ by a digit at most). */
function averageDocBytes(docs) {
  const n = Math.min(docs, 100_000);
  let bytes = 0;
  for (let i = 0; i < n; i++) bytes += JSON.stringify(makeDoc(i)).length;
  return Math.round(bytes / n);
}

// --- main ---------------------------------------------------------------------------------------

const opts = parseArgs(process.argv.slice(2));
// Servers start only for the suites that measure one.
const serverSuites = opts.suites.filter((suite) => !(suite in IN_PROCESS));
if (serverSuites.length === 0) opts.servers = [];
opts.servers ??= ['divan', 'pouchdb-server', ...((await couchdbAnswers()) ? ['couchdb'] : [])];
if (opts.build) ensureBuild();
if (opts.servers.includes('pouchdb-server')) ensurePeers();
console.log(
  `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}, node ${process.version}`,
);
for (const suite of opts.suites) if (suite in IN_PROCESS) runInProcess(suite, opts);
// The search suite's corpus is its own (it prints it with its figures).
if (serverSuites.some((suite) => suite !== 'search')) {
  console.log(
    `data: ${fmt(opts.docs)} docs of ~${averageDocBytes(opts.docs)} bytes; suites: ${serverSuites.join(', ')}; servers: ${opts.servers.join(', ')}\n`,
  );
}

const results = {
  docs: {},
  views: {},
  mango: {},
  search: {},
  writes: {},
  attachments: {},
  auth: {},
  fauxton: {},
  replication: {},
  nodes: undefined,
};
/** Each server's RSS 2 s and (Divan's) 12 s after it started (issue #31: a fresh idle server ≤ 50 MB). */
const idleRss = {};
for (const name of opts.servers) {
  const dataFrom = name === 'divan' || name === 'divan-base' ? opts.dataFrom : undefined;
  const server = await startServer(name, { settledRss: name.startsWith('divan'), dataFrom });
  if (server.idleRss !== undefined) idleRss[name] = server;
  try {
    if (dataFrom === undefined) {
      const created = await server.request('PUT', `/${server.db}`);
      if (created.status !== 201) throw new Error(`${name}: create db ${created.status} ${created.body}`);
    }
    // The search suite loads its own corpus (./search.mjs) into a database of its own.
    if (['docs', 'views', 'mango', 'nodes'].some((suite) => opts.suites.includes(suite))) {
      // On a copy of a loaded folder there is no load to measure (its row reads n/a).
      let load;
      if (dataFrom === undefined) {
        console.error(`${name}: loading ${fmt(opts.docs)} docs ...`);
        const loadStart = nowUs();
        load = await bulkLoad(server, opts.docs, opts.bulkConcurrency);
        phase(server, 'load', loadStart);
      } else console.error(`${name}: ${fmt(opts.docs)} docs copied from ${dataFrom}`);
      const readStart = nowUs();
      if (opts.suites.includes('docs')) results.docs[name] = await runDocs(server, opts, load);
      phase(server, 'reads', readStart);
      // The views results carry the load's figure: at 1M it stands beside CouchDB's (scale.mjs).
      if (opts.suites.includes('views')) results.views[name] = { load, ...(await runViews(server, opts)) };
      if (opts.suites.includes('mango')) results.mango[name] = await runMango(server, opts);
      if (opts.suites.includes('nodes') && name === 'divan-postgres') results.nodes = await runNodes(server, opts);
    }
    if (opts.suites.includes('search')) results.search[name] = await runSearch(server, opts);
    if (opts.suites.includes('writes')) results.writes[name] = await runWrites(server, opts);
    if (opts.suites.includes('attachments')) results.attachments[name] = await runAttachments(server);
    // pouchdb-server has no _users accounts or _security to measure.
    if (opts.suites.includes('auth') && name !== 'pouchdb-server') results.auth[name] = await runAuth(server, opts);
    if (opts.suites.includes('fauxton')) results.fauxton[name] = await runFauxton(server);
    // Divan's replicator between two Divan servers; PouchDB is the in-run peer, in this process.
    if (opts.suites.includes('replication') && name.startsWith('divan')) {
      results.replication[name] = await runReplication(server, opts);
    }
    console.error(`${name}: done`);
  } catch (e) {
    console.error(`${name}: failed: ${e.stack ?? e}`);
  } finally {
    await server.stop();
  }
}

if (opts.suites.includes('docs')) await reportDocs(results.docs, opts);
if (opts.suites.includes('views')) reportViews(results.views, opts);
if (opts.suites.includes('mango')) reportMango(results.mango, opts);
if (opts.suites.includes('writes')) reportWrites(results.writes);
if (opts.suites.includes('search')) reportSearch(results.search);
if (results.nodes !== undefined) reportNodes(results.nodes);
if (opts.suites.includes('attachments')) reportAttachments(results.attachments);
if (opts.suites.includes('auth')) reportAuth(results.auth);
if (opts.suites.includes('fauxton')) reportFauxton(results.fauxton);
if (opts.suites.includes('replication')) reportReplication(results.replication);
if (Object.keys(idleRss).length > 0) {
  const cells = Object.entries(idleRss).map(
    ([name, { idleRss: rss, settledRss }]) =>
      `${name} ${fmt(rss / 1048576, 1)} MB${settledRss === undefined ? '' : ` (12 s: ${fmt(settledRss / 1048576, 1)} MB)`}`,
  );
  console.log(`fresh idle server RSS, 2 s after start: ${cells.join(', ')} (target ≤ 50 MB)`);
}
console.log(
  `note: ${cpus().length} cores shared by the client, the server under test and whatever else runs (load at the end ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}): numbers are noisy.`,
);
