import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from '../src/documents/database.js';
import { openDivan } from '../src/embedded.js';
import { fromPlain } from '../src/json/index.js';
import { TAIL_SEQS } from '../src/storage/sqlite/access-rows.js';
import { pagesPerCommit } from './access-wal-pages.js';
import { serverWrites } from './access-writes-http.js';

/**
 * The write target of per-document access (#30: a write to an access-enabled database costs at
 * most 1.2× one to a plain database), in process on SQLite, alone and quick to repeat: `node
 * --no-node-snapshot packages/db/dist/bench/access-writes.js [rounds] [perRound]` after `npx tsc
 * -b` (the `access` suite prints the new-document figure among its reads).
 *
 * Two cases, each as alternating rounds of `perRound` one-document writes, access-enabled then
 * plain: new documents (`_access: ["someone"]`), and updates of 500 documents in turn, their
 * `_access` unchanged (a document's usual update). Figures are CPU time of this process (user +
 * system) per write: the cheapest round of each kind (other processes' turns only ever add CPU
 * time, so on a loaded machine it is the closest to the write's own cost) and the median of the
 * per-round ratios. Wall time counts other processes' turns and is not given. The plain bodies
 * have no `_access` (the target: the same document written without access control); the same
 * two cases follow against plain bodies that carry the member too (like with like). Then the pages one
 * commit of each case changes (WAL frames, by owner: ./access-wal-pages.ts), the same however
 * loaded the machine is: updates right after new documents, and updates once the updated
 * documents' rows are the last of the principal's range. Last, the same writes through a server
 * (./access-writes-http.ts).
 */

const rounds = Number(process.argv[2] ?? 60);
// A round is a whole number of the tail's merges (storage/sqlite/access-rows.ts: one every
// TAIL_SEQS writes), so each round carries the merges' share a write pays on average: with 20, a
// round held one merge or none and the median round paid a merge at 1/20 a write, not 1/32.
const perRound = Number(process.argv[3] ?? 2 * TAIL_SEQS);
const httpRounds = Number(process.argv[4] ?? 15);
const httpPerRound = Number(process.argv[5] ?? 200);
const UPDATED = 500;

/** CPU microseconds per call of one round of `times` calls. */
async function cpuRound(times: number, run: () => Promise<unknown>): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < times; i++) await run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / times;
}

/** `rounds` alternating rounds of `a` and `b`: the cheapest of each and the median per-round ratio. */
async function pairs(a: () => Promise<unknown>, b: () => Promise<unknown>) {
  const as: number[] = [];
  const bs: number[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const x = await cpuRound(perRound, a);
    const y = await cpuRound(perRound, b);
    as.push(x);
    bs.push(y);
    ratios.push(x / y);
  }
  ratios.sort((x, y) => x - y);
  const aMin = Math.min(...as);
  const bMin = Math.min(...bs);
  return { aMin, bMin, cheapest: aMin / bMin, median: ratios[ratios.length >> 1]! };
}

/**
 * New documents, one per write; with `access` their bodies carry `_access: ["someone"]` (in a
 * plain database a member like any other: the like-for-like body, not the target's).
 */
function creator(db: Database, access: boolean, prefix = 'n'): () => Promise<unknown> {
  let k = 0;
  return () =>
    db.bulkDocs([fromPlain({ _id: `${prefix}${k++}`, v: k, ...(access ? { _access: ['someone'] } : {}) })], true);
}

/** Updates of `UPDATED` documents in turn (written first), each keeping its `_access`. */
async function updater(db: Database, access: boolean, prefix = 'u'): Promise<() => Promise<unknown>> {
  const extra = access ? { _access: ['someone'] } : {};
  const revs: string[] = [];
  for (let i = 0; i < UPDATED; i++) {
    const [result] = await db.bulkDocs([fromPlain({ _id: `${prefix}${i}`, v: 0, ...extra })], true);
    if (result === undefined || !('ok' in result)) throw new Error(`access-writes: u${i} not written`);
    revs.push(result.rev);
  }
  let turn = 0;
  return async () => {
    const i = turn++ % UPDATED;
    const [result] = await db.bulkDocs([fromPlain({ _id: `${prefix}${i}`, _rev: revs[i], v: turn, ...extra })], true);
    if (result === undefined || !('ok' in result)) throw new Error(`access-writes: u${i} not updated`);
    revs[i] = result.rev;
  };
}

const dir = mkdtempSync(join(tmpdir(), 'divan-bench-access-writes-'));
const divan = openDivan(dir);
try {
  const plain = (await divan.createDb('plain')).database;
  const gated = (await divan.createDb('gated', { access: true })).database;
  const cases = [
    ['new document', creator(gated, true), creator(plain, false)],
    ['update', await updater(gated, true), await updater(plain, false)],
  ] as const;
  // Warm-up: the JIT and both files' pages.
  for (const [, a, b] of cases) await pairs(a, b);
  for (const [name, a, b] of cases) {
    const { aMin, bMin, cheapest, median } = await pairs(a, b);
    console.log(
      `access-writes: ${name}: cheapest round ${aMin.toFixed(0)} / ${bMin.toFixed(0)} µs CPU access-enabled / plain = ${cheapest.toFixed(2)}×, median of per-round ratios ${median.toFixed(2)}× (target ≤ 1.2×)`,
    );
  }
  // Like with like: a plain database whose bodies carry the same `_access` member (stored there
  // as any member, and hashed), beside the target above whose plain bodies have none.
  const plainWithMember = (await divan.createDb('plain-with-member')).database;
  const likeCases = [
    ['new document', cases[0][1], creator(plainWithMember, true)],
    ['update', cases[1][1], await updater(plainWithMember, true)],
  ] as const;
  for (const [name, a, b] of likeCases) {
    for (let i = 0; i < 10 * perRound; i++) await b();
    const { aMin, bMin, cheapest, median } = await pairs(a, b);
    console.log(
      `access-writes: ${name}, plain bodies with \`_access\` too: cheapest round ${aMin.toFixed(0)} / ${bMin.toFixed(0)} µs CPU = ${cheapest.toFixed(2)}×, median of per-round ratios ${median.toFixed(2)}×`,
    );
  }
  // Updates just after new documents move rows from far back in the principal's range; once
  // every updated document was updated since, their rows are the range's last 500 (a steady state
  // in which one page can hold them all).
  const [, updateGated, updatePlain] = cases[1];
  const pageCases = [
    ...cases,
    [
      'update, steady (each updated row among the range last 500)',
      updateGated,
      updatePlain,
      async () => {
        for (let i = 0; i < UPDATED; i++) await Promise.all([updateGated(), updatePlain()]);
      },
    ],
  ] as const;
  for (const [name, a, b, before] of pageCases) {
    await before?.();
    const [gatedPages, plainPages] = [
      await pagesPerCommit(dir, 'gated', 200, a),
      await pagesPerCommit(dir, 'plain', 200, b),
    ];
    const total = (pages: Map<string, number>) => [...pages.values()].reduce((x, y) => x + y, 0);
    const trees = (pages: Map<string, number>) => [...pages].map(([tree, n]) => `${tree} ${n.toFixed(2)}`).join(', ');
    console.log(
      `access-writes: ${name}: pages per commit ${total(gatedPages).toFixed(2)} access-enabled (${trees(gatedPages)}), ${total(plainPages).toFixed(2)} plain (${trees(plainPages)}): ${(total(gatedPages) / total(plainPages)).toFixed(2)}×`,
    );
  }
} finally {
  await divan.close();
  rmSync(dir, { recursive: true, force: true });
}

// The same target as a user meets it: a server on a loopback port (./access-writes-http.ts).
await serverWrites(httpRounds, httpPerRound);
