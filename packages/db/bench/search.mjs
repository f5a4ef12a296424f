// The search suite: full-text search on documents of ~1 KB English text (issue #32's targets:
// ./english.mjs; its own database, loaded here, not the other suites' ~365-byte docs), divan only
// (pouchdb-server has no `_search`; CouchDB has it only with Clouseau on a JVM). Builds: a
// one-field view over the body (the baseline the issue measures against) and a search index of
// the same field; then a term query and a two-term phrase at c1, the term query at c16, the
// Lucene-free peer (`_find` with `$regex` on the body) at c1, an incremental update after 1% of
// the documents changed, and the index's size against the documents' JSON. Each figure comes
// with the server's CPU time (per request for the loops): on a loaded machine the wall-clock
// figures of two servers of one run are not comparable, their CPU times are.

import { closedLoop, cpuSecondsOf, docId, fmt, nowUs, phase } from './common.mjs';
import { englishText, queryWords, UPDATE_MARKER } from './english.mjs';

/** Document `i` of the search corpus: ~1.1 KB of JSON, its `body` ~1,000 bytes of English. */
export function searchDoc(i) {
  return { _id: docId(i), date: new Date(Date.UTC(2020, 0, 1) + i * 60_000).toISOString(), body: englishText(i) };
}

/** Loads docs [0, n) of the corpus into `db`, 500 a `_bulk_docs`, `concurrency` at a time. */
async function loadCorpus(request, db, n, concurrency) {
  let next = 0;
  const sender = async () => {
    while (next < n) {
      const from = next;
      next = Math.min(n, next + 500);
      const docs = [];
      for (let i = from; i < next; i++) docs.push(searchDoc(i));
      // (A kept connection the server closed as it was reused is sent again by common.mjs' client.)
      const r = await request('POST', `/${db}/_bulk_docs`, JSON.stringify({ docs }));
      if (r.status !== 201) throw new Error(`search corpus: ${r.status} ${r.body.slice(0, 200)}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, sender));
}

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
  const { request } = server;
  const db = `${server.db}-search`;
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
  {
    const created = await request('PUT', `/${db}`);
    if (created.status !== 201) throw new Error(`search: create ${db}: ${created.status} ${created.body}`);
    log(`search: loading ${fmt(opts.docs)} docs of ~1 KB English text ...`);
    const started = nowUs();
    await loadCorpus(request, db, opts.docs, opts.bulkConcurrency);
    phase(server, 'search-load', started);
    const sample = Math.min(opts.docs, 1000);
    let bytes = 0;
    for (let i = 0; i < sample; i++) bytes += JSON.stringify(searchDoc(i)).length;
    out.corpus = { docs: opts.docs, docBytes: bytes / sample };
  }
  log('search: building the baseline view and the search index ...');
  await call('PUT', '/_design/bench-body-view', {
    views: { body: { map: 'function (doc) { if (doc.body) emit(doc.body, null); }' } },
  });
  await timed('viewBuild', () => call('GET', '/_design/bench-body-view/_view/body?limit=1'));
  await call('PUT', '/_design/bench-search', {
    indexes: { body: { index: 'function (doc) { if (doc.body) index("default", doc.body); }' } },
  });
  const term = queryWords(searchDoc(0).body).find((w) => w.length >= 4);
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
  // Terms and phrases drawn from the documents themselves, a different one each request: the
  // term the first word of 4+ letters from the 4th on that is no stop word; the phrase the first
  // two such words side by side from the 6th on.
  let k = 0;
  const words = () => queryWords(searchDoc((k++ * 7919) % opts.docs).body);
  const termOf = (w) => w.find((word, i) => i >= 3 && word.length >= 4) ?? w.find(Boolean);
  const phraseOf = (w) => {
    for (let i = 5; i + 1 < w.length; i++) if (w[i] && w[i + 1]) return `"${w[i]} ${w[i + 1]}"`;
    return termOf(w);
  };
  const searchPath = (q) => `/${db}/_design/bench-search/_search/body?q=${encodeURIComponent(q)}&limit=25`;
  await loop('term1', 1, () => ['GET', searchPath(termOf(words()))]);
  await loop('phrase1', 1, () => ['GET', searchPath(phraseOf(words()))]);
  await loop('term16', 16, () => ['GET', searchPath(termOf(words()))]);
  await loop('regex1', 1, () => [
    'POST',
    `/${db}/_find`,
    JSON.stringify({ selector: { body: { $regex: `\\b${termOf(words())}\\b` } }, limit: 25 }),
  ]);
  try {
    const changed = Math.max(1, Math.floor(opts.docs / 100));
    const numbers = Array.from({ length: changed }, (_, i) => (i * 97) % opts.docs);
    const ids = numbers.map(docId);
    const current = await call('POST', '/_all_docs', { keys: ids });
    const docs = current.rows
      .map((row, i) => ({ row, i }))
      .filter(({ row }) => row.value !== undefined)
      .map(({ row, i }) => ({
        ...searchDoc(numbers[i]),
        _rev: row.value.rev,
        // A new text of the same size, with a word no other document has.
        body: `${UPDATE_MARKER} ${englishText(numbers[i] + opts.docs)}`,
      }));
    await call('POST', '/_bulk_docs', { docs });
    // Only the query that takes the update in is timed.
    const started = nowUs();
    const cpu0 = cpuOf(server);
    const t0 = process.hrtime.bigint();
    const answer = await call('GET', `/_design/bench-search/_search/body?q=${UPDATE_MARKER}&limit=1`);
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
  const corpus = results[names[0]]?.corpus;
  if (corpus !== undefined)
    console.log(
      `corpus: ${fmt(corpus.docs)} docs of ~${fmt(corpus.docBytes)} bytes of JSON, ~1 KB English text each\n`,
    );
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
  const divan = results.divan;
  const term = divan?.term1?.p50;
  const regex = divan?.regex1?.p50;
  if (term !== undefined && regex !== undefined)
    console.log(
      `\nthe Lucene-free peer in this run: a term query p50 ${fmt(term, 2)} ms against \`_find\` \`$regex\` ${fmt(regex, 2)} ms (${fmt(regex / term, 1)}× faster)`,
    );
  const build = divan?.build?.seconds;
  const rate = corpus === undefined || build === undefined ? undefined : corpus.docs / build;
  // Neither is installable here (a JVM beside CouchDB), and CouchDB publishes no figures for them:
  // these are what their users and authors published, other machines and documents.
  console.log(
    `Clouseau / Nouveau (JVM, not run here; CouchDB publishes no figures): CouchDB 3.5.0's Nouveau built one index of ~1M documents in 184.8 s, ~5,400 docs/s (medic/cht-core's scalability results, cited in apache/couchdb#5894); Nouveau indexed 2-4× slower than Clouseau before apache/couchdb#4749.${rate === undefined ? '' : ` Divan's search build in this run: ${fmt(rate)} docs/s.`}`,
  );
}
