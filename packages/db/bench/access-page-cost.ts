import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteAccessRows } from '../src/storage/sqlite/access-rows.js';
import { configureConnection, migrateFile, migrateWinnerBodies } from '../src/storage/sqlite/sqlite-file.js';
import { TreeChunks } from '../src/storage/sqlite/tree-chunks.js';

/**
 * What the access row's page costs a commit, in SQLite alone (no document layer, no JavaScript
 * of Divan's beyond the statements): `node --no-node-snapshot packages/db/dist/bench/access-page-cost.js
 * [rounds] [perRound]`. Two files with the engine's own settings and tables; each commit writes
 * a document's rows as the engine does (its `docs` row with its body, the winner's, in it: SQLite
 * schema 9; an update also moves the row's sequence and replaces the body, the old one dropped), and in one of them also its `docs.access` text and its
 * reader's `access_feed` row at the end of the principal's range (an update moves it there).
 * Alternating rounds, process CPU per commit (the WAL frames' write and checksum, the B-tree
 * work, the checkpoints): cheapest round of each and the median of per-round differences.
 *
 * The per-principal order (a user's `_changes` and `_all_docs` are a range scan of their rows)
 * puts the row in a tree ordered by principal first, where no row of a plain write is: a row
 * inserted by each write is one more page per commit. This bench gives its price against the
 * plain write the in-process access bench measures (./access-writes.ts); since session 44 the
 * engine saves it, a write leaving its rows to the tail (storage/sqlite/access-rows.ts).
 */

const rounds = Number(process.argv[2] ?? 300);
const perRound = Number(process.argv[3] ?? 20);

type Commit = () => void;

/** A file as the engine makes it, with a writer of new documents and one of updates of `updated` documents in turn. */
function writers(path: string, feed: boolean, updated: readonly number[]): { create: Commit; updates: Commit[] } {
  const db = new Database(path);
  configureConnection(db, 'normal', false);
  migrateFile(db, 'bench');
  // The access tables and `docs.access`, then the winner's `body` column, as the engine's open makes them.
  new SqliteAccessRows(db, new TreeChunks(db));
  migrateWinnerBodies(db);
  db.prepare("INSERT INTO access_principals (id, name) VALUES (1, 'someone')").run();
  const insertDoc = db.prepare(
    'INSERT INTO docs (k, id, seq, rev, deleted, size, tree, access, body) VALUES (?, ?, ?, ?, 0, 10, ?, ?, ?)',
  );
  const updateDoc = db.prepare(
    'UPDATE docs SET seq = ?, rev = ?, deleted = 0, size = 10, tree = ?, access = ?, body = ? WHERE k = ?',
  );
  const putRow = db.prepare('INSERT INTO access_feed (principal, seq, doc, removed) VALUES (1, ?, ?, 0)');
  const moveRow = db.prepare('UPDATE access_feed SET seq = ?, removed = 0 WHERE principal = 1 AND seq = ?');
  let seq = 0;
  let k = 0;
  const revOf = (n: number, at: number) => `${n}-${((at * 2654435761) % 2 ** 32).toString(16).padStart(32, '0')}`;
  const text = (at: number) => (feed ? `[["someone"],[],null,${at}]` : null);
  // Each document's last sequence and revision.
  const last = new Map<number, { seq: number; rev: string; n: number }>();
  const create = db.transaction(() => {
    seq++;
    k++;
    const rev = revOf(1, seq);
    insertDoc.run(k, `d${k}`, seq, rev, `[1,["${rev}"]]`, text(seq), `{"v":${seq}}`);
    if (feed) putRow.run(seq, k);
    last.set(k, { seq, rev, n: 1 });
  });
  const makeUpdates = (count: number): Commit => {
    const first = k + 1;
    for (let i = 0; i < count; i++) create();
    let turn = 0;
    return db.transaction(() => {
      const doc = first + (turn++ % count);
      const before = last.get(doc)!;
      seq++;
      const rev = revOf(before.n + 1, seq);
      updateDoc.run(seq, rev, `[${before.n + 1},["${rev}","${before.rev}"]]`, text(seq), `{"v":${seq}}`, doc);
      if (feed) moveRow.run(seq, before.seq);
      last.set(doc, { seq, rev, n: before.n + 1 });
    });
  };
  return { create, updates: updated.map(makeUpdates) };
}

function cpuRound(commit: Commit): number {
  const start = process.cpuUsage();
  for (let i = 0; i < perRound; i++) commit();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / perRound;
}

function compare(name: string, withRow: Commit, plain: Commit): void {
  for (let r = 0; r < 30; r++) {
    cpuRound(withRow);
    cpuRound(plain);
  }
  const a: number[] = [];
  const b: number[] = [];
  for (let r = 0; r < rounds; r++) {
    // Alternating which goes first: neither always follows the other's checkpoint.
    if (r % 2 === 0) {
      a.push(cpuRound(withRow));
      b.push(cpuRound(plain));
    } else {
      b.push(cpuRound(plain));
      a.push(cpuRound(withRow));
    }
  }
  const diffs = a.map((x, i) => x - b[i]!).sort((x, y) => x - y);
  const aMin = Math.min(...a);
  const bMin = Math.min(...b);
  console.log(
    `access-page-cost: ${name}: cheapest round ${aMin.toFixed(1)} / ${bMin.toFixed(1)} µs CPU per commit with / without the access row and text (+${(aMin - bMin).toFixed(1)}), median of per-round differences +${diffs[diffs.length >> 1]!.toFixed(1)} µs`,
  );
}

const dir = mkdtempSync(join(tmpdir(), 'divan-bench-access-page-'));
try {
  // 500 documents updated in turn: each one's row is among the range's last 500, in its last page;
  // 3,000: each row more than a page (~585 rows) before the range's end, so the move changes two.
  const updated = [500, 3000];
  const withRow = writers(join(dir, 'row.sqlite'), true, updated);
  const plain = writers(join(dir, 'plain.sqlite'), false, updated);
  compare('new document', withRow.create, plain.create);
  updated.forEach((count, i) => {
    compare(`update, ${count} documents in turn`, withRow.updates[i]!, plain.updates[i]!);
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
