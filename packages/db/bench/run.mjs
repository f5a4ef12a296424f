#!/usr/bin/env node
// Benchmark of @divan/db against pouchdb-server (in-memory), in the same run:
//   1. bulk load: N docs of ~350 bytes through POST /db/_bulk_docs in batches of 1,000 (docs/s);
//   2. random GET /db/{id} at concurrency 16 (req/s, p50/p99 latency);
//   3. peak RSS of the server process (VmHWM);
// plus the JSON parser's speed on the same bodies (ours vs JSON.parse), to show it is not the
// bottleneck of a bulk load.
//
//   npm run bench -w @divan/db [-- --docs 100000 --seconds 10 --server divan,pouchdb-server --quick]
//
// pouchdb-server is this folder's own dependency (bench/package.json), installed on first run.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const BENCH = dirname(fileURLToPath(import.meta.url));
const PACKAGE = dirname(BENCH);
const ROOT = dirname(dirname(PACKAGE));

function parseArgs(argv) {
  const opts = { docs: 100_000, seconds: 10, servers: ['divan', 'pouchdb-server'], concurrency: 16, bulkConcurrency: 4 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => (a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i]);
    if (a === '--quick') Object.assign(opts, { docs: 10_000, seconds: 3 });
    else if (a.startsWith('--docs')) opts.docs = Number(value());
    else if (a.startsWith('--seconds')) opts.seconds = Number(value());
    else if (a.startsWith('--bulk-concurrency')) opts.bulkConcurrency = Number(value());
    else if (a.startsWith('--server')) opts.servers = value().split(',');
    else if (a === '--help' || a === '-h') {
      console.log('usage: node bench/run.mjs [--docs N] [--seconds S] [--bulk-concurrency N] [--server divan,pouchdb-server] [--quick]');
      process.exit(0);
    } else throw new Error(`unknown argument ${a}`);
  }
  return opts;
}

// --- setup -----------------------------------------------------------------------------------

function ensurePeers() {
  if (existsSync(join(BENCH, 'node_modules', 'pouchdb-server'))) return;
  console.error('bench: installing pouchdb-server into packages/db/bench/node_modules (about 90 s) ...');
  const r = spawnSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: BENCH, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error('npm install in packages/db/bench failed');
}

function ensureBuild() {
  const r = spawnSync('npx', ['tsc', '-b'], { cwd: ROOT, stdio: 'inherit' });
  // tsc still emits on type errors; say so rather than refuse to measure.
  if (r.status !== 0) console.error('bench: the build reported errors; measuring what it emitted');
}

// --- the data set ------------------------------------------------------------------------------

const WORDS = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua'.split(' ');
function makeDoc(i) {
  const pick = (k) => WORDS[(i * 7 + k * 13) % WORDS.length];
  return {
    _id: `doc${String(i).padStart(7, '0')}`,
    type: i % 4 === 3 ? 'comment' : 'post',
    author: `user${String(i % 500).padStart(3, '0')}`,
    date: new Date(Date.UTC(2020, 0, 1) + i * 60_000).toISOString(),
    title: `${pick(1)} ${pick(2)} ${pick(3)} ${i}`,
    body: Array.from({ length: 22 }, (_, k) => pick(k + 4)).join(' '),
    tags: [pick(30), pick(31), pick(32)],
    score: (i % 1000) / 10,
    views: i * 3,
  };
}

function batches(total, size) {
  const out = [];
  for (let start = 0; start < total; start += size) {
    const docs = [];
    for (let i = start; i < Math.min(total, start + size); i++) docs.push(makeDoc(i));
    out.push(JSON.stringify({ docs }));
  }
  return out;
}

// --- HTTP client (the same for every server) ---------------------------------------------------

function client(base, auth, concurrency) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const url = new URL(base);
  return (method, path, body) =>
    new Promise((resolve, reject) => {
      const headers = { accept: 'application/json' };
      if (auth) headers.authorization = auth;
      if (body !== undefined) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = Buffer.byteLength(body);
      }
      const req = http.request({ host: url.hostname, port: url.port, method, path, headers, agent }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
      });
      req.on('error', reject);
      req.end(body);
    });
}

// --- servers -----------------------------------------------------------------------------------

const ADMIN = 'bench:bench';
const SERVERS = {
  divan: (port, dir) => ({
    cmd: process.execPath,
    args: ['--no-node-snapshot', join(PACKAGE, 'bin', 'divan.js'), 'serve', '--port', String(port), '--data', dir, '--admin', ADMIN],
    auth: `Basic ${Buffer.from(ADMIN).toString('base64')}`,
  }),
  'pouchdb-server': (port) => ({
    cmd: process.execPath,
    args: [join(BENCH, 'node_modules', 'pouchdb-server', 'bin', 'pouchdb-server'), '--in-memory', '--port', String(port), '--host', '127.0.0.1'],
    auth: undefined,
  }),
};

async function startServer(name, port) {
  const dir = mkdtempSync(join(tmpdir(), `divan-bench-${name}-`));
  const spec = SERVERS[name](port, join(dir, 'data'));
  const child = spawn(spec.cmd, spec.args, { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  const request = client(`http://127.0.0.1:${port}`, spec.auth, 16);
  for (let i = 0; i < 600; i++) {
    try {
      const r = await request('GET', '/');
      if (r.status === 200) break;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    child,
    request,
    peakRss: () => {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmHWM:\s+(\d+)/.exec(status)[1]) * 1024;
    },
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// --- measurements ------------------------------------------------------------------------------

/** Sends the batches with `concurrency` requests in flight (a loader keeps the server busy while it sends). */
async function bulkLoad(request, bodies, docs, concurrency) {
  const start = process.hrtime.bigint();
  let next = 0;
  const sender = async () => {
    while (next < bodies.length) {
      const body = bodies[next++];
      const r = await request('POST', '/bench/_bulk_docs', body);
      if (r.status !== 201) throw new Error(`bulk load: ${r.status} ${r.body.slice(0, 200)}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, sender));
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { docsPerSecond: docs / seconds, seconds };
}

async function randomReads(request, docs, seconds, concurrency) {
  const latencies = [];
  const deadline = Date.now() + seconds * 1000;
  let seed = 42;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  const worker = async () => {
    while (Date.now() < deadline) {
      const id = `doc${String(next() % docs).padStart(7, '0')}`;
      const t0 = process.hrtime.bigint();
      const r = await request('GET', `/bench/${id}`);
      latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (r.status !== 200) throw new Error(`read ${id}: ${r.status}`);
    }
  };
  const start = Date.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  latencies.sort((a, b) => a - b);
  return {
    perSecond: latencies.length / ((Date.now() - start) / 1000),
    p50: latencies[Math.floor(latencies.length * 0.5)],
    p99: latencies[Math.floor(latencies.length * 0.99)],
  };
}

async function parserSpeed(bodies) {
  const { parseJson } = await import(pathToFileURL(join(PACKAGE, 'dist', 'src', 'json', 'index.js')).href);
  const bytes = bodies.reduce((n, b) => n + Buffer.byteLength(b), 0);
  const time = (fn) => {
    const start = process.hrtime.bigint();
    for (const body of bodies) fn(body);
    return Number(process.hrtime.bigint() - start) / 1e9;
  };
  time(parseJson);
  time(JSON.parse);
  const ours = time(parseJson);
  const native = time(JSON.parse);
  return { oursMBs: bytes / ours / 1e6, nativeMBs: bytes / native / 1e6, oursSeconds: ours };
}

// --- main ---------------------------------------------------------------------------------------

const opts = parseArgs(process.argv.slice(2));
ensureBuild();
if (opts.servers.includes('pouchdb-server')) ensurePeers();
console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load ${loadavg().map((l) => l.toFixed(1)).join(' ')}, node ${process.version}`);
console.log(`data: ${opts.docs} docs of ~${JSON.stringify(makeDoc(12345)).length} bytes, batches of 1,000 (${opts.bulkConcurrency} in flight); reads for ${opts.seconds} s at concurrency ${opts.concurrency}\n`);

const bodies = batches(opts.docs, 1000);
const results = {};
let port = 25984;
for (const name of opts.servers) {
  const server = await startServer(name, port++);
  try {
    const created = await server.request('PUT', '/bench');
    if (created.status !== 201) throw new Error(`${name}: create db ${created.status} ${created.body}`);
    const load = await bulkLoad(server.request, bodies, opts.docs, opts.bulkConcurrency);
    const reads = await randomReads(server.request, opts.docs, opts.seconds, opts.concurrency);
    results[name] = { load, reads, rss: server.peakRss() };
    console.error(`${name}: done`);
  } finally {
    await server.stop();
  }
}

const parse = await parserSpeed(bodies);
const fmt = (n, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const peer = results['pouchdb-server'];
const ratio = (a, b) => (b === undefined ? '' : `${(a / b).toFixed(2)}×`);
console.log('| server | bulk load docs/s | GET doc req/s (c16) | p50 ms | p99 ms | peak RSS MB |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const [name, r] of Object.entries(results)) {
  console.log(`| ${name} | ${fmt(r.load.docsPerSecond)} | ${fmt(r.reads.perSecond)} | ${fmt(r.reads.p50, 2)} | ${fmt(r.reads.p99, 2)} | ${fmt(r.rss / 1048576)} |`);
}
const ours = results.divan;
if (ours !== undefined) {
  console.log('');
  const bulkTarget = ours.load.docsPerSecond >= 50_000;
  console.log(`bulk load: ${fmt(ours.load.docsPerSecond)} docs/s, ${ratio(ours.load.docsPerSecond, 18_000)} Apache CouchDB's 18k (target ≥ 50,000): ${bulkTarget ? 'PASS' : 'MISS'}`);
  if (peer !== undefined) {
    console.log(`bulk load vs pouchdb-server: ${ratio(ours.load.docsPerSecond, peer.load.docsPerSecond)}`);
    const readRatio = ours.reads.perSecond / peer.reads.perSecond;
    console.log(`doc reads vs pouchdb-server: ${readRatio.toFixed(2)}× (target ≥ 5×): ${readRatio >= 5 ? 'PASS' : 'MISS'}`);
    console.log(`peak RSS vs pouchdb-server: ${ratio(ours.rss, peer.rss)}`);
  }
}
console.log(`\nJSON parser on the bulk bodies: ours ${fmt(parse.oursMBs)} MB/s, JSON.parse ${fmt(parse.nativeMBs)} MB/s; parsing is ${ours ? ((parse.oursSeconds / ours.load.seconds) * 100).toFixed(1) : '?'}% of our bulk-load time`);
