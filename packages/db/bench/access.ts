import { mkdtempSync, rmSync } from 'node:fs';
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

/**
 * Per-document access in-process (no server), on SQLite: `npm run bench -w @divan/db -- --suite
 * access`, or by hand after `npx tsc -b`: `node packages/db/dist/bench/access.js [users] [perUser]`.
 *
 * The targets (#30), printed with the figures (not asserted):
 * - one user's `_all_docs` and `_changes?since=0` in a database of `users × perUser` documents
 *   (1,000 × 100 by default) cost at most 1.5× the same query on a database holding only that
 *   user's documents (the access rows make them a range scan);
 * - a document write in an access-enabled database costs at most 1.2× one in a plain database.
 * And an A/B of a reader's `_find` without an index: through their access rows against a scan of
 * every document filtered by their readable ids (what it did before).
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

async function drain(rows: AsyncIterable<unknown>): Promise<number> {
  let n = 0;
  for await (const _ of rows) n++;
  return n;
}

/** Microseconds per call, the median of five rounds of `times` calls. */
async function timed(times: number, run: () => Promise<unknown>): Promise<number> {
  const rounds: number[] = [];
  for (let r = 0; r < 5; r++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < times; i++) await run();
    rounds.push(Number(process.hrtime.bigint() - start) / 1000 / times);
  }
  return rounds.sort((a, b) => a - b)[2]!;
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
    const big = await timed(READS, () => run(shared));
    const small = await timed(READS, () => run(alone));
    const ratio = big / small;
    console.log(
      `access: one user's ${name}: ${big.toFixed(0)} µs among ${users * perUser} docs, ${small.toFixed(0)} µs alone: ${ratio.toFixed(2)}× (target ≤ 1.5×)`,
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
  const joinUs = await timed(FINDS, joined);
  const scanUs = await timed(FINDS, scanned);
  console.log(
    `access: one user's _find without an index among ${users * perUser} docs: ${joinUs.toFixed(0)} µs through the access rows, ${scanUs.toFixed(0)} µs scanning every document by the user's ids: ${(joinUs / scanUs).toFixed(3)}×`,
  );

  const plain = (await divan.createDb('plain')).database;
  const gated = (await divan.createDb('gated', { access: true })).database;
  let k = 0;
  const write = (db: Database, access: boolean) => () =>
    db.bulkDocs([fromPlain({ _id: `w${k++}`, v: k, ...(access ? { _access: ['someone'] } : {}) })], true);
  const plainUs = await timed(WRITES / 5, write(plain, false));
  const gatedUs = await timed(WRITES / 5, write(gated, true));
  console.log(
    `access: one-document write: ${gatedUs.toFixed(0)} µs access-enabled, ${plainUs.toFixed(0)} µs plain: ${(gatedUs / plainUs).toFixed(2)}× (target ≤ 1.2×)`,
  );
} finally {
  await divan.close();
  rmSync(dir, { recursive: true, force: true });
}
