// Shared by the benchmark suites (run.mjs is the entry): the data set, the HTTP client, the
// servers under test, process memory probes and latency statistics.

import { spawn } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BENCH = dirname(fileURLToPath(import.meta.url));
export const PACKAGE = dirname(BENCH);
export const ROOT = dirname(dirname(PACKAGE));

// --- the data set ------------------------------------------------------------------------------
// ~365 bytes a doc; `type` post/comment 3:1; 500 authors (author k writes only comments when
// k % 4 === 3, so 375 authors have posts); ISO `date` one minute apart; `title`, `body`, `tags`.

const WORDS =
  'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua'.split(
    ' ',
  );
export const AUTHORS = 500;
export const docId = (i) => `doc${String(i).padStart(7, '0')}`;
export const authorOf = (i) => `user${String(i % AUTHORS).padStart(3, '0')}`;
export const dateOf = (i) => new Date(Date.UTC(2020, 0, 1) + i * 60_000).toISOString();
export const isPost = (i) => i % 4 !== 3;

export function makeDoc(i) {
  const pick = (k) => WORDS[(i * 7 + k * 13) % WORDS.length];
  return {
    _id: docId(i),
    type: isPost(i) ? 'post' : 'comment',
    author: authorOf(i),
    date: dateOf(i),
    title: `${pick(1)} ${pick(2)} ${pick(3)} ${i}`,
    body: Array.from({ length: 27 }, (_, k) => pick(k + 4)).join(' '),
    tags: [pick(30), pick(31), pick(32)],
    score: (i % 1000) / 10,
    views: i * 3,
  };
}

/** The `_bulk_docs` body of docs [start, end). */
export function batchBody(start, end) {
  const docs = [];
  for (let i = start; i < end; i++) docs.push(makeDoc(i));
  return JSON.stringify({ docs });
}

/** A seeded pseudo-random generator (same sequence for every server). */
/** Takes `name VALUE` out of `args` (a script's argv), the value as a number, or `fallback` when absent. */
export function takeNumberOption(args, name, fallback) {
  const at = args.indexOf(name);
  if (at < 0) return fallback;
  const value = Number(args[at + 1]);
  args.splice(at, 2);
  return value;
}

export function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}

// --- HTTP client (the same for every server) ---------------------------------------------------

/**
 * `request(method, path, body?, {timeoutMs, onChunk})` → `{status, body, bytes, ttfbMs}`. With
 * `onChunk` the body is handed over chunk by chunk and not kept (body is then '').
 */
export function client(base, auth, concurrency, extraHeaders = {}) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const url = new URL(base);
  const request = (method, path, body, options = {}) =>
    send(method, path, body, options).catch((e) => {
      // A kept connection the server closed (its keep-alive timeout) just as it was reused: the
      // request never reached it, so it goes again once on a new connection (node's advice).
      if (!e.reusedSocket || (e.code !== 'ECONNRESET' && e.code !== 'EPIPE')) throw e;
      return send(method, path, body, options);
    });
  const send = (method, path, body, { timeoutMs, onChunk } = {}) =>
    new Promise((resolve, reject) => {
      const headers = { accept: 'application/json', ...extraHeaders };
      if (auth) headers.authorization = auth;
      if (body !== undefined) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = Buffer.byteLength(body);
      }
      const t0 = process.hrtime.bigint();
      const req = http.request({ host: url.hostname, port: url.port, method, path, headers, agent }, (res) => {
        const ttfbMs = Number(process.hrtime.bigint() - t0) / 1e6;
        const chunks = [];
        let bytes = 0;
        res.on('data', (c) => {
          bytes += c.length;
          if (onChunk) onChunk(c);
          else chunks.push(c);
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode,
            body: Buffer.concat(chunks).toString(),
            bytes,
            ttfbMs,
            headers: res.headers,
          }),
        );
        res.on('error', reject);
      });
      if (timeoutMs !== undefined) {
        req.setTimeout(timeoutMs, () =>
          req.destroy(Object.assign(new Error(`timed out after ${timeoutMs / 1000} s`), { code: 'BENCH_TIMEOUT' })),
        );
      }
      req.on('error', (e) => reject(Object.assign(e, { reusedSocket: req.reusedSocket })));
      req.end(body);
    });
  request.close = () => agent.destroy();
  return request;
}

// --- servers -----------------------------------------------------------------------------------

const ADMIN = 'bench:bench';
const basic = (userinfo) => `Basic ${Buffer.from(userinfo).toString('base64')}`;
/**
 * The node flags bin/divan.js's launcher starts its server with (bin/node-flags.json; a build
 * from before that file had only --no-node-snapshot): the bench starts the server as the launcher
 * would, without the launcher's own process.
 */
const serverFlags = (pkg) => {
  const file = join(pkg, 'bin', 'node-flags.json');
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : ['--no-node-snapshot'];
};
/** The environment the launcher adds for its server (bin/node-env.json, where the build has one; set here wins). */
const serverEnv = (pkg) => {
  const file = join(pkg, 'bin', 'node-env.json');
  return { ...(existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {}), ...process.env };
};
/**
 * Divan's own server: `storage` adds `--storage` (e.g. a PostgreSQL URL); `pkg` another build of
 * the package (the `divan-base` server of an A/B run).
 */
const divan = (port, dir, storage, pkg = PACKAGE) => ({
  cmd: process.execPath,
  args: [
    ...serverFlags(pkg),
    ...(process.env.DIVAN_BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
    join(pkg, 'bin', 'divan.js'),
    'serve',
    '--port',
    String(port),
    '--data',
    dir,
    '--admin',
    ADMIN,
    ...(storage === undefined ? [] : ['--storage', storage]),
  ],
  env: serverEnv(pkg),
  auth: basic(ADMIN),
});
const SERVERS = {
  divan: (port, dir) => divan(port, dir),
  // The same run's A/B: DIVAN_BENCH_BASE is the folder of another build of this package (say a
  // copy of bin/, dist/, native/ and package.json made before a change).
  'divan-base': (port, dir) => {
    if (!process.env.DIVAN_BENCH_BASE) throw new Error('divan-base: set DIVAN_BENCH_BASE to a build of the package');
    return divan(port, dir, undefined, process.env.DIVAN_BENCH_BASE);
  },
  // Divan on PostgreSQL: a throw-away server (scripts/postgres.mjs, default durability: fsync of
  // every commit) started on first use, a fresh schema per run.
  'divan-postgres': (port, dir, postgresUrl) => divan(port, dir, postgresUrl),
  // The same run's A/B on PostgreSQL: DIVAN_BENCH_BASE's build, on a schema of its own of the same server.
  'divan-postgres-base': (port, dir, postgresUrl) => {
    if (!process.env.DIVAN_BENCH_BASE)
      throw new Error('divan-postgres-base: set DIVAN_BENCH_BASE to a build of the package');
    return divan(port, dir, postgresUrl, process.env.DIVAN_BENCH_BASE);
  },
  'pouchdb-server': (port) => ({
    cmd: process.execPath,
    args: [
      join(BENCH, 'node_modules', 'pouchdb-server', 'bin', 'pouchdb-server'),
      '--in-memory',
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
    ],
    auth: undefined,
  }),
};

let postgres;
/** The throw-away PostgreSQL of this run (stopped when the process exits). */
function benchPostgres() {
  postgres ??= import(join(PACKAGE, '..', '..', 'scripts', 'postgres.mjs')).then(async ({ startPostgres }) => {
    const pg = await startPostgres({ durable: true, log: (line) => console.log(`postgres: ${line}`) });
    process.on('exit', () => pg.stop());
    return pg;
  });
  return postgres;
}

/** `COUCHDB_URL` (e.g. http://admin:pass@127.0.0.1:5984) as base + auth, or undefined. */
export function couchdbTarget() {
  const raw = process.env.COUCHDB_URL;
  if (!raw) return undefined;
  const url = new URL(raw);
  const auth = url.username
    ? basic(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`)
    : undefined;
  return { base: `${url.protocol}//${url.host}`, auth };
}

/** A loopback port nobody listens on now (the system's pick). */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/**
 * A server under test: `request`, `db` (the database name to use), `pid` (undefined for an
 * external server such as Apache CouchDB, whose memory we cannot see), `storage` (divan-postgres:
 * its PostgreSQL URL), `stop()`. On a free port: a fixed one could already be taken by another
 * run's server, which the benchmark would then measure instead. `options.storage`: a
 * divan-postgres node on that storage (a second node of the same deployment); `options.dataFrom`:
 * a Divan server on a copy of that data folder (without its view indexes).
 */
export async function startServer(name, options = {}) {
  if (name === 'couchdb') {
    const target = couchdbTarget();
    if (target === undefined) throw new Error('couchdb: set COUCHDB_URL');
    const request = client(target.base, target.auth, 16);
    const r = await request('GET', '/', undefined, { timeoutMs: 3000 });
    if (r.status !== 200) throw new Error(`couchdb: GET / answered ${r.status}`);
    const db = 'divan_bench';
    await request('DELETE', `/${db}`);
    return {
      name,
      request,
      base: target.base,
      auth: target.auth,
      db,
      pid: undefined,
      stop: async () => {
        await request('DELETE', `/${db}`);
        request.close();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), `divan-bench-${name}-`));
  let postgresUrl;
  let postmaster;
  if (options.storage !== undefined) postgresUrl = options.storage;
  else if (name === 'divan-postgres' || name === 'divan-postgres-base') {
    const pg = await benchPostgres();
    postmaster = pg.pid();
    const url = new URL(pg.url);
    url.searchParams.set('schema', `bench_${Date.now().toString(36)}`);
    postgresUrl = url.toString();
  }
  // A copy of a loaded data folder (run.mjs --data-from): its view indexes left behind, so the
  // views suite builds them again; a 1M load takes minutes, a copy seconds.
  if (options.dataFrom !== undefined) {
    cpSync(options.dataFrom, join(dir, 'data'), {
      recursive: true,
      filter: (source) => !source.endsWith('.views') && !source.endsWith('divan.lock'),
    });
  }
  const port = await freePort();
  const spec = SERVERS[name](port, join(dir, 'data'), postgresUrl);
  const child = spawn(spec.cmd, spec.args, {
    cwd: dir,
    env: spec.env ?? process.env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (postmaster !== undefined) postmasterOf.set(child.pid, postmaster);
  const request = client(`http://127.0.0.1:${port}`, spec.auth, 16);
  let up = false;
  for (let i = 0; i < 600 && !up && child.exitCode === null; i++) {
    try {
      up = (await request('GET', '/')).status === 200;
    } catch {}
    if (!up) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (!up) throw new Error(`${name} did not start`);
  // A fresh server's RSS once its start-up work has settled (issue #31: ≤ 50 MB), 2 s after
  // it answered; with `options.settledRss`, again 12 s after (divan serve's one collection
  // after 6 s of idling, cli/idle-compaction.ts, has run by then).
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const idleRss = rssOf(child.pid);
  let settledRss;
  if (options.settledRss) {
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    settledRss = rssOf(child.pid);
  }
  return {
    name,
    request,
    base: `http://127.0.0.1:${port}`,
    auth: spec.auth,
    db: 'bench',
    pid: child.pid,
    idleRss,
    settledRss,
    storage: postgresUrl,
    /** The directory the server runs in (cpu profiles land there). */
    dir,
    stop: async () => {
      request.close();
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        const killed = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await new Promise((resolve) => child.once('exit', resolve));
        clearTimeout(killed);
      }
      if (!process.env.DIVAN_BENCH_KEEP) rmSync(dir, { recursive: true, force: true });
      else console.error(`bench: kept ${dir}`);
    },
  };
}

// --- process memory ----------------------------------------------------------------------------

function statusField(pid, field) {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}
export const rssOf = (pid) => (pid === undefined ? undefined : statusField(pid, 'VmRSS'));
export const peakRssOf = (pid) => (pid === undefined ? undefined : statusField(pid, 'VmHWM'));

/** /proc/pid/stat's fields after the command name (fields[1] is the parent's pid), or undefined. */
function statFields(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** CPU seconds (user + system) the process alone has used so far, from /proc/pid/stat. */
export function ownCpuSecondsOf(pid) {
  if (pid === undefined) return undefined;
  const fields = statFields(pid);
  return fields === undefined ? undefined : (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in USER_HZ
}

/**
 * CPU seconds a PostgreSQL server has used so far: its postmaster's own and its reaped children's
 * (cutime, cstime: backends that ended), and every live child's (backends, WAL writer, checkpointer...).
 */
function postgresCpuSeconds(postmaster) {
  const fields = statFields(postmaster);
  if (fields === undefined) return 0;
  let ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const child = statFields(entry);
    if (child !== undefined && child[1] === String(postmaster)) ticks += Number(child[11]) + Number(child[12]);
  }
  return ticks / 100;
}

/** A divan-postgres node's pid → its PostgreSQL's postmaster pid (the bench's throw-away server). */
const postmasterOf = new Map();

/**
 * CPU seconds (user + system) the server has used so far: the process's own, and for a
 * divan-postgres node the whole PostgreSQL server's too (its backends do the node's storage work;
 * only this run's nodes use that server, one at a time except in the nodes suite).
 */
export function cpuSecondsOf(pid) {
  const own = ownCpuSecondsOf(pid);
  const postmaster = postmasterOf.get(pid);
  return own === undefined || postmaster === undefined ? own : own + postgresCpuSeconds(postmaster);
}

/** The PostgreSQL share of cpuSecondsOf(pid): 0 for a server on SQLite. */
export function storageCpuSecondsOf(pid) {
  const postmaster = postmasterOf.get(pid);
  return postmaster === undefined ? 0 : postgresCpuSeconds(postmaster);
}

/**
 * Page faults (minor + major) the process has taken so far, from /proc/pid/stat. On a virtual
 * machine whose first touch of a page is slow (tens of µs), memory mapped afresh and dropped
 * again costs more than the work done in it: this says how much of that a workload does.
 */
export function pageFaultsOf(pid) {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[7]) + Number(fields[9]); // minflt, majflt
  } catch {
    return undefined;
  }
}

/** Resets VmHWM (Linux: `echo 5 > /proc/pid/clear_refs`); false when not allowed. */
export function resetPeakRss(pid) {
  if (pid === undefined) return false;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Samples VmRSS every `ms` until stop(), which returns {before, max, after, samples}. */
export function sampleRss(pid, ms = 25) {
  if (pid === undefined) return { stop: () => undefined };
  const before = rssOf(pid);
  let max = before ?? 0;
  let samples = 0;
  const timer = setInterval(() => {
    const rss = rssOf(pid);
    if (rss !== undefined) {
      samples++;
      if (rss > max) max = rss;
    }
  }, ms);
  return {
    stop() {
      clearInterval(timer);
      const after = rssOf(pid);
      if (after !== undefined && after > max) max = after;
      return { before, max, after, samples };
    },
  };
}

// --- latency -----------------------------------------------------------------------------------

export function percentile(sorted, p) {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

/** The middle of `values` (of a sorted copy; the upper one of an even count). */
export const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

/**
 * This thread's time on a core and waiting for one, ms (the kernel's per-thread run time,
 * /proc/thread-self/schedstat): process CPU swings with SQLite's checkpoints and V8's helpers.
 */
export function threadSchedMs() {
  const [run, wait] = readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ');
  return { run: Number(run) / 1e6, wait: Number(wait) / 1e6 };
}

/**
 * Closed-loop load: `concurrency` workers each send `next()` (→ [method, path, body?]) back to
 * back for `seconds`, after `warmup` unrecorded requests per worker. `check(response)` runs on
 * the first recorded response (throws on a wrong answer). At most `maxRequests` are recorded.
 * `cpuOf(pid)`: the server's CPU seconds so far (default: its own and, on divan-postgres, PostgreSQL's).
 */
export async function closedLoop({
  request,
  next,
  seconds,
  concurrency,
  warmup = 3,
  check,
  timeoutMs,
  maxRequests = Infinity,
  pid,
  ok = 200,
  cpuOf = cpuSecondsOf,
}) {
  const send = async () => {
    const [method, path, body] = next();
    const t0 = process.hrtime.bigint();
    const r = await request(method, path, body, { timeoutMs });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (r.status !== ok) throw new Error(`${method} ${path}: ${r.status} ${r.body.slice(0, 200)}`);
    return { r, ms };
  };
  // Warm-up rounds (at least one; no more once a second has gone: a peer may take seconds a query).
  const warmupEnd = Date.now() + 1000;
  for (let i = 0; i < warmup && (i === 0 || Date.now() < warmupEnd); i++)
    await Promise.all(Array.from({ length: concurrency }, send));
  const latencies = [];
  let checked = check === undefined;
  const deadline = Date.now() + seconds * 1000;
  const cpuStart = cpuOf(pid);
  const start = process.hrtime.bigint();
  const worker = async () => {
    while (Date.now() < deadline && latencies.length < maxRequests) {
      const { r, ms } = await send();
      latencies.push(ms);
      if (!checked) {
        checked = true;
        check(r);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = Number(process.hrtime.bigint() - start) / 1e9;
  const cpu = pid === undefined ? undefined : cpuOf(pid) - cpuStart;
  latencies.sort((a, b) => a - b);
  return {
    perSecond: latencies.length / elapsed,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    n: latencies.length,
    // The server's CPU per request and share of one core: tells a server-bound run from a
    // client-bound one (client and server share the machine's cores).
    serverCpuMs: cpu === undefined ? undefined : (cpu * 1000) / latencies.length,
    serverBusy: cpu === undefined ? undefined : cpu / elapsed,
  };
}

// --- phases (for profiles) ----------------------------------------------------------------------

// With DIVAN_BENCH_PHASES=file, each workload appends `server workload startUs endUs` (monotonic
// clock, the one --cpu-prof uses) so bench/profile-summary.mjs can cut a server profile by phase.
export const nowUs = () => Number(process.hrtime.bigint() / 1000n);
export function phase(server, name, startUs) {
  if (process.env.DIVAN_BENCH_PHASES)
    appendFileSync(process.env.DIVAN_BENCH_PHASES, `${server.name} ${name} ${startUs} ${nowUs()}\n`);
}

// --- formatting --------------------------------------------------------------------------------

export const fmt = (n, d = 0) =>
  n === undefined || Number.isNaN(n)
    ? 'n/a'
    : n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
export const mb = (bytes) => (bytes === undefined ? 'n/a' : fmt(bytes / 1048576));
