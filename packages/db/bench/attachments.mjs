// The attachments suite: one 100 MB incompressible attachment uploaded and downloaded (MB/s,
// server RSS growth), one 100 MB text attachment uploaded (stored compressed, as CouchDB does), 10,000 docs each with a 10 KB inline attachment through _bulk_docs (docs/s),
// and PouchDB (node, in-memory adapter) pulling those docs and pushing them to a new database.

import http from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PACKAGE, fmt, mb, nowUs, phase, rng, rssOf } from './common.mjs';

const BIG = 100 * 1024 * 1024;
const PIECE = 64 * 1024;
const SMALL_DOCS = 10_000;
const SMALL_BYTES = 10 * 1024;

/** Incompressible-looking bytes made as they are sent (the same for every server). */
function piece(n) {
  const random = rng(n + 1);
  const out = Buffer.allocUnsafe(PIECE);
  for (let i = 0; i < PIECE; i += 4) out.writeUInt32LE(Math.floor(random() * 4294967296), i);
  return out;
}
const PIECES = Array.from({ length: 16 }, (_, n) => piece(n));

/** Text that compresses about 4:1, as logs do (the same for every server). */
function textPiece(n) {
  let text = '';
  for (let i = n * 1000; text.length < PIECE; i++) {
    text += `row ${i}: value ${(i * 7919) % 10007} of ${(i * 104729) % 65521}, status ${i % 3 ? 'ok' : 'retry'}\n`;
  }
  return Buffer.from(text.slice(0, PIECE));
}
const TEXT_PIECES = Array.from({ length: 16 }, (_, n) => textPiece(n));

function streamRequest(server, method, path, { body, onChunk, text = false } = {}) {
  const url = new URL(server.base);
  return new Promise((resolve, reject) => {
    const headers = {};
    if (server.auth) headers.authorization = server.auth;
    const type = text ? 'text/plain' : 'application/octet-stream';
    if (body) Object.assign(headers, { 'content-type': type, 'content-length': BIG });
    const req = http.request({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => (onChunk ? onChunk(c) : chunks.push(c)));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (!body) return req.end();
    let n = 0;
    const write = () => {
      const pieces = text ? TEXT_PIECES : PIECES;
      while (n < BIG / PIECE) if (!req.write(pieces[n++ % pieces.length])) return req.once('drain', write);
      req.end();
    };
    write();
  });
}

/** The highest RSS of `pid` while `work` runs. */
async function peakDuring(pid, work) {
  let peak = rssOf(pid);
  const timer = setInterval(() => {
    peak = Math.max(peak ?? 0, rssOf(pid) ?? 0);
  }, 20);
  try {
    const result = await work();
    return { result, peak: Math.max(peak ?? 0, rssOf(pid) ?? 0) };
  } finally {
    clearInterval(timer);
  }
}

let PouchDBClass;
/** PouchDB from the db package's dev dependencies (plugins registered once per process). */
function pouchDB() {
  if (PouchDBClass === undefined) {
    const require = createRequire(join(PACKAGE, 'package.json'));
    PouchDBClass = require('pouchdb-core')
      .plugin(require('pouchdb-adapter-http'))
      .plugin(require('pouchdb-adapter-memory'))
      .plugin(require('pouchdb-replication'));
  }
  return PouchDBClass;
}

function smallDocs(from, to) {
  const random = rng(7);
  const data = Buffer.allocUnsafe(SMALL_BYTES);
  for (let i = 0; i < SMALL_BYTES; i++) data[i] = Math.floor(random() * 256);
  const docs = [];
  for (let i = from; i < to; i++) {
    data.writeUInt32LE(i, 0); // each its own content
    docs.push({
      _id: `att${String(i).padStart(6, '0')}`,
      n: i,
      _attachments: { 'a.bin': { content_type: 'application/octet-stream', data: data.toString('base64') } },
    });
  }
  return JSON.stringify({ docs });
}

export async function runAttachments(server) {
  const out = {};
  const db = `${server.db}_att`;
  await server.request('PUT', `/${db}`);
  const base = rssOf(server.pid);
  let started = nowUs();
  let t0 = performance.now();
  const up = await peakDuring(server.pid, () => streamRequest(server, 'PUT', `/${db}/big/blob.bin`, { body: true }));
  if (up.result.status !== 201) throw new Error(`upload: ${up.result.status} ${up.result.body}`);
  out.uploadMBs = BIG / 1048576 / ((performance.now() - t0) / 1000);
  phase(server, 'upload', started);
  started = nowUs();
  t0 = performance.now();
  let bytes = 0;
  const down = await peakDuring(server.pid, () =>
    streamRequest(server, 'GET', `/${db}/big/blob.bin`, { onChunk: (c) => (bytes += c.length) }),
  );
  if (bytes !== BIG) throw new Error(`download: ${bytes} bytes`);
  out.downloadMBs = BIG / 1048576 / ((performance.now() - t0) / 1000);
  phase(server, 'download', started);
  out.rssGrowth = base === undefined ? undefined : Math.max(up.peak, down.peak) - base;

  started = nowUs();
  t0 = performance.now();
  const text = await streamRequest(server, 'PUT', `/${db}/text/log.txt`, { body: true, text: true });
  if (text.status !== 201) throw new Error(`text upload: ${text.status} ${text.body}`);
  out.textUploadMBs = BIG / 1048576 / ((performance.now() - t0) / 1000);
  phase(server, 'text-upload', started);

  const small = `${server.db}_small`;
  await server.request('PUT', `/${small}`);
  // The bodies are made before the clock starts: the client shares the server's two cores.
  const bodies = Array.from({ length: SMALL_DOCS / 1000 }, (_, k) => Buffer.from(smallDocs(k * 1000, (k + 1) * 1000)));
  started = nowUs();
  t0 = performance.now();
  let next = 0;
  const sender = async () => {
    while (next < bodies.length) {
      const r = await server.request('POST', `/${small}/_bulk_docs`, bodies[next++]);
      if (r.status !== 201) throw new Error(`bulk: ${r.status} ${r.body.slice(0, 200)}`);
    }
  };
  await Promise.all(Array.from({ length: 4 }, sender));
  out.bulkDocsPerSecond = SMALL_DOCS / ((performance.now() - t0) / 1000);
  phase(server, 'bulk-inline', started);

  const PouchDB = pouchDB();
  // PouchDB sends the server's Authorization header with every request it makes.
  const remote = (name) =>
    new PouchDB(`${server.base}/${name}`, {
      fetch: (url, opts) => {
        if (server.auth) opts.headers.set('Authorization', server.auth);
        return PouchDB.fetch(url, opts);
      },
    });
  const local = new PouchDB(`bench-${server.name}-${Date.now()}`, { adapter: 'memory' });
  started = nowUs();
  t0 = performance.now();
  let cpu = process.cpuUsage();
  const pulled = await local.replicate.from(remote(small));
  out.pullSeconds = (performance.now() - t0) / 1000;
  out.pullClientSeconds = cpuSeconds(cpu);
  phase(server, 'pull', started);
  started = nowUs();
  if (pulled.docs_written !== SMALL_DOCS) throw new Error(`pull wrote ${pulled.docs_written}`);
  t0 = performance.now();
  cpu = process.cpuUsage();
  const pushed = await local.replicate.to(remote(`${server.db}_pushed`));
  out.pushSeconds = (performance.now() - t0) / 1000;
  out.pushClientSeconds = cpuSeconds(cpu);
  phase(server, 'push', started);
  if (pushed.docs_written !== SMALL_DOCS) throw new Error(`push wrote ${pushed.docs_written}`);
  await local.destroy();
  return out;
}

/** CPU seconds this process (the client) used since `from`. */
function cpuSeconds(from) {
  const { user, system } = process.cpuUsage(from);
  return (user + system) / 1e6;
}

export function reportAttachments(results) {
  console.log(
    'attachments: 100 MB incompressible, 100 MB text (compressed), 10,000 docs × 10 KB inline, PouchDB (memory) pull and push',
  );
  console.log('(client s: CPU the PouchDB client itself used, a floor under pull and push on any server)');
  console.log(
    'server          upload MB/s  download MB/s  RSS +MB  text upload MB/s  bulk docs/s  pull s  client s  push s  client s',
  );
  for (const [name, r] of Object.entries(results)) {
    console.log(
      `${name.padEnd(15)} ${fmt(r.uploadMBs).padStart(11)}  ${fmt(r.downloadMBs).padStart(13)}  ${mb(r.rssGrowth).padStart(7)}  ${fmt(r.textUploadMBs).padStart(16)}  ${fmt(r.bulkDocsPerSecond).padStart(11)}  ${fmt(r.pullSeconds, 1).padStart(6)}  ${fmt(r.pullClientSeconds, 1).padStart(8)}  ${fmt(r.pushSeconds, 1).padStart(6)}  ${fmt(r.pushClientSeconds, 1).padStart(8)}`,
    );
  }
  const ours = results.divan;
  const ratio = (a, b) => (a === undefined || b === undefined ? 'n/a' : `${(a / b).toFixed(2)}×`);
  for (const [name, r] of Object.entries(results)) {
    if (ours === undefined || name === 'divan') continue;
    console.log(
      `divan vs ${name}: upload ${ratio(ours.uploadMBs, r.uploadMBs)}, text upload ${ratio(ours.textUploadMBs, r.textUploadMBs)}, download ${ratio(ours.downloadMBs, r.downloadMBs)}, bulk ${ratio(ours.bulkDocsPerSecond, r.bulkDocsPerSecond)} (higher is better); pull time ${ratio(ours.pullSeconds, r.pullSeconds)}, push time ${ratio(ours.pushSeconds, r.pushSeconds)} (target ≤ 0.33×)`,
    );
  }
  console.log('');
}
