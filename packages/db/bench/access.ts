import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allDocs } from '../src/documents/all-docs.js';
import { changeRows } from '../src/documents/changes.js';
import type { AccessReader } from '../src/documents/access-rules.js';
import type { Database } from '../src/documents/database.js';
import { openDivan } from '../src/embedded.js';
import { fromPlain } from '../src/json/index.js';
import { find, findBody } from '../src/mango/find.js';
import { parseFindRequest } from '../src/mango/find-request.js';
import { readableIdSet } from '../src/documents/access-reads.js';
import { pagesPerCommit } from './access-wal-pages.js';
import { TAIL_SEQS } from '../src/storage/sqlite/access-rows.js';
import { createIndex } from '../src/mango/indexes.js';
import { parseIndexRequest } from '../src/mango/index-request.js';
import { openView, queryView } from '../src/views/query/view-query.js';
import { parseQuery } from '../src/views/query/query-params.js';

/**
 * Per-document access in-process (no server), on SQLite: `npm run bench -w @divan/db -- --suite
 * access`, or by hand after `npx tsc -b`: `node --no-node-snapshot packages/db/dist/bench/access.js [users] [perUser]`.
 *
 * The targets (#30), printed with the figures (not asserted):
 * - one user's `_all_docs` and `_changes?since=0` in a database of `users × perUser` documents
 *   (1,000 × 100 by default) cost at most 1.5× the same query on a database holding only that
 *   user's documents (the access rows make them a range scan), with a full tail: TAIL_SEQS − 1
 *   sequences of other users' documents written since the last merge, which every per-user read reads;
 * - a document write in an access-enabled database costs at most 1.2× one in a plain database.
 * And the pages one such write's commit changes, by the table or index that owns each (from the
 * WAL's frames). And, for the same user, a view query (`total_rows`, the first 10 rows; a `_count` reduce) and an
 * indexed `_find` against the same queries on their database alone, and an A/B of a reader's
 * `_find` without an index: through their access rows against a scan of every document filtered
 * by their readable ids (what it did before).
 *
 * Figures are CPU time of this process (user + system), the median of five rounds: the machine
 * is shared, and wall time counts other processes' turns.
 */

const users = Number(process.argv[2] ?? 1000);
const perUser = Number(process.argv[3] ?? 100);
const userName = (u: number) => `user${String(u).padStart(4, '0')}`;
const READS = 200;
const WRITES = 2000;
const FINDS = 5;

async function load(db: Database, owners: number[], access: boolean): Promise<void> {
  for (const u of owners) {
    const docs = [];
    for (let i = 0; i < perUser; i++) {
      docs.push({
        _id: `${userName(u)}-${String(i).padStart(4, '0')}`,
        n: i,
        text: 'x'.repeat(200),
        ...(access ? { _access: [userName(u)] } : {}),
      });
    }
    await db.bulkDocs(docs.map(fromPlain), true);
  }
}

async function drain(rows: AsyncIterable<unknown> | Iterable<unknown>): Promise<number> {
  let n = 0;
  for await (const _ of rows) n++;
  return n;
}

/** Bytes this process has written through system calls so far (Linux `/proc/self/io`). */
function bytesWritten(): number {
  const line = readFileSync('/proc/self/io', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('wchar:'));
  return Number(line?.slice('wchar:'.length) ?? Number.NaN);
}

/** CPU microseconds of one round of `times` calls, per call. */
async function cpuRound(times: number, run: () => Promise<unknown>): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < times; i++) await run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / times;
}

/**
 * CPU microseconds per call of `a` and of `b`, each the median of seven rounds of `times` calls,
 * their rounds alternating (so both see the same garbage collector and caches).
 */
async function timedPair(
  times: number,
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
): Promise<[number, number]> {
  const as: number[] = [];
  const bs: number[] = [];
  for (let r = 0; r < 7; r++) {
    as.push(await cpuRound(times, a));
    bs.push(await cpuRound(times, b));
  }
  const median = (xs: number[]) => xs.sort((x, y) => x - y)[3]!;
  return [median(as), median(bs)];
}

const dir = mkdtempSync(join(tmpdir(), 'divan-bench-access-'));
const divan = openDivan(dir);
try {
  const shared = (await divan.createDb('shared', { access: true })).database;
  const alone = (await divan.createDb('alone', { access: true })).database;
  const loadStart = Date.now();
  await load(
    shared,
    Array.from({ length: users }, (_, u) => u),
    true,
  );
  await load(alone, [users >> 1], true);
  console.log(`access: loaded ${users * perUser} docs (${users} users × ${perUser}) in ${Date.now() - loadStart} ms`);

  // The reads below see a full tail: TAIL_SEQS − 1 sequences written since the last merge (other
  // users' documents), which every per-user read reads as well, as a database between two merges
  // may. `mergedAt` follows the rule (a write that takes the tail to TAIL_SEQS merges it); each
  // bulk of the load (perUser ≥ TAIL_SEQS documents) merged.
  let mergedAt = await shared.updateSeq();
  const track = async () => {
    const seq = await shared.updateSeq();
    if (seq - mergedAt >= TAIL_SEQS) mergedAt = seq;
  };
  let filler = 0;
  const fillTail = async () => {
    while ((await shared.updateSeq()) - mergedAt < TAIL_SEQS - 1) {
      await shared.bulkDocs([fromPlain({ _id: `tail-${filler++}`, n: -1, _access: [userName(0)] })], true);
      await track();
    }
  };
  await fillTail();

  const reader: AccessReader = { principals: [userName(users >> 1), '_users'] };
  const options = { inclusiveEnd: true, descending: false, skip: 0, includeDocs: false, conflicts: false };
  const listing = async (db: Database) => drain((await allDocs(db, 'all', options, reader)).rows);
  const feed = (db: Database) =>
    drain(
      changeRows(db, {
        since: 0,
        descending: false,
        includeDocs: false,
        conflicts: false,
        allLeaves: false,
        access: { reader, removed: false },
      }),
    );
  for (const [name, run] of [
    ['_all_docs', listing],
    ['_changes?since=0', feed],
  ] as const) {
    const [big, small] = await timedPair(
      READS,
      () => run(shared),
      () => run(alone),
    );
    const ratio = big / small;
    console.log(
      `access: one user's ${name}: ${big.toFixed(0)} µs CPU among ${users * perUser} docs, ${small.toFixed(0)} µs alone: ${ratio.toFixed(2)}× (target ≤ 1.5×)`,
    );
  }

  // A/B: a reader's `_find` without an index through their access rows (a range join of their
  // rows with the documents, as now) against the scan of every document filtered by their ids.
  const views = divan.couch.views(shared);
  const request = parseFindRequest(fromPlain({ selector: { n: { $gte: 50 } }, limit: 1000 }));
  const joined = async () => JSON.parse((await findBody(shared, views, request, '', undefined, reader)).toString());
  const scanned = async () => {
    const readable = await readableIdSet(shared, reader);
    return find(shared, views, request, undefined, (id) => readable.has(id));
  };
  const joinedDocs = (await joined()).docs.length;
  const scannedDocs = (await scanned()).docs.length;
  if (joinedDocs !== perUser / 2 || scannedDocs !== joinedDocs) {
    throw new Error(`access: _find found ${joinedDocs} / ${scannedDocs}, expected ${perUser / 2}`);
  }
  const [joinUs, scanUs] = await timedPair(FINDS, joined, scanned);
  console.log(
    `access: one user's _find without an index among ${users * perUser} docs: ${joinUs.toFixed(0)} µs CPU through the access rows, ${scanUs.toFixed(0)} µs scanning every document by the user's ids: ${(joinUs / scanUs).toFixed(3)}×`,
  );

  // A view and an indexed `_find` of the same reader, among everyone's rows and alone.
  const design = fromPlain({
    _id: '_design/bench',
    views: { byN: { map: 'function (doc) { emit(doc.n, null); }', reduce: '_count' } },
  });
  for (const db of [shared, alone]) {
    await db.bulkDocs([design], true);
    if (db === shared) await track();
    await createIndex(db, parseIndexRequest(fromPlain({ index: { fields: ['n'] }, ddoc: 'byn', name: 'byn' })));
    if (db === shared) await track();
  }
  await fillTail();
  const viewRows = async (db: Database, params: Record<string, unknown>) => {
    const target = await openView(db, divan.couch.views(db), 'bench', 'byN');
    const answer = await queryView(target, parseQuery(target.queryIndex, new URLSearchParams(), params), reader);
    const { meta, rows } = answer.read();
    const n = await drain(rows);
    answer.finished();
    return { meta, n };
  };
  const indexedFind = async (db: Database) => {
    const request = parseFindRequest(
      fromPlain({ selector: { n: { $gte: 50 } }, limit: 10, use_index: ['byn', 'byn'] }),
    );
    return JSON.parse((await findBody(db, divan.couch.views(db), request, '', undefined, reader)).toString());
  };
  const indexStart = Date.now();
  const checked = await viewRows(shared, { reduce: false, limit: 10 });
  await viewRows(alone, { reduce: false, limit: 10 });
  await indexedFind(shared);
  await indexedFind(alone);
  if (checked.meta.total_rows !== perUser || checked.n !== 10) {
    throw new Error(`access: the view gave ${checked.meta.total_rows} rows, ${checked.n} read`);
  }
  console.log(`access: view and Mango index built in ${Date.now() - indexStart} ms`);
  for (const [name, run] of [
    ['view (reduce=false, limit=10)', (db: Database) => viewRows(db, { reduce: false, limit: 10 })],
    ['view (_count)', (db: Database) => viewRows(db, {})],
    ['indexed _find (limit=10)', indexedFind],
  ] as const) {
    const [big, small] = await timedPair(
      FINDS * 4,
      () => run(shared),
      () => run(alone),
    );
    console.log(
      `access: one user's ${name}: ${big.toFixed(0)} µs CPU among ${users * perUser} docs, ${small.toFixed(0)} µs alone: ${(big / small).toFixed(2)}×`,
    );
  }

  const plain = (await divan.createDb('plain')).database;
  const gated = (await divan.createDb('gated', { access: true })).database;
  let k = 0;
  const write = (db: Database, access: boolean) => () =>
    db.bulkDocs([fromPlain({ _id: `w${k++}`, v: k, ...(access ? { _access: ['someone'] } : {}) })], true);
  const [gatedUs, plainUs] = await timedPair(WRITES / 5, write(gated, true), write(plain, false));
  console.log(
    `access: one-document write: ${gatedUs.toFixed(0)} µs CPU access-enabled, ${plainUs.toFixed(0)} µs plain: ${(gatedUs / plainUs).toFixed(2)}× (target ≤ 1.2×)`,
  );
  // The same, as the cheapest of 60 alternating rounds of 20 writes each: other processes' turns
  // only ever add CPU time (cache misses, migrations), so on a loaded machine the fastest round
  // is the closest to the write's own cost.
  const gatedRounds: number[] = [];
  const plainRounds: number[] = [];
  for (let r = 0; r < 60; r++) {
    gatedRounds.push(await cpuRound(20, write(gated, true)));
    plainRounds.push(await cpuRound(20, write(plain, false)));
  }
  const gatedMin = Math.min(...gatedRounds);
  const plainMin = Math.min(...plainRounds);
  console.log(
    `access: one-document write, cheapest round: ${gatedMin.toFixed(0)} µs CPU access-enabled, ${plainMin.toFixed(0)} µs plain: ${(gatedMin / plainMin).toFixed(2)}×`,
  );
  // Bytes a write hands the kernel (SQLite's WAL frames, one per page it changed): what a small
  // commit's cost follows, and unlike CPU time the same however busy the machine is.
  const written = async (run: () => Promise<unknown>): Promise<number> => {
    const before = bytesWritten();
    for (let i = 0; i < WRITES; i++) await run();
    return (bytesWritten() - before) / WRITES;
  };
  const gatedBytes = await written(write(gated, true));
  const plainBytes = await written(write(plain, false));
  console.log(
    `access: one-document write: ${(gatedBytes / 1024).toFixed(1)} KiB written access-enabled, ${(plainBytes / 1024).toFixed(1)} KiB plain: ${(gatedBytes / plainBytes).toFixed(2)}×`,
  );
  // What those bytes are: the pages one commit changes, by the table or index that owns each.
  const pages = async (name: string, run: () => Promise<unknown>) => {
    const byTree = await pagesPerCommit(dir, name, 200, run);
    const total = [...byTree.values()].reduce((a, b) => a + b, 0);
    const trees = [...byTree].map(([tree, n]) => `${tree} ${n.toFixed(2)}`).join(', ');
    return { total, trees };
  };
  const gatedPages = await pages('gated', write(gated, true));
  const plainPages = await pages('plain', write(plain, false));
  console.log(
    `access: pages one one-document commit changes: ${gatedPages.total.toFixed(2)} access-enabled (${gatedPages.trees}), ${plainPages.total.toFixed(2)} plain (${plainPages.trees})`,
  );
} finally {
  await divan.close();
  rmSync(dir, { recursive: true, force: true });
}
