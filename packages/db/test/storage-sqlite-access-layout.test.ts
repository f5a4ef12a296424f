import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { type DocRecord, type DocWrite, uniformLeaves } from '../src/storage/records.js';
import { openSqliteEngine } from '../src/storage/sqlite/sqlite-engine.js';
import type { SqliteSyncStore } from '../src/storage/sqlite/sync-store.js';
import { makeTempDir } from './support/tmp-dir.js';

const tmp = makeTempDir('divan-access-layout-');
after(() => tmp.cleanup());

function write(id: string, rev: string, readers: string[], leaves = uniformLeaves(readers)): DocWrite {
  return {
    record: { id, rev, deleted: false, tree: `tree:${rev}` },
    bodies: [{ rev, body: '{}' }],
    access: { leaves, readers },
  };
}

function update(db: SqliteSyncStore, writes: DocWrite[]): Map<string, string | undefined> {
  const ids = writes.length > 0 ? writes.map((w) => w.record.id) : ['a', 'b'];
  return db.updateDocs(
    ids,
    (records: ReadonlyMap<string, DocRecord>) => ({
      writes,
      result: new Map([...records.values()].map((r) => [r.id, r.access])),
    }),
    { access: true },
  ).result;
}

/**
 * The history the migration tests upgrade: four documents, then the team loses `a` and `c` (then
 * regains `c`), alice `d` to bob; `e` is written and deleted by alice.
 */
function writeHistory(db: SqliteSyncStore): void {
  update(db, [
    write('a', '1-a', ['alice', 'team']),
    write('b', '1-b', ['bob'], '{"2-x":["bob"],"2-y":["bob","eve"]}'),
    write('c', '1-c', ['team']),
    write('d', '1-d', ['alice']),
  ]);
  update(db, [write('a', '2-a', ['alice'])]);
  update(db, [write('c', '2-c', ['bob'])]);
  update(db, [write('d', '2-d', ['bob'])]);
  update(db, [write('c', '3-c', ['team', 'bob'])]);
  update(db, [write('e', '1-e', ['alice'])]);
  update(db, [{ ...write('e', '2-e', ['alice']), record: { id: 'e', rev: '2-e', deleted: true, tree: 'tree:2-e' } }]);
}

const changes = (db: SqliteSyncStore, principals: string[]) =>
  [...db.access.foldChanges(principals, 0, { withRemoved: true })].map((c) => [c.record.id, c.removed]);

/**
 * Writes the file back into the layout of schema version 5: the access rows hold the principal's
 * name and the document's id, and there are no principal ids; every row in `access_feed`, no
 * tail (the engine that wrote it merged its tail before closing: `mergeTail`).
 */
function downgradeToVersion5(path: string): void {
  const file = new Database(path);
  file.exec(`
    CREATE TABLE access_feed_text (
      principal TEXT NOT NULL, seq INTEGER NOT NULL, doc TEXT NOT NULL, removed INTEGER NOT NULL,
      PRIMARY KEY (principal, seq)) WITHOUT ROWID;
    INSERT INTO access_feed_text SELECT p.name, f.seq, d.id, f.removed
      FROM access_feed f JOIN access_principals p ON p.id = f.principal JOIN docs d ON d.k = f.doc;
    DROP TABLE access_feed;
    DROP TABLE access_principals;
    DROP TABLE access_tail;
    ALTER TABLE access_feed_text RENAME TO access_feed;
  `);
  file.pragma('user_version = 5');
  file.close();
}

/** An access tree's rows as names and ids: [principal, doc, removed], by document and principal. */
function namedRows(file: Database.Database): unknown[] {
  return file
    .prepare(
      `SELECT p.name, d.id, f.removed FROM access_feed f JOIN access_principals p ON p.id = f.principal
       JOIN docs d ON d.k = f.doc ORDER BY d.id, p.name`,
    )
    .raw()
    .all();
}

/**
 * Writes the file back into the layout of schema version 4: the access rows in `access_log`,
 * keyed by principal and document and indexed by principal and sequence, and each document's
 * `docs.access` text without the rows' sequences (`[readers, gone]`, `[readers, gone, leaves]`).
 */
function downgradeToVersion4(path: string): void {
  downgradeToVersion5(path);
  const file = new Database(path);
  file.exec(`
    CREATE TABLE access_log (
      principal TEXT NOT NULL, doc TEXT NOT NULL, seq INTEGER NOT NULL, removed INTEGER NOT NULL,
      PRIMARY KEY (principal, doc)) WITHOUT ROWID;
    CREATE INDEX access_log_by_seq ON access_log (principal, seq);
    INSERT INTO access_log (principal, doc, seq, removed) SELECT principal, doc, seq, removed FROM access_feed;
    DROP TABLE access_feed;
  `);
  const rows = file.prepare('SELECT id, access FROM docs WHERE access IS NOT NULL').raw().all() as [string, string][];
  for (const [id, text] of rows) {
    const [readers, gone, leaves] = JSON.parse(text) as [string[], string[], string | null];
    const old = leaves === null ? [readers, gone] : [readers, gone, leaves];
    file.prepare('UPDATE docs SET access = ? WHERE id = ?').run(JSON.stringify(old), id);
  }
  file.pragma('user_version = 4');
  file.close();
}

/** What the access reads of `db` answer for each principal set: the same before and after a migration. */
function answers(db: SqliteSyncStore, sets: string[][]): unknown {
  const access = db.access;
  return sets.map((principals) => ({
    principals,
    readers: access.readersOf(['a', 'b', 'c', 'd', 'e']),
    changes: [...access.foldChanges(principals, 0, {})].map((c) => [c.seq, c.record.id, c.removed]),
    withRemoved: [...access.foldChanges(principals, 0, { withRemoved: true })].map((c) => [
      c.seq,
      c.record.id,
      c.removed,
    ]),
    descending: [...access.foldChanges(principals, 2, { descending: true, withRemoved: true })].map((c) => [
      c.seq,
      c.record.id,
    ]),
    readable: [...access.foldReadable(principals, {})].map((r) => r.id),
    deleted: [...access.foldReadable(principals, { includeDeleted: true, descending: true })].map((r) => r.id),
    ranged: [...access.foldReadable(principals, { start: 'b', end: 'd', inclusiveEnd: false })].map((r) => r.id),
    count: access.countReadable(principals, {}),
    countChanges: [access.countChanges(principals, 3, false), access.countChanges(principals, 0, true)],
  }));
}

/**
 * Writes the file back into the layout before schema version 3: each document's readers only in
 * its access rows (found through a by-document index), the leaves' text of the documents whose
 * leaves differ in `access_leaves`, no `docs.access`.
 */
function downgrade(path: string): void {
  const file = new Database(path);
  file.exec(`
    CREATE TABLE access_leaves (doc TEXT PRIMARY KEY, leaves TEXT NOT NULL) WITHOUT ROWID;
    CREATE INDEX access_log_by_doc ON access_log (doc, principal);
  `);
  const rows = file.prepare('SELECT id, access FROM docs WHERE access IS NOT NULL').raw().all() as [string, string][];
  for (const [id, text] of rows) {
    const leaves = (JSON.parse(text) as unknown[])[2];
    if (typeof leaves === 'string') file.prepare('INSERT INTO access_leaves VALUES (?, ?)').run(id, leaves);
  }
  file.exec('ALTER TABLE docs DROP COLUMN access');
  file.pragma('user_version = 2');
  file.close();
}

describe('sqlite engine: access kept in the document row (schema version 3), its rows in one tree (5) of integers (6)', () => {
  it('brings a version-2 file with access rows up to date on open, readers, losses and leaves included', () => {
    const dir = join(tmp.dir, 'upgrade');
    const engine = openSqliteEngine({ dir });
    const db = engine.create('old');
    update(db, [
      write('a', '1-a', ['alice', 'team']),
      write('b', '1-b', ['bob'], '{"2-x":["bob"],"2-y":["bob","eve"]}'),
    ]);
    // The team loses `a`: a removed row a purge must find again.
    update(db, [write('a', '2-a', ['alice'])]);
    db.access.mergeTail();
    engine.close();
    downgradeToVersion4(join(dir, 'old.sqlite'));
    downgrade(join(dir, 'old.sqlite'));

    const again = openSqliteEngine({ dir });
    const reopened = again.open('old')!;
    assert.deepEqual(reopened.access.readersOf(['a', 'b', 'none']), [['alice'], ['bob'], []]);
    assert.deepEqual(
      [...update(reopened, [])],
      [
        ['a', uniformLeaves(['alice'])],
        ['b', '{"2-x":["bob"],"2-y":["bob","eve"]}'],
      ],
    );
    assert.deepEqual(changes(reopened, ['team']), [['a', true]]);
    // Writes after the upgrade keep losses: bob loses `b` to carol.
    update(reopened, [write('b', '2-b', ['carol'])]);
    assert.deepEqual(changes(reopened, ['bob']), [['b', true]]);
    assert.deepEqual(reopened.access.readersOf(['b']), [['carol']]);
    // A purge of `a` takes every row of it, the team's removed one too.
    reopened.purgeDocs([{ id: 'a', revs: ['2-a'], record: null }], 1000);
    assert.deepEqual(changes(reopened, ['team', 'alice']), []);
    // The rows the writes after the upgrade left in the tail, into the tree the checks below read.
    reopened.access.mergeTail();
    again.close();

    const file = new Database(join(dir, 'old.sqlite'), { readonly: true });
    try {
      assert.equal(file.pragma('user_version', { simple: true }), 9);
      const names = file.prepare('SELECT name FROM sqlite_schema').pluck().all();
      assert.ok(
        !names.includes('access_leaves') && !names.includes('access_log_by_doc') && !names.includes('access_log'),
        'the old layout is gone',
      );
      assert.deepEqual(namedRows(file), [
        ['bob', 'b', 1],
        ['carol', 'b', 0],
      ]);
    } finally {
      file.close();
    }
  });

  it('brings a version-4 file (rows by principal and document) up to one tree, answering the same', () => {
    const dir = join(tmp.dir, 'one-tree');
    const engine = openSqliteEngine({ dir });
    const db = engine.create('old');
    writeHistory(db);
    const sets = [['alice'], ['bob'], ['team'], ['alice', 'team'], ['alice', 'bob', 'team'], ['eve']];
    const expected = answers(db, sets);
    db.access.mergeTail();
    engine.close();
    downgradeToVersion4(join(dir, 'old.sqlite'));

    const again = openSqliteEngine({ dir });
    const reopened = again.open('old')!;
    assert.deepEqual(answers(reopened, sets), expected);
    // Writes after the upgrade move the migrated rows: alice gets `d` back, the team loses `c` again.
    update(reopened, [write('d', '3-d', ['alice', 'bob']), write('c', '4-c', ['bob'])]);
    assert.deepEqual(changes(reopened, ['alice']), [
      ['a', false],
      ['e', false],
      ['d', false],
    ]);
    assert.deepEqual(changes(reopened, ['team']), [
      ['a', true],
      ['c', true],
    ]);
    // A purge takes every row of `d`, migrated and new.
    reopened.purgeDocs([{ id: 'd', revs: ['3-d'], record: null }], 1000);
    assert.deepEqual(changes(reopened, ['alice', 'bob']), [
      ['b', false],
      ['a', false],
      ['e', false],
      ['c', false],
    ]);
    // The rows the writes after the upgrade left in the tail, into the tree the checks below read.
    reopened.access.mergeTail();
    again.close();

    const file = new Database(join(dir, 'old.sqlite'), { readonly: true });
    try {
      assert.equal(file.pragma('user_version', { simple: true }), 9);
      const names = file.prepare('SELECT name FROM sqlite_schema').pluck().all();
      assert.ok(!names.includes('access_log') && !names.includes('access_log_by_seq'), 'the old layout is gone');
      // The purged `d` has no row left: every row names a document that exists.
      assert.equal(
        file.prepare('SELECT count(*) FROM access_feed WHERE doc NOT IN (SELECT k FROM docs)').pluck().get(),
        0,
      );
    } finally {
      file.close();
    }
  });

  it('brings a version-5 file (rows of names and ids) up to integer rows, answering the same', () => {
    const dir = join(tmp.dir, 'integers');
    const engine = openSqliteEngine({ dir });
    const db = engine.create('old');
    writeHistory(db);
    const sets = [['alice'], ['bob'], ['team'], ['alice', 'team'], ['alice', 'bob', 'team'], ['eve'], ['nobody']];
    const expected = answers(db, sets);
    db.access.mergeTail();
    engine.close();
    downgradeToVersion5(join(dir, 'old.sqlite'));
    const text = new Database(join(dir, 'old.sqlite'), { readonly: true });
    const textRows = text
      .prepare('SELECT principal, doc, removed FROM access_feed ORDER BY doc, principal')
      .raw()
      .all();
    text.close();

    const again = openSqliteEngine({ dir });
    const reopened = again.open('old')!;
    assert.deepEqual(answers(reopened, sets), expected);
    // New principals get ids after the migrated ones; migrated rows move and go as before.
    update(reopened, [write('f', '1-f', ['zoe']), write('c', '4-c', ['bob'])]);
    assert.deepEqual(changes(reopened, ['zoe']), [['f', false]]);
    assert.deepEqual(changes(reopened, ['team']), [
      ['a', true],
      ['c', true],
    ]);
    reopened.purgeDocs([{ id: 'd', revs: ['2-d'], record: null }], 1000);
    assert.deepEqual(changes(reopened, ['bob']), [
      ['b', false],
      ['c', false],
    ]);
    // The rows the writes after the upgrade left in the tail, into the tree the checks below read.
    reopened.access.mergeTail();
    again.close();

    const file = new Database(join(dir, 'old.sqlite'), { readonly: true });
    try {
      assert.equal(file.pragma('user_version', { simple: true }), 9);
      assert.equal(
        file.prepare("SELECT type FROM pragma_table_info('access_feed') WHERE name = 'doc'").pluck().get(),
        'INTEGER',
      );
      // The migrated rows are the version-5 rows, less the purged `d`'s, plus the writes after.
      const expectedRows: [string, string, number][] = [
        ...(textRows as [string, string, number][]).filter(([, doc]) => doc !== 'd' && doc !== 'c'),
        ['bob', 'c', 0],
        ['team', 'c', 1],
        ['zoe', 'f', 0],
      ];
      const key = ([principal, doc]: [string, string, number]) => `${doc}\u0000${principal}`;
      expectedRows.sort((x, y) => (key(x) < key(y) ? -1 : 1));
      assert.deepEqual(namedRows(file), expectedRows);
      const names = file.prepare('SELECT name FROM access_principals ORDER BY id').pluck().all();
      assert.deepEqual(names, ['alice', 'bob', 'team', 'zoe']);
    } finally {
      file.close();
    }
  });

  it('forgets the ids a rolled-back transaction gave: the next principal may take one, and keeps its rows', () => {
    const engine = openSqliteEngine({ dir: join(tmp.dir, 'rollback') });
    const db = engine.create('db');
    update(db, [write('a', '1-a', ['alice'])]);
    // The engine's own connection (private): a transaction that gives zed an id, then fails.
    const file = (db as unknown as { db: Database.Database }).db;
    const failing = db.access.guard(
      file.transaction(() => {
        // b's row at 100, then its access rows, which take the tail past TAIL_SEQS: the merge gives zed an id.
        file
          .prepare(
            "INSERT INTO docs (id, seq, rev, deleted, size, tree, access) VALUES ('b', 100, '1-b', 0, 2, 'tree:1-b', ?)",
          )
          .run('[["zed"],[],null,100]');
        db.access.apply([write('b', '1-b', ['zed'])], [100]);
        assert.equal(file.prepare("SELECT count(*) FROM access_principals WHERE name = 'zed'").pluck().get(), 1);
        throw new Error('rolled back');
      }),
    );
    assert.throws(failing, /rolled back/);
    // bob's first row takes the id zed had: zed reads nothing, bob his document.
    update(db, [write('c', '1-c', ['bob'])]);
    assert.deepEqual(changes(db, ['zed']), []);
    assert.deepEqual(changes(db, ['bob']), [['c', false]]);
    engine.close();
  });

  it("a new document's rows are its docs.access until a merge puts them in the one tree, one entry per reader", () => {
    const engine = openSqliteEngine({ dir: join(tmp.dir, 'trees') });
    const db = engine.create('db');
    update(db, [write('a', '1-a', ['alice'])]);
    const own = (db as unknown as { db: Database.Database }).db;
    // The write changed no access_feed page: its row is read from its `docs.access` (the tail).
    assert.equal(own.prepare('SELECT count(*) FROM access_feed').pluck().get(), 0);
    assert.deepEqual(changes(db, ['alice']), [['a', false]]);
    db.access.mergeTail();
    assert.deepEqual(changes(db, ['alice']), [['a', false]]);
    engine.close();
    const file = new Database(join(tmp.dir, 'trees', 'db.sqlite'), { readonly: true });
    try {
      const indexes = file
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'access_feed'")
        .pluck()
        .all();
      assert.deepEqual(
        indexes.filter((name) => !String(name).startsWith('sqlite_autoindex')),
        [],
      );
      // Integers only: alice's id and the document's key.
      assert.deepEqual(file.prepare('SELECT id, name FROM access_principals').raw().all(), [[1, 'alice']]);
      const k = file.prepare("SELECT k FROM docs WHERE id = 'a'").pluck().get();
      assert.deepEqual(file.prepare('SELECT principal, seq, doc, removed FROM access_feed').raw().all(), [
        [1, 1, k, 0],
      ]);
      assert.deepEqual(file.prepare("SELECT access FROM docs WHERE id = 'a'").pluck().get(), '[["alice"],[],null,1]');
    } finally {
      file.close();
    }
  });
});

describe('sqlite engine: the tail of access rows (written since the last merge, read from docs.access)', () => {
  /** A seeded pseudo-random source (the same history each run). */
  function random(seed: number): () => number {
    let state = seed;
    return () => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return state / 2 ** 31;
    };
  }

  /** Every access read for each principal set, as `answers` above, over ids `ids`. */
  function reads(db: SqliteSyncStore, ids: string[], sets: string[][]): unknown {
    const access = db.access;
    return sets.map((principals) => ({
      readers: access.readersOf(ids),
      changes: [...access.foldChanges(principals, 0, {})].map((c) => [c.seq, c.record.id, c.removed]),
      withRemoved: [...access.foldChanges(principals, 0, { withRemoved: true })].map((c) => [
        c.seq,
        c.record.id,
        c.removed,
      ]),
      since: [...access.foldChanges(principals, 40, { withRemoved: true })].map((c) => [c.seq, c.record.id]),
      descending: [...access.foldChanges(principals, 20, { descending: true, withRemoved: true })].map((c) => [
        c.seq,
        c.record.id,
        c.removed,
      ]),
      readable: [...access.foldReadable(principals, {})].map((r) => r.id),
      deleted: [...access.foldReadable(principals, { includeDeleted: true, descending: true })].map((r) => r.id),
      ranged: [...access.foldReadable(principals, { start: 'c', end: 'h', inclusiveEnd: false })].map((r) => r.id),
      rangedDown: [...access.foldReadable(principals, { start: 'h', end: 'c', descending: true })].map((r) => r.id),
      count: [access.countReadable(principals, {}), access.countReadable(principals, { start: 'b', end: 'f' })],
      countChanges: [access.countChanges(principals, 30, false), access.countChanges(principals, 0, true)],
    }));
  }

  it('answers every read as when every row is in access_feed, across merges, losses, deletions and purges', () => {
    const next = random(30);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
    const ids = 'abcdefghijkl'.split('');
    const pool = ['alice', 'bob', 'carol', 'team', '_users'];
    const sets = [
      ['alice'],
      ['bob', 'team'],
      ['carol', '_users'],
      ['alice', 'bob', 'carol', 'team', '_users'],
      ['eve'],
    ];
    const engine = openSqliteEngine({ dir: join(tmp.dir, 'tail') });
    // `merged` merges after every write (all rows in the feed, as before the tail); `tail` by itself.
    const merged = engine.create('merged');
    const tail = engine.create('tail');
    const revs = new Map<string, number>();
    let compared = 0;
    for (let step = 0; step < 400; step++) {
      const id = pick(ids);
      if (revs.has(id) && next() < 0.04) {
        const purge = { id, revs: [`${revs.get(id)}-x`], record: null };
        for (const db of [merged, tail]) db.purgeDocs([purge], 1000);
        revs.delete(id);
      } else {
        const n = (revs.get(id) ?? 0) + 1;
        revs.set(id, n);
        const readers = [...new Set(pool.filter(() => next() < 0.35))].sort();
        const rev = `${n}-x`;
        const leaves = next() < 0.1 ? JSON.stringify({ [rev]: readers, [`${n}-y`]: [...readers, 'zed'] }) : undefined;
        const base = leaves === undefined ? write(id, rev, readers) : write(id, rev, readers, leaves);
        const one: DocWrite = next() < 0.1 ? { ...base, record: { ...base.record, deleted: true } } : base;
        for (const db of [merged, tail]) update(db, [one]);
      }
      merged.access.mergeTail();
      if (step % 7 === 0) {
        assert.deepEqual(reads(tail, ids, sets), reads(merged, ids, sets), `step ${step}`);
        compared++;
      }
    }
    assert.ok(compared > 50);
    // And once the tail is merged too.
    tail.access.mergeTail();
    assert.deepEqual(reads(tail, ids, sets), reads(merged, ids, sets));
    engine.close();
  });

  it("reads the tail again after a change the reads did not see: its own writes, another connection's commit", () => {
    const dir = join(tmp.dir, 'tail-kept');
    const engine = openSqliteEngine({ dir });
    const db = engine.create('kept');
    const readable = (principals: string[]) => [...db.access.foldReadable(principals, {})].map((r) => r.id);
    update(db, [write('a', '1-a', ['alice'])]);
    assert.deepEqual(readable(['alice']), ['a']);
    // The tail's rows were kept by that read; this connection's write changes them.
    update(db, [write('b', '1-b', ['alice'])]);
    assert.deepEqual(readable(['alice']), ['a', 'b']);
    // Another connection's commit (`data_version`): `a` now read by bob alone, at its sequence.
    const other = new Database(join(dir, 'kept.sqlite'));
    const seq = other.prepare("SELECT seq FROM docs WHERE id = 'a'").pluck().get() as number;
    other.prepare("UPDATE docs SET access = ? WHERE id = 'a'").run(`[["bob"],[],null,${seq}]`);
    other.close();
    assert.deepEqual(readable(['alice']), ['b']);
    assert.deepEqual(readable(['bob']), ['a']);
    assert.equal(db.access.countReadable(['bob'], {}), 1);
    engine.close();
  });

  it('a merge of the texts its connection wrote answers as one that reads them back, across reopenings and purges', () => {
    // Mostly updates that keep their readers (the usual text with drops, whose rows a merge takes
    // from what the write said), past many merges of their own (TAIL_SEQS); `reopened` is closed
    // and opened again now and then (the tail's texts then read from docs until its next merge).
    const next = random(44);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
    const ids = 'abcdefghij'.split('');
    const sets = [['alice'], ['bob', 'team'], ['carol', '_users'], ['alice', 'bob', 'carol', 'team', '_users']];
    const dir = join(tmp.dir, 'tail-texts');
    let engine = openSqliteEngine({ dir });
    const mergedEngine = openSqliteEngine({ dir: join(tmp.dir, 'tail-texts-merged') });
    const merged = mergedEngine.create('merged');
    let reopened = engine.create('reopened');
    const readersOf = new Map<string, string[]>();
    const revs = new Map<string, number>();
    for (let step = 0; step < 600; step++) {
      const id = pick(ids);
      if (revs.has(id) && next() < 0.02) {
        const purge = { id, revs: [`${revs.get(id)}-x`], record: null };
        for (const db of [merged, reopened]) db.purgeDocs([purge], 1000);
        revs.delete(id);
      } else {
        const n = (revs.get(id) ?? 0) + 1;
        revs.set(id, n);
        if (!readersOf.has(id) || next() < 0.1) readersOf.set(id, pick(sets).slice().sort());
        const one = write(id, `${n}-x`, readersOf.get(id)!);
        for (const db of [merged, reopened]) update(db, [one]);
      }
      merged.access.mergeTail();
      if (step % 53 === 0) {
        engine.close();
        engine = openSqliteEngine({ dir });
        reopened = engine.open('reopened')!;
      }
      if (step % 9 === 0) assert.deepEqual(reads(reopened, ids, sets), reads(merged, ids, sets), `step ${step}`);
    }
    reopened.access.mergeTail();
    assert.deepEqual(reads(reopened, ids, sets), reads(merged, ids, sets));
    engine.close();
    mergedEngine.close();
  });

  it("a merge's runs of consecutive drops (deleted by range) leave the feed as drops deleted one by one", () => {
    // 48 documents updated in turn: each principal's drops in a merge are runs of consecutive
    // sequences, broken where a document is not theirs (d17 is carol's, every sixth bob's too),
    // by a pass in a shuffled order (its next pass's drops scattered), a loss and a deletion.
    const next = random(46);
    const ids = Array.from({ length: 48 }, (_, i) => `d${String(i).padStart(2, '0')}`);
    const sets = [['alice'], ['bob'], ['carol'], ['alice', 'bob', 'carol']];
    const readersOf = new Map(
      ids.map((id, i): [string, string[]] => [id, i === 17 ? ['carol'] : i % 6 === 5 ? ['alice', 'bob'] : ['alice']]),
    );
    const dir = join(tmp.dir, 'drop-runs');
    const engine = openSqliteEngine({ dir });
    const merged = engine.create('merged');
    const tail = engine.create('tail');
    const revs = new Map<string, number>();
    for (let pass = 0; pass < 6; pass++) {
      const order = pass === 2 ? [...ids].sort(() => next() - 0.5) : ids;
      if (pass === 2) readersOf.set('d20', ['bob']);
      for (const id of order) {
        const n = (revs.get(id) ?? 0) + 1;
        revs.set(id, n);
        const base = write(id, `${n}-x`, readersOf.get(id)!);
        const one = pass === 3 && id === 'd30' ? { ...base, record: { ...base.record, deleted: true } } : base;
        for (const db of [merged, tail]) update(db, [one]);
        merged.access.mergeTail();
      }
      assert.deepEqual(reads(tail, ids, sets), reads(merged, ids, sets), `pass ${pass}`);
    }
    tail.access.mergeTail();
    assert.deepEqual(reads(tail, ids, sets), reads(merged, ids, sets));
    engine.close();
    const feed = (name: string): unknown[] => {
      const file = new Database(join(dir, `${name}.sqlite`), { readonly: true });
      try {
        return file
          .prepare(
            'SELECT p.name, f.seq, f.doc, f.removed FROM access_feed f JOIN access_principals p ON p.id = f.principal ORDER BY 1, 2',
          )
          .raw()
          .all();
      } finally {
        file.close();
      }
    };
    const rows = feed('tail') as [string, number, number, number][];
    // One row a principal a document (the latest write's): every dropped row gone.
    assert.equal(new Set(rows.map(([name, , doc]) => `${name} ${doc}`)).size, rows.length);
    assert.ok(rows.length >= 48);
    assert.deepEqual(rows, feed('merged'));
  });

  it('a merge leaves the drops it applied in the text, and the next write carries only its own', () => {
    const dir = join(tmp.dir, 'drops');
    const engine = openSqliteEngine({ dir });
    const db = engine.create('drops');
    update(db, [write('a', '1-a', ['alice'])]);
    db.access.mergeTail();
    update(db, [write('a', '2-a', ['alice'])]);
    db.access.mergeTail();
    update(db, [write('a', '3-a', ['alice'])]);
    const text = () => {
      const file = new Database(join(dir, 'drops.sqlite'), { readonly: true });
      try {
        return JSON.parse(file.prepare("SELECT access FROM docs WHERE id = 'a'").pluck().get() as string) as unknown[];
      } finally {
        file.close();
      }
    };
    // The row of sequence 1 went with the first merge; the text names only the row 3 replaced.
    assert.deepEqual(text(), [['alice'], [], null, 3, [], [['alice', 2]]]);
    db.access.mergeTail();
    assert.deepEqual(text()[5], [['alice', 2]]);
    assert.deepEqual(changes(db, ['alice']), [['a', false]]);
    const file = new Database(join(dir, 'drops.sqlite'), { readonly: true });
    try {
      assert.deepEqual(file.prepare('SELECT seq FROM access_feed').pluck().all(), [3]);
    } finally {
      file.close();
    }
    // A name that looks like the text's own parts: the drops are still the ones JSON says.
    const odd = 'x"],[],null,1,[],[["x\\';
    for (let n = 1; n <= 4; n++) {
      update(db, [write('b', `${n}-b`, [odd])]);
      if (n % 2 === 0) db.access.mergeTail();
    }
    assert.deepEqual(changes(db, [odd]), [['b', false]]);
    db.access.mergeTail();
    const check = new Database(join(dir, 'drops.sqlite'), { readonly: true });
    try {
      assert.deepEqual(check.prepare('SELECT seq FROM access_feed ORDER BY seq').pluck().all(), [3, 7]);
    } finally {
      check.close();
    }
    engine.close();
  });
});
