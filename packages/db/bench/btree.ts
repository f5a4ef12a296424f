import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import Database from 'better-sqlite3';
import { BTree, MemoryNodeStore, type Entry, type Reducer } from '../src/btree/index.js';
import { SqliteNodeStore } from '../src/storage/local-index/sqlite-node-store.js';

/**
 * The generic B-tree in-process, on a SQLite file and in memory (no server): `npm run bench -w
 * @divan/db -- --suite btree`, or by hand after `npx tsc -b`: `node packages/db/dist/bench/btree.js`.
 *
 * Speeds, printed (not asserted): bulk build, incremental updates, grouped and whole-range
 * reductions, short folds, memory. Rows look like a view index's: row keys as
 * the collation module's encode.ts lays them out (array key ["gNNN", n] + doc id, ~35 bytes) and values
 * `[keyJson, docId, valueJson]`. BTREE_BENCH_ROWS sets the size of the big build: default 200k;
 * BTREE_BENCH_ROWS=1000000 for the 1M-row figures.
 */

type Row = [keyJson: string, docId: string, valueJson: string];
type Red = number[];

/** An array key ["g<group>"] or ["g<group>", n] in the ICU layout, then the doc id as a raw string body. */
function rowKey(group: number, n: number | undefined, docId: string): Buffer {
  const id = Buffer.from(docId);
  const b = Buffer.allocUnsafe(1 + 1 + 4 + 1 + (n === undefined ? 0 : 9) + 1 + id.length + 1);
  let at = 0;
  b[at++] = 0x50;
  b[at++] = 0x40;
  at += b.write(`g${String(group).padStart(3, '0')}`, at, 'latin1');
  b[at++] = 0x00;
  if (n !== undefined) {
    b[at++] = 0x30;
    b.writeDoubleBE(n, at);
    b[at]! ^= 0x80; // n >= 0
    at += 8;
  }
  b[at++] = 0x00;
  at += id.copy(b, at);
  b[at++] = 0x00;
  return b;
}
/** group=true on ["gNNN"] keys: the encoded JSON key, everything before the doc id. */
const exactGroup = (key: Buffer): Buffer => key.subarray(0, 8);
/** group_level=1 on ["gNNN", n] keys: the array tag and the first element. */
const level1Group = (key: Buffer): Buffer => key.subarray(0, 7);

const sumReducer: Reducer<Row, Red> = {
  reduce: (es) => {
    let s = 0;
    for (const e of es) s += Number(e.value[2]);
    return [s];
  },
  rereduce: (rs) => {
    let s = 0;
    for (const r of rs) s += r[0]!;
    return [s];
  },
};

let seed = 42;
const random = (): number => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};

/** Rows with keys ["gNNN", n] (or ["gNNN"] when `withN` is false) over `groups` groups. */
function makeRows(count: number, groups: number, idPrefix: string, withN = true): Entry<Row>[] {
  const rows: Entry<Row>[] = [];
  for (let i = 0; i < count; i++) {
    const g = Math.floor(random() * groups);
    const n = Math.floor(random() * 1000);
    const docId = `${idPrefix}${String(i).padStart(8, '0')}`;
    const keyJson = withN ? `["g${String(g).padStart(3, '0')}",${n}]` : `["g${String(g).padStart(3, '0')}"]`;
    rows.push({ key: rowKey(g, withN ? n : undefined, docId), value: [keyJson, docId, String(n % 7)] });
  }
  return rows;
}

/** Wall and CPU milliseconds of fn (the CPU figure is the fairer one on a busy machine). */
function measure(fn: () => void): string {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  fn();
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  return `${Math.round(wall)} ms (cpu ${Math.round((cpu.user + cpu.system) / 1000)} ms)`;
}

const gc: () => void = (() => {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
})();

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.floor(s.length / 2)]! * 1000) / 1000;
}

function time(fn: () => void, reps: number): number {
  const xs: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    fn();
    xs.push(performance.now() - t0);
  }
  return median(xs);
}

const log = (line: string): void => console.log(`# ${line}`);

function run(): void {
  const dir = mkdtempSync(join(tmpdir(), 'btree-bench-'));
  const open = (name: string): Database.Database => {
    const db = new Database(join(dir, `${name}.sqlite`));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    return db;
  };
  try {
    // --- 175k rows (two views' worth of 100k docs) in a SQLite file: build, 1% update.
    {
      const db = open('build');
      const t = new BTree<Row, Red>({ store: new SqliteNodeStore(db, 'view_rows'), reducer: sumReducer });
      const rows = makeRows(175_000, 500, 'doc-');
      const build = measure(() => db.transaction(() => t.update(rows, []))());
      const s = t.verify();
      log(
        `175k rows, bulk build from unsorted input into SQLite: ${build}; nodeBytes ${t.nodeBytes}, height ${s.height}, ${s.leaves} leaves, ${s.innerNodes} inner nodes`,
      );
      for (let rep = 0; rep < 3; rep++) {
        // 1% of the docs change: their old rows are removed, new rows (random keys) inserted.
        const victims = new Set<number>();
        while (victims.size < 1750) victims.add(Math.floor(random() * rows.length));
        const removes = [...victims].map((i) => rows[i]!.key);
        const inserts = makeRows(1750, 500, `new${rep}-`);
        const upd = measure(() => db.transaction(() => t.update(inserts, removes))());
        const query = measure(() => [...t.foldReduce({}, { groupKey: level1Group })]);
        log(`175k rows, update 1750 removes + 1750 inserts: ${upd}; then group_level=1 query: ${query}`);
        let k = 0;
        for (const i of victims) rows[i] = inserts[k++]!;
      }
      db.close();
    }

    // --- Queries on 100k rows: group=true over 500 keys ["gNNN"]; group_level=1 over 375 groups of ["gNNN", n].
    {
      const db = open('queries');
      const exact = new BTree<Row, Red>({ store: new SqliteNodeStore(db, 'exact'), reducer: sumReducer });
      db.transaction(() => exact.update(makeRows(100_000, 500, 'doc-', false), []))();
      const groups = [...exact.foldReduce({}, { groupKey: exactGroup })];
      assert.equal(
        groups.reduce((a, g) => a + g.reduction[0]!, 0),
        exact.reduce()[0],
      );
      log(
        `100k rows, group=true (${groups.length} groups), warm cache: p50 ${time(() => [...exact.foldReduce({}, { groupKey: exactGroup })], 21)} ms`,
      );
      log(
        `100k rows, reduce of the whole range: p50 ${time(() => exact.reduce(), 101)} ms; of a random range: p50 ${time(
          () => {
            const a = rowKey(Math.floor(random() * 250), undefined, '');
            const b = rowKey(250 + Math.floor(random() * 250), undefined, '');
            exact.reduce({ start: a, end: b });
          },
          101,
        )} ms`,
      );
      log(
        `100k rows, fold of 10 rows from a random start: p50 ${time(() => {
          let n = 0;
          for (const _ of exact.fold({ start: rowKey(Math.floor(random() * 500), undefined, 'doc-0005') }))
            if (++n === 10) break;
        }, 101)} ms; count of a random range + its offset: p50 ${time(() => {
          const a = rowKey(Math.floor(random() * 250), undefined, '');
          exact.count({ start: a });
          exact.countBefore(a);
        }, 101)} ms`,
      );
      const cold = new BTree<Row, Red>({ store: new SqliteNodeStore(db, 'exact'), reducer: sumReducer });
      const coldTime = measure(() => [...cold.foldReduce({}, { groupKey: exactGroup })]);
      log(`100k rows, group=true with a cold cache (reads and decodes ${cold.cachedNodes} nodes): ${coldTime}`);

      const level = new BTree<Row, Red>({ store: new SqliteNodeStore(db, 'level'), reducer: sumReducer });
      db.transaction(() => level.update(makeRows(100_000, 375, 'doc-'), []))();
      const n = [...level.foldReduce({}, { groupKey: level1Group })].length;
      log(
        `100k rows, group_level=1 (${n} groups), warm cache: p50 ${time(() => [...level.foldReduce({}, { groupKey: level1Group })], 21)} ms`,
      );
      db.close();
    }

    // --- The big build: BTREE_BENCH_ROWS (default 200k) rows.
    {
      const count = Number(process.env.BTREE_BENCH_ROWS ?? 200_000);
      const rows = makeRows(count, 5000, 'd');
      const avgKey = rows.slice(0, 1000).reduce((a, r) => a + r.key.length, 0) / 1000;
      gc();
      const heap0 = process.memoryUsage().heapUsed;
      const t = new BTree<Row, Red>({
        store: new MemoryNodeStore(),
        reducer: sumReducer,
        cacheBytes: 1024 * 1024 * 1024,
      });
      const build = measure(() => t.update(rows, []));
      gc();
      const heap1 = process.memoryUsage().heapUsed;
      log(
        `${count} rows (keys ~${Math.round(avgKey)} bytes), memory store: bulk build ${build}; heap +${Math.round((heap1 - heap0) / 1e6)} MB with all ${t.cachedNodes} nodes cached (decoded)`,
      );

      const db = open('big');
      const st = new BTree<Row, Red>({ store: new SqliteNodeStore(db, 'big'), reducer: sumReducer });
      const sbuild = measure(() => db.transaction(() => st.update(rows, []))());
      log(`${count} rows into a SQLite file: bulk build ${sbuild}; height ${st.verify().height}`);
      const n = Math.floor(count / 100);
      const victims = new Set<number>();
      while (victims.size < n) victims.add(Math.floor(random() * rows.length));
      const removes = [...victims].map((i) => rows[i]!.key);
      const inserts = makeRows(n, 5000, 'u');
      log(
        `${count} rows in SQLite: update of 1% (${n} removes + ${n} inserts): ${measure(() => db.transaction(() => st.update(inserts, removes))())}`,
      );
      db.close();
      log(`rss ${Math.round(process.memoryUsage().rss / 1e6)} MB`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

run();
