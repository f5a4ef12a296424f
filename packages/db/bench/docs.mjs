// The docs suite: bulk load (docs/s), random GET /db/{id} at concurrency 16, peak RSS, and the
// JSON parser's speed on the bulk bodies (ours vs JSON.parse).

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PACKAGE, batchBody, cpuSecondsOf, docId, fmt, pageFaultsOf, peakRssOf } from './common.mjs';

/**
 * Sends the docs in batches of 1,000 with `concurrency` requests in flight (a loader keeps the
 * server busy while it sends). Bodies are made on the fly (1M docs would not fit up front).
 */
export async function bulkLoad(server, docs, concurrency) {
  const cpuStart = cpuSecondsOf(server.pid);
  const faultsStart = pageFaultsOf(server.pid);
  const start = process.hrtime.bigint();
  let next = 0;
  const sender = async () => {
    while (next < docs) {
      const from = next;
      next = Math.min(docs, next + 1000);
      const r = await server.request('POST', `/${server.db}/_bulk_docs`, batchBody(from, next));
      if (r.status !== 201) throw new Error(`bulk load: ${r.status} ${r.body.slice(0, 200)}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, sender));
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const serverCpu = server.pid === undefined ? undefined : cpuSecondsOf(server.pid) - cpuStart;
  const pageFaults = server.pid === undefined ? undefined : pageFaultsOf(server.pid) - faultsStart;
  return { docsPerSecond: docs / seconds, seconds, serverCpu, pageFaults };
}

async function randomReads(server, docs, seconds, concurrency) {
  const latencies = [];
  const deadline = Date.now() + seconds * 1000;
  let seed = 42;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  const worker = async () => {
    while (Date.now() < deadline) {
      const id = docId(next() % docs);
      const t0 = process.hrtime.bigint();
      const r = await server.request('GET', `/${server.db}/${id}`);
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

/** Runs after the bulk load (whose result is passed in). */
export async function runDocs(server, opts, load) {
  const reads = await randomReads(server, opts.docs, opts.seconds, opts.concurrency);
  return { load, reads, rss: peakRssOf(server.pid) };
}

async function parserSpeed(docs) {
  const { parseJson } = await import(pathToFileURL(join(PACKAGE, 'dist', 'src', 'json', 'index.js')).href);
  const bodies = [];
  for (let start = 0; start < Math.min(docs, 100_000); start += 1000)
    bodies.push(batchBody(start, Math.min(docs, start + 1000)));
  const parsedDocs = Math.min(docs, 100_000);
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
  return { oursMBs: bytes / ours / 1e6, nativeMBs: bytes / native / 1e6, oursSecondsPerDoc: ours / parsedDocs };
}

export async function reportDocs(results, opts) {
  const parse = await parserSpeed(opts.docs);
  const peer = results['pouchdb-server'];
  const ratio = (a, b) => (b === undefined ? '' : `${(a / b).toFixed(2)}×`);
  console.log('## docs suite\n');
  console.log(
    `bulk load: ${fmt(opts.docs)} docs in batches of 1,000 (${opts.bulkConcurrency} in flight); GET /db/{id} for ${opts.seconds} s at concurrency ${opts.concurrency}\n`,
  );
  console.log('| server | bulk load docs/s | GET doc req/s (c16) | p50 ms | p99 ms | peak RSS MB |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const [name, r] of Object.entries(results)) {
    const rss = r.rss === undefined ? 'n/a' : fmt(r.rss / 1048576);
    console.log(
      `| ${name} | ${fmt(r.load.docsPerSecond)} | ${fmt(r.reads.perSecond)} | ${fmt(r.reads.p50, 2)} | ${fmt(r.reads.p99, 2)} | ${rss} |`,
    );
  }
  const ours = results.divan;
  if (ours !== undefined) {
    console.log('');
    const bulkTarget = ours.load.docsPerSecond >= 50_000;
    console.log(
      `bulk load: ${fmt(ours.load.docsPerSecond)} docs/s, ${ratio(ours.load.docsPerSecond, 18_000)} Apache CouchDB's 18k (target ≥ 50,000): ${bulkTarget ? 'PASS' : 'MISS'}`,
    );
    if (ours.load.serverCpu !== undefined) {
      // The figure least bent by a busy machine: what the server itself spent on the load.
      console.log(
        `bulk load, the server's own cost: ${fmt(ours.load.serverCpu, 2)} s CPU, ${fmt(ours.load.pageFaults / 1000, 1)}k page faults`,
      );
    }
    if (peer !== undefined) {
      console.log(`bulk load vs pouchdb-server: ${ratio(ours.load.docsPerSecond, peer.load.docsPerSecond)}`);
      const readRatio = ours.reads.perSecond / peer.reads.perSecond;
      console.log(
        `doc reads vs pouchdb-server: ${readRatio.toFixed(2)}× (target ≥ 5×): ${readRatio >= 5 ? 'PASS' : 'MISS'}`,
      );
      console.log(`peak RSS vs pouchdb-server: ${ratio(ours.rss, peer.rss)}`);
    }
  }
  const share = ours ? ((parse.oursSecondsPerDoc * opts.docs) / ours.load.seconds) * 100 : undefined;
  console.log(
    `\nJSON parser on the bulk bodies: ours ${fmt(parse.oursMBs)} MB/s, JSON.parse ${fmt(parse.nativeMBs)} MB/s; parsing is ${share === undefined ? '?' : share.toFixed(1)}% of our bulk-load time\n`,
  );
}
