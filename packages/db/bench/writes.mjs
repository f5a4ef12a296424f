// The writes suite (issue #31): single-document PUTs of a small body (~60 bytes) over keep-alive
// at c1 and c16, over a new connection each at c1, and the update of a document that already
// has 1,000 revisions (c1, each PUT naming the rev the one before made), beside the PUT of a new
// document: its cost should not grow with the document's history.
//
// Each PUT row is also run, right after the server's, against a bare node:http server that
// answers the same PUT with the same 201 (./bare-put-server.mjs) and does nothing else, driven
// by the same client: the floor this client and node's HTTP machinery set on this machine. The
// report prints it beside the target (which it does not change) and Divan's share above it.
//
// The rows measure a server in its steady state: before them, WARM_UP unrecorded PUTs (most at
// c16, the rest at c1) let V8 compile the request path. A fresh server's first thousand PUTs
// cost it ~4× the CPU of its fifth thousand (0.95 against 0.23 ms at c1), and c1, the first row,
// used to pay for that compilation inside its 5 s.

import { spawn } from 'node:child_process';
import http from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { BENCH, client, closedLoop, cpuSecondsOf, fmt, nowUs, percentile, phase } from './common.mjs';

const TARGETS = {
  put1: { label: 'PUT a new document, keep-alive, c1, req/s', goal: 3180, better: 'higher', couch: '318 req/s' },
  put16: { label: 'PUT a new document, keep-alive, c16, req/s', goal: 10350, better: 'higher', couch: '1,035 req/s' },
  putFresh1: {
    label: 'PUT a new document, a new connection each, c1, req/s',
    goal: 1795,
    better: 'higher',
    couch: '359 req/s',
  },
  update1k: {
    label: 'PUT an update of a document with 1,000 revisions, c1, p50 ms',
    goal: undefined,
    better: 'lower',
    couch: '5.91 ms',
  },
};

/** Unrecorded PUTs before the rows, at c16 and then at c1, on the server and on the floor alike. */
const WARM_UP = { c16: 4000, c1: 1000 };

/** How many revisions the long-lived document has before its updates are timed. */
const HISTORY = 1000;
/** PUTs in each block of updates, and of new documents, that alternate in the update row. */
const UPDATE_BLOCK = 100;

const body = (i) => JSON.stringify({ type: 'write', n: i, note: 'a small document body' });

export async function runWrites(server, opts) {
  const { request, db } = server;
  const log = (line) => console.error(`${server.name}: ${line}`);
  const capMs = opts.peerTimeout * 1000;
  const out = {};
  const created = await request('PUT', `/${db}_writes`);
  if (created.status !== 201) throw new Error(`create ${db}_writes: ${created.status} ${created.body}`);
  const path = (id) => `/${db}_writes/${id}`;
  let n = 0;
  const putNew = () => ['PUT', path(`w${n++}`), body(n)];
  const loop = async (into, name, concurrency, next, send, pid) => {
    try {
      const started = nowUs();
      // This process's own CPU per request: at c1 client and server run in turn, so the client's
      // time is part of every request's and sets a floor no server can go below.
      const clientStart = process.cpuUsage();
      into[name] = await closedLoop({
        request: send,
        next,
        seconds: opts.viewSeconds,
        concurrency,
        timeoutMs: capMs,
        pid,
        ok: 201,
      });
      const client = process.cpuUsage(clientStart);
      // closedLoop's few warm-up requests (3 rounds at most) are in the CPU but not in `n`.
      into[name].clientCpuMs = (client.user + client.system) / 1000 / (into[name].n + 3 * concurrency);
      if (into === out) phase(server, name, started);
    } catch (e) {
      into[name] = { error: e.message };
      log(`${into === out ? '' : 'floor '}${name}: ${e.message}`);
    }
  };
  const floor = await startFloor(server.auth);
  out.floor = {};
  let f = 0;
  const putFloor = () => ['PUT', `/${db}_writes/w${f++}`, body(f)];
  const warmUp = async (send, next) => {
    for (const [concurrency, count] of [
      [16, WARM_UP.c16],
      [1, WARM_UP.c1],
    ]) {
      let left = count;
      const worker = async () => {
        while (left-- > 0) {
          const [method, path, payload] = next();
          const r = await send(method, path, payload, { timeoutMs: capMs });
          if (r.status !== 201) throw new Error(`warm-up ${method} ${path}: ${r.status} ${r.body.slice(0, 200)}`);
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
    }
  };
  try {
    const started = nowUs();
    try {
      await warmUp(request, putNew);
      await warmUp(floor.request, putFloor);
    } catch (e) {
      log(`warm-up: ${e.message}`);
    }
    phase(server, 'warmUp', started);
    // Each row on the server, then at once on the floor: both see the same minute of the machine.
    await loop(out, 'put1', 1, putNew, request, server.pid);
    await loop(out.floor, 'put1', 1, putFloor, floor.request, floor.pid);
    await loop(out, 'put16', 16, putNew, request, server.pid);
    await loop(out.floor, 'put16', 16, putFloor, floor.request, floor.pid);
    await loop(out, 'putFresh1', 1, putNew, freshConnections(server), server.pid);
    await loop(out.floor, 'putFresh1', 1, putFloor, freshConnections(floor), floor.pid);
  } finally {
    await floor.stop();
  }
  try {
    log(`writes: giving one document ${HISTORY} revisions ...`);
    let rev;
    for (let i = 0; i < HISTORY; i++) rev = await putDoc(request, path('long'), { n: i }, rev, capMs);
    const started = nowUs();
    const latencies = [];
    const newDoc = [];
    const cpu = { update: 0, fresh: 0 };
    const deadline = Date.now() + opts.viewSeconds * 1000;
    // Blocks of updates and of new documents in turn, so both see the same machine; the
    // server's CPU time per request of each kind is the figure least bent by a busy machine.
    // /proc counts CPU time in 10 ms ticks: a block of 20 PUTs (~6 ms) read as 0 or 10 ms, so
    // a block is UPDATE_BLOCK PUTs, several ticks long.
    let fresh = 0;
    const block = async (kind, put) => {
      const cpuStart = cpuSecondsOf(server.pid);
      for (let i = 0; i < UPDATE_BLOCK; i++) {
        const t0 = process.hrtime.bigint();
        await put();
        (kind === 'update' ? latencies : newDoc).push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
      if (cpuStart !== undefined) cpu[kind] += cpuSecondsOf(server.pid) - cpuStart;
    };
    let i = 0;
    while (Date.now() < deadline) {
      await block('update', async () => {
        rev = await putDoc(request, path('long'), { n: HISTORY + i++ }, rev, capMs);
      });
      await block('fresh', () => putDoc(request, path(`fresh${fresh++}`), { n: fresh }, undefined, capMs));
    }
    latencies.sort((a, b) => a - b);
    newDoc.sort((a, b) => a - b);
    out.update1k = {
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
      n: latencies.length,
      newDocP50: percentile(newDoc, 0.5),
      serverCpuMs: server.pid === undefined ? undefined : (cpu.update * 1000) / latencies.length,
      newDocServerCpuMs: server.pid === undefined ? undefined : (cpu.fresh * 1000) / newDoc.length,
    };
    phase(server, 'update1k', started);
  } catch (e) {
    out.update1k = { error: e.message };
    log(`update1k: ${e.message}`);
  }
  return out;
}

async function putDoc(request, path, doc, rev, timeoutMs) {
  const r = await request('PUT', path, JSON.stringify(rev === undefined ? doc : { ...doc, _rev: rev }), {
    timeoutMs,
  });
  if (r.status !== 201) throw new Error(`PUT ${path}: ${r.status} ${r.body.slice(0, 200)}`);
  return JSON.parse(r.body).rev;
}

/**
 * The bare node:http server of ./bare-put-server.mjs, with a client like the servers' own
 * (common.mjs's, sending the same Authorization header): `{base, auth, pid, request, stop}`.
 */
async function startFloor(auth) {
  const child = spawn(process.execPath, [join(BENCH, 'bare-put-server.mjs')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  const port = await new Promise((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the floor server exited (${code})`)));
  });
  lines.close();
  const base = `http://127.0.0.1:${port}`;
  const request = client(base, auth, 16);
  return {
    base,
    auth,
    pid: child.pid,
    request,
    stop: async () => {
      request.close();
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A request function like common.mjs's client, but every request on a new connection. */
function freshConnections(server) {
  const url = new URL(server.base);
  return (method, path, payload, { timeoutMs } = {}) =>
    new Promise((resolve, reject) => {
      const headers = { accept: 'application/json', 'content-type': 'application/json', connection: 'close' };
      if (server.auth) headers.authorization = server.auth;
      headers['content-length'] = Buffer.byteLength(payload ?? '');
      const req = http.request({ host: url.hostname, port: url.port, method, path, headers, agent: false }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      });
      if (timeoutMs !== undefined) req.setTimeout(timeoutMs, () => req.destroy(new Error('timed out')));
      req.on('error', reject);
      req.end(payload);
    });
}

export function reportWrites(results) {
  const names = Object.keys(results);
  console.log('\n## writes suite\n');
  console.log(
    `The PUT rows start after ${fmt(WARM_UP.c16 + WARM_UP.c1)} unrecorded PUTs (${fmt(WARM_UP.c16)} at c16, ${fmt(WARM_UP.c1)} at c1): a server in its steady state, not its JIT's first seconds.\n`,
  );
  console.log(`| workload | ${names.join(' | ')} | issue's CouchDB | target | verdict | the floor (divan's run) |`);
  console.log(`|---|${names.map(() => '---:').join('|')}|---:|---:|---:|---:|`);
  for (const [key, target] of Object.entries(TARGETS)) {
    const cells = names.map((name) => {
      const r = results[name]?.[key];
      if (r === undefined) return 'n/a';
      if (r.error) return `error: ${r.error.slice(0, 50)}`;
      if (key === 'update1k') {
        const cpu =
          r.serverCpuMs === undefined
            ? ''
            : `; server CPU ${fmt(r.serverCpuMs, 2)} against ${fmt(r.newDocServerCpuMs, 2)} ms: ${fmt(r.serverCpuMs / r.newDocServerCpuMs, 2)}×`;
        return `${fmt(r.p50, 2)} (p99 ${fmt(r.p99, 2)}; a new document ${fmt(r.newDocP50, 2)}: ${fmt(r.p50 / r.newDocP50, 2)}×${cpu})`;
      }
      // Server CPU per request: the figure a busy machine bends least (closedLoop reads it).
      const cpu = r.serverCpuMs === undefined ? '' : `; server CPU ${fmt(r.serverCpuMs, 3)} ms/req`;
      return `${fmt(r.perSecond)} (p50 ${fmt(r.p50, 2)} ms${cpu})`;
    });
    const r = results.divan?.[key];
    let verdict = '—';
    let goal = target.goal === undefined ? '' : `≥ ${fmt(target.goal)}`;
    if (key === 'update1k') {
      goal = '≤ 1.5× a new document';
      // Judged by latency and, where the server's CPU is known, by CPU per request too.
      if (r !== undefined && !r.error) {
        const cpuOk = r.serverCpuMs === undefined || r.serverCpuMs / r.newDocServerCpuMs <= 1.5;
        verdict = r.p50 / r.newDocP50 <= 1.5 && cpuOk ? 'PASS' : 'MISS';
      }
    } else if (r !== undefined && !r.error) verdict = r.perSecond >= target.goal ? 'PASS' : 'MISS';
    // The bare node:http floor of the same run, beside the target it does not change.
    const floor = results.divan?.floor?.[key];
    const floorCell = floor === undefined ? '' : floor.error ? 'error' : `${fmt(floor.perSecond)} req/s`;
    console.log(`| ${target.label} | ${cells.join(' | ')} | ${target.couch} | ${goal} | ${verdict} | ${floorCell} |`);
  }
  reportFloor(results);
}

/** The PUT rows measured on the floor too. */
const FLOOR_ROWS = ['put1', 'put16', 'putFresh1'];

/**
 * Each server's PUT rows beside the bare node:http floor of the same run: milliseconds per
 * request (1 / rate, so at c16 the server's share of the machine's time, not a latency) and the
 * server's CPU per request, the part above the floor, and what the target leaves above it.
 */
function reportFloor(results) {
  const rows = [];
  for (const [name, r] of Object.entries(results)) {
    for (const key of FLOOR_ROWS) {
      const own = r?.[key];
      const floor = r?.floor?.[key];
      if (own === undefined || floor === undefined || own.error || floor.error) continue;
      const ms = 1000 / own.perSecond;
      const floorMs = 1000 / floor.perSecond;
      const targetMs = 1000 / TARGETS[key].goal;
      const cpu = (v) => (v === undefined ? 'n/a' : fmt(v, 3));
      const cpuAbove =
        own.serverCpuMs === undefined || floor.serverCpuMs === undefined
          ? 'n/a'
          : `${fmt(own.serverCpuMs - floor.serverCpuMs, 3)} (${fmt((100 * (own.serverCpuMs - floor.serverCpuMs)) / own.serverCpuMs)}% of its CPU)`;
      const room = targetMs - floorMs;
      const clientCpu =
        own.clientCpuMs === undefined ? 'n/a' : `${fmt(own.clientCpuMs, 3)} (${fmt((100 * own.clientCpuMs) / ms)}%)`;
      rows.push(
        `| ${TARGETS[key].label.replace(', req/s', '')} | ${name} | ${fmt(own.perSecond)} req/s: ${fmt(ms, 3)} ms, CPU ${cpu(own.serverCpuMs)} ms | ${fmt(floor.perSecond)} req/s: ${fmt(floorMs, 3)} ms, CPU ${cpu(floor.serverCpuMs)} ms | ${fmt(ms - floorMs, 3)} ms (${fmt((100 * (ms - floorMs)) / ms)}%) | ${cpuAbove} | ${clientCpu} | ${fmt(targetMs, 3)} ms: ${room > 0 ? `${fmt(room, 3)} ms above the floor` : 'below the floor'} |`,
      );
    }
  }
  if (rows.length === 0) return;
  console.log(
    "\nThe floor: a bare node:http server answering the same PUT with the same 201 and nothing else (bench/bare-put-server.mjs), the same client, right after each row. Per request: 1 / rate (at c16 a share of the machine, not a latency), the server process's CPU, and the bench client's own CPU (at c1 client and server run in turn: the client's share is a floor of its own). The target is unchanged by it.\n",
  );
  console.log(
    '| `PUT` a new document | server | server: rate, ms per request, server CPU | bare node:http floor | above the floor, per request | server CPU above the floor, ms | the client CPU, ms (% of ms per request) | target per request |',
  );
  console.log('|---|---|---:|---:|---:|---:|---:|---:|');
  for (const row of rows) console.log(row);
}
