// The nodes suite (divan-postgres): what a second node on the same PostgreSQL costs the first.
// Reads take no lock shared between nodes (documents are read from PostgreSQL, a view from the
// node's copy of the shared index), so a node's own CPU per read request should stay the same
// when a second node serves reads beside it. Measured per workload: the server's CPU per request
// with one node at concurrency 8 and at 4, then with two nodes at concurrency 8 each, at the same
// time. A node's CPU per request depends on its load too (a busier event loop shares its fixed
// costs among more requests), and on this machine each of two nodes gets about half the
// throughput of one: the one-node run at concurrency 4, at about that rate, is the fair baseline.
// The throughput columns are of this one machine (client, both nodes and PostgreSQL share its
// cores); the CPU per request is each node's own, read from /proc.

import {
  AUTHORS,
  authorOf,
  closedLoop,
  docId,
  fmt,
  ownCpuSecondsOf,
  rng,
  startServer,
  storageCpuSecondsOf,
} from './common.mjs';
import { DDOC } from './views.mjs';

const CONCURRENCY = 8;

const q = (value) => encodeURIComponent(JSON.stringify(value));

function workloads(db, docs) {
  return [
    {
      name: 'random GET /db/{id}',
      next: (random) => () => ['GET', `/${db}/${docId(Math.floor(random() * docs))}`],
    },
    {
      name: 'startkey=["userNNN"]&limit=10',
      next: (random) => () => [
        'GET',
        `/${db}/_design/bench/_view/by_author_date?reduce=false&startkey=${q([authorOf(Math.floor(random() * AUTHORS))])}&limit=10`,
      ],
    },
  ];
}

/** Runs on a loaded divan-postgres server (the first node); starts and stops the second. */
export async function runNodes(first, opts) {
  const log = (line) => console.error(`${first.name}: ${line}`);
  if (first.storage === undefined) throw new Error('the nodes suite runs on divan-postgres');
  const put = await first.request('PUT', `/${first.db}/_design/bench`, JSON.stringify(DDOC));
  if (put.status !== 201 && put.status !== 409) throw new Error(`PUT design doc: ${put.status}`);
  const built = await first.request('GET', `/${first.db}/_design/bench/_view/by_author_date?limit=1`, undefined, {
    timeoutMs: opts.peerTimeout * 1000,
  });
  if (built.status !== 200) throw new Error(`view build: ${built.status}`);
  log('starting a second node on the same PostgreSQL ...');
  const second = await startServer(first.name, { storage: first.storage });
  const out = [];
  try {
    for (const workload of workloads(first.db, opts.docs)) {
      const loop = (server, seed, concurrency = CONCURRENCY) =>
        closedLoop({
          request: server.request,
          next: workload.next(rng(seed)),
          seconds: opts.viewSeconds,
          concurrency,
          timeoutMs: opts.peerTimeout * 1000,
          pid: server.pid,
          cpuOf: ownCpuSecondsOf,
        });
      // PostgreSQL's CPU per request answered (every backend's: both nodes' share one server).
      const withStorage = async (run) => {
        const before = storageCpuSecondsOf(first.pid);
        const results = await run();
        const served = [results].flat().reduce((sum, r) => sum + r.n, 0);
        return { results, pgMs: ((storageCpuSecondsOf(first.pid) - before) * 1000) / served };
      };
      const one = await withStorage(() => loop(first, 3));
      const half = await loop(first, 4, CONCURRENCY / 2);
      // The second node's first view query fetches its copy of the index: in the warm-up.
      const two = await withStorage(() => Promise.all([loop(first, 5), loop(second, 6)]));
      const [a, b] = two.results;
      out.push({ name: workload.name, one: one.results, half, a, b, pgOne: one.pgMs, pgTwo: two.pgMs });
    }
  } finally {
    await second.stop();
  }
  return out;
}

export function reportNodes(results) {
  console.log('\n## nodes suite\n');
  console.log(
    `Two divan nodes on one PostgreSQL, each with ${CONCURRENCY} clients, against one node with ${CONCURRENCY} and with ${CONCURRENCY / 2} (about the rate each of two nodes gets here). CPU ms/req is the node's own CPU time per request it answered (from /proc); req/s are of this machine, whose cores the client, both nodes and PostgreSQL share.\n`,
  );
  console.log(
    `| workload | one node c${CONCURRENCY}: req/s, CPU ms/req | one node c${CONCURRENCY / 2} | two nodes c${CONCURRENCY} each: A | B | CPU per request, two nodes ÷ one node c${CONCURRENCY / 2} (÷ c${CONCURRENCY}) |`,
  );
  console.log('|---|---:|---:|---:|---:|---:|');
  const cell = (r) => `${fmt(r.perSecond)}, ${fmt(r.serverCpuMs, 3)}`;
  for (const r of results) {
    const worst = Math.max(r.a.serverCpuMs, r.b.serverCpuMs);
    const ratio = `${(worst / r.half.serverCpuMs).toFixed(2)} (${(worst / r.one.serverCpuMs).toFixed(2)})`;
    console.log(`| ${r.name} | ${cell(r.one)} | ${cell(r.half)} | ${cell(r.a)} | ${cell(r.b)} | ${ratio} |`);
  }
  // On paper, for a machine with a core for each node: a node serves 1 / (its CPU per request);
  // two serve the sum of theirs at their CPU per request beside each other, while PostgreSQL
  // has the cores its CPU per request needs at that rate.
  console.log(
    `\nOn paper (each node on a core of its own): read throughput of two nodes ÷ one = Σ (node CPU alone c${CONCURRENCY / 2} ÷ node CPU beside the other), and the PostgreSQL cores that rate needs (its CPU per request, all backends, × the two nodes' rate).\n`,
  );
  console.log(
    '| workload | PostgreSQL CPU ms/req: one node · two | two ÷ one | PostgreSQL cores needed by two nodes |',
  );
  console.log('|---|---:|---:|---:|');
  for (const r of results) {
    const scaling = r.half.serverCpuMs / r.a.serverCpuMs + r.half.serverCpuMs / r.b.serverCpuMs;
    const cores = r.pgTwo * (1 / r.a.serverCpuMs + 1 / r.b.serverCpuMs);
    console.log(
      `| ${r.name} | ${fmt(r.pgOne, 3)} · ${fmt(r.pgTwo, 3)} | ${scaling.toFixed(2)} | ${cores.toFixed(2)} |`,
    );
  }
}
