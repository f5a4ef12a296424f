// The search suite: full-text search on the bench documents (issue #32's targets), divan only
// (pouchdb-server has no `_search`; CouchDB has it only with Clouseau on a JVM). Builds: a
// one-field view over the body (the baseline the issue measures against) and a search index of
// the same field; then a term query and a two-term phrase at c1, the term query at c16, the
// Lucene-free peer (`_find` with `$regex` on the body) at c1, an incremental update after 1% of
// the documents changed, and the index's size against the documents' JSON. Each figure comes
// with the server's CPU time (per request for the loops): on a loaded machine the wall-clock
// figures of two servers of one run are not comparable, their CPU times are.

import { closedLoop, cpuSecondsOf, fmt, makeDoc, nowUs, phase } from './common.mjs';

const TARGETS = {
  viewBuild: { label: 'build a one-field view over the body (baseline), s', goal: undefined, better: 'lower' },
  build: { label: 'build the search index of the body, s', goal: undefined, better: 'lower' },
  buildRatio: { label: 'search build ÷ view build', goal: 2, better: 'lower' },
  stall: { label: 'longest wait of a `GET /` during the build and first query, ms', goal: undefined, better: 'lower' },
  term1: { label: 'term query, limit 25, c1, p50 ms', goal: 2, better: 'lower' },
  phrase1: { label: 'two-term phrase, limit 25, c1, p50 ms', goal: 5, better: 'lower' },
  term16: { label: 'term query, limit 25, c16, req/s', goal: 2000, better: 'higher' },
  regex1: { label: 'peer: _find $regex on the body (no index), c1, p50 ms', goal: undefined, better: 'lower' },
  update: { label: 'update after 1% of the docs changed, ms', goal: 100, better: 'lower' },
  sizeRatio: { label: "index size ÷ the documents' JSON", goal: 1.5, better: 'lower' },
};

export async function runSearch(server, opts) {
  const { request, db } = server;
  const log = (line) => console.error(`${server.name}: ${line}`);
  const capMs = opts.peerTimeout * 1000;
  const out = {};
  if (!server.name.startsWith('divan')) return out;
  const call = async (method, path, body) => {
    const r = await request(method, `/${db}${path}`, body === undefined ? undefined : JSON.stringify(body), {
      timeoutMs: capMs,
    });
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.body.slice(0, 200)}`);
    return JSON.parse(r.body);
  };
  const timed = async (name, fn) => {
    try {
      const started = nowUs();
      const cpu0 = cpuOf(server);
      const t0 = process.hrtime.bigint();
      await fn();
      out[name] = { seconds: Number(process.hrtime.bigint() - t0) / 1e9, cpuSeconds: cpuOf(server) - cpu0 };
      phase(server, name, started);
    } catch (e) {
      out[name] = { error: e.message };
      log(`${name}: ${e.message}`);
    }
  };
  log('search: building the baseline view and the search index ...');
  await call('PUT', '/_design/bench-body-view', {
    views: { body: { map: 'function (doc) { if (doc.body) emit(doc.body, null); }' } },
  });
  await timed('viewBuild', () => call('GET', '/_design/bench-body-view/_view/body?limit=1'));
  await call('PUT', '/_design/bench-search', {
    indexes: { body: { index: 'function (doc) { if (doc.body) index("default", doc.body); }' } },
  });
  const probe = makeDoc(0).body.split(' ');
  const term = probe[0];
  // Meanwhile a `GET /` at a time: its longest wait is the longest the build and the first
  // query's making of the postings kept the event loop from other requests.
  let building = true;
  const stalls = (async () => {
    let longest = 0;
    while (building) {
      const t0 = process.hrtime.bigint();
      // A reset connection (the server closed an idle one) is retried by the next round.
      await request('GET', '/', undefined, { timeoutMs: capMs }).catch(() => {});
      longest = Math.max(longest, Number(process.hrtime.bigint() - t0) / 1e6);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return longest;
  })();
  await timed('build', () => call('GET', `/_design/bench-search/_search/body?q=${term}&limit=1`));
  building = false;
  out.stall = { ms: await stalls };
  if (out.build?.seconds !== undefined && out.viewBuild?.seconds !== undefined) {
    out.buildRatio = { value: out.build.seconds / out.viewBuild.seconds };
  }
  const loop = async (name, concurrency, next) => {
    try {
      const started = nowUs();
      out[name] = await closedLoop({
        request,
        next,
        seconds: opts.viewSeconds,
        concurrency,
        timeoutMs: capMs,
        pid: server.pid,
        check: (r) => {
          const body = JSON.parse(r.body);
          if (!Array.isArray(body.rows ?? body.docs)) throw new Error(`${name}: no rows`);
        },
      });
      phase(server, name, started);
    } catch (e) {
      out[name] = { error: e.message };
      log(`${name}: ${e.message}`);
    }
  };
  // Terms and phrases drawn from the documents themselves, a different one each request.
  let k = 0;
  const words = () => makeDoc((k++ * 7919) % opts.docs).body.split(' ');
  const searchPath = (q) => `/${db}/_design/bench-search/_search/body?q=${encodeURIComponent(q)}&limit=25`;
  await loop('term1', 1, () => ['GET', searchPath(words()[3])]);
  await loop('phrase1', 1, () => {
    const w = words();
    return ['GET', searchPath(`"${w[5]} ${w[6]}"`)];
  });
  await loop('term16', 16, () => ['GET', searchPath(words()[3])]);
  await loop('regex1', 1, () => [
    'POST',
    `/${db}/_find`,
    JSON.stringify({ selector: { body: { $regex: `\\b${words()[3]}\\b` } }, limit: 25 }),
  ]);
  try {
    const changed = Math.max(1, Math.floor(opts.docs / 100));
    const ids = Array.from({ length: changed }, (_, i) => makeDoc((i * 97) % opts.docs)._id);
    const current = await call('POST', '/_all_docs', { keys: ids });
    const docs = current.rows
      .filter((row) => row.value !== undefined)
      .map((row, i) => ({
        ...makeDoc((i * 97) % opts.docs),
        _id: row.id,
        _rev: row.value.rev,
        body: `changed ${row.id}`,
      }));
    await call('POST', '/_bulk_docs', { docs });
    // Only the query that takes the update in is timed.
    const started = nowUs();
    const cpu0 = cpuOf(server);
    const t0 = process.hrtime.bigint();
    const answer = await call('GET', `/_design/bench-search/_search/body?q=changed&limit=1`);
    out.update = { ms: Number(process.hrtime.bigint() - t0) / 1e6, cpuMs: (cpuOf(server) - cpu0) * 1000 };
    phase(server, 'update', started);
    if (answer.total_rows !== docs.length)
      throw new Error(`update: ${answer.total_rows} of ${docs.length} changed docs found`);
  } catch (e) {
    out.update = { error: e.message };
    log(`update: ${e.message}`);
  }
  try {
    const info = await call('GET', '/_design/bench-search/_search_info/body');
    const dbInfo = await call('GET', '');
    out.sizeRatio = { value: info.search_index.disk_size / dbInfo.sizes.external };
  } catch (e) {
    out.sizeRatio = { error: e.message };
  }
  return out;
}

/** The server's CPU seconds so far (0 when it is not a local process). */
function cpuOf(server) {
  return server.pid === undefined ? 0 : cpuSecondsOf(server.pid);
}

export function reportSearch(results) {
  const names = Object.keys(results).filter((name) => name.startsWith('divan'));
  console.log('\n## search suite\n');
  console.log(`| workload | ${names.join(' | ')} | target | verdict |`);
  console.log(`|---|${names.map(() => '---:').join('|')}|---:|---:|`);
  const figure = (r, target) =>
    r === undefined || r.error
      ? undefined
      : (r.value ?? r.ms ?? r.seconds ?? (target.better === 'higher' ? r.perSecond : r.p50));
  for (const [key, target] of Object.entries(TARGETS)) {
    const cells = names.map((name) => {
      const r = results[name]?.[key];
      if (r === undefined) return 'n/a';
      if (r.error) return `error: ${r.error.slice(0, 50)}`;
      if (r.value !== undefined) return fmt(r.value, 2);
      if (r.ms !== undefined) return `${fmt(r.ms, 1)}${r.cpuMs === undefined ? '' : ` (cpu ${fmt(r.cpuMs, 1)} ms)`}`;
      if (r.seconds !== undefined)
        return `${fmt(r.seconds, 2)}${r.cpuSeconds === undefined ? '' : ` (cpu ${fmt(r.cpuSeconds, 2)} s)`}`;
      const cpu = r.serverCpuMs === undefined ? '' : `, cpu ${fmt(r.serverCpuMs, 2)} ms/req`;
      if (target.better === 'higher') return `${fmt(r.perSecond)} (p50 ${fmt(r.p50, 2)} ms${cpu})`;
      return `${fmt(r.p50, 2)} (p99 ${fmt(r.p99, 2)}${cpu})`;
    });
    const value = figure(results.divan?.[key], target);
    const verdict =
      value === undefined || target.goal === undefined
        ? '—'
        : (target.better === 'lower' ? value <= target.goal : value >= target.goal)
          ? 'PASS'
          : 'MISS';
    const goal = target.goal === undefined ? '' : `${target.better === 'lower' ? '≤' : '≥'} ${fmt(target.goal, 1)}`;
    console.log(`| ${target.label} | ${cells.join(' | ')} | ${goal} | ${verdict} |`);
  }
}
