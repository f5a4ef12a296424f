import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { fileURLToPath } from 'node:url';
import { StorageExistsError } from '../src/storage/contract.js';
import type { SqliteSyncEngine, SqliteSyncStore } from '../src/storage/sqlite/sync-store.js';
import type { DocRecord, DocWrite, IdRange } from '../src/storage/records.js';
import { openSqliteEngine } from '../src/storage/sqlite/sqlite-engine.js';
import { WATCH_AFTER_DOCS } from '../src/storage/sqlite/wal-checkpointer.js';
import { makeTempDir } from './support/tmp-dir.js';

const tmp = makeTempDir('divan-storage-');
after(() => tmp.cleanup());

let dirCount = 0;
function freshEngine(durability?: 'normal' | 'full'): { engine: SqliteSyncEngine; dir: string } {
  const dir = join(tmp.dir, `e${++dirCount}`);
  return { engine: openSqliteEngine({ dir, durability }), dir };
}

function freshDb(): { db: SqliteSyncStore; engine: SqliteSyncEngine; dir: string } {
  const { engine, dir } = freshEngine();
  return { db: engine.create('db'), engine, dir };
}

/** A write of one revision with its body (`{}` when deleted). */
function put(id: string, rev: string, opts: { deleted?: boolean; body?: string; drop?: string[] } = {}): DocWrite {
  const deleted = opts.deleted ?? false;
  return {
    record: { id, rev, deleted, tree: `tree:${rev}` },
    bodies: [{ rev, body: opts.body ?? (deleted ? '{}' : `{"v":"${rev}"}`) }],
    dropBodies: opts.drop,
  };
}

const ids = (docs: Iterable<{ id: string }>): string[] => [...docs].map((d) => d.id);
const seqs = (docs: Iterable<DocRecord>): number[] => [...docs].map((d) => d.seq);

/** Code point order, which JS string comparison (UTF-16 units) gets wrong past U+FFFF. */
function byCodePoint(a: string, b: string): number {
  const ca = [...a].map((c) => c.codePointAt(0)!);
  const cb = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(ca.length, cb.length); i++) if (ca[i] !== cb[i]) return ca[i]! - cb[i]!;
  return ca.length - cb.length;
}

describe('sqlite engine: databases', () => {
  it('creates, lists, opens and destroys databases', () => {
    const { engine, dir } = freshEngine();
    assert.deepEqual(engine.listDatabases(), []);
    assert.equal(engine.exists('a/b'), false);
    assert.equal(engine.open('a/b'), undefined);
    const ab = engine.create('a/b');
    assert.equal(ab.name, 'a/b');
    engine.create('a');
    engine.create('a-b');
    engine.create('b$(x)+_1');
    assert.throws(() => engine.create('a/b'), StorageExistsError);
    assert.equal(engine.exists('a/b'), true);
    assert.equal(engine.open('a/b'), ab, 'open returns the cached handle');
    // '-' (0x2d) < '/' (0x2f): code point order of the names, not of the encoded file names.
    assert.deepEqual(engine.listDatabases(), ['a', 'a-b', 'a/b', 'b$(x)+_1']);
    assert.ok(existsSync(join(dir, 'a%2Fb.sqlite')));

    assert.equal(engine.destroy('a/b'), true);
    assert.equal(engine.destroy('a/b'), false);
    assert.equal(engine.exists('a/b'), false);
    assert.equal(engine.open('a/b'), undefined);
    assert.deepEqual(engine.listDatabases(), ['a', 'a-b', 'b$(x)+_1']);
    assert.ok(!readdirSync(dir).some((f) => f.startsWith('a%2Fb')), 'files and journals removed');
    // A destroyed name can be created again, empty.
    const again = engine.create('a/b');
    assert.equal(again.meta().updateSeq, 0);
    engine.close();
  });

  it('rejects invalid names and ignores foreign files', () => {
    const { engine, dir } = freshEngine();
    for (const stray of ['notes.txt', 'X.sqlite', 'a%2fb.sqlite', 'a.sqlite-wal', '.sqlite'])
      writeFileSync(join(dir, stray), '');
    // CouchDB's system databases are the only names that may start with an underscore.
    assert.ok(engine.create('_users'));
    assert.ok(engine.listDatabases().includes('_users'));
    for (const bad of ['', 'A', '1a', '../x', 'a.b', '_nosuchsystem', 'a%2fb']) {
      assert.throws(() => engine.create(bad), /illegal_database_name/, bad);
      assert.equal(engine.exists(bad), false);
      assert.equal(engine.open(bad), undefined);
      assert.equal(engine.destroy(bad), false);
    }
    assert.deepEqual(engine.listDatabases(), ['_users']);
    engine.close();
  });

  it('creates the data folder and reopens everything after close', () => {
    const { engine, dir } = freshEngine();
    const db = engine.create('keep');
    db.writeDocs([put('x', '1-a'), put('y', '1-b'), put('z', '1-c', { deleted: true })]);
    db.putLocal({ id: '_local/l', rev: '0-1', body: '{"a":1}' });
    db.setProp('revs_limit', '7');
    const meta = db.meta();
    engine.close();
    assert.throws(() => db.getDoc('x'), 'a closed handle does not read');

    const engine2 = openSqliteEngine({ dir });
    assert.deepEqual(engine2.listDatabases(), ['keep']);
    const db2 = engine2.open('keep')!;
    assert.notEqual(db2, db);
    const meta2 = db2.meta();
    assert.deepEqual({ ...meta2, sizes: undefined }, { ...meta, sizes: undefined });
    assert.equal(meta2.sizes.external, meta.sizes.external);
    assert.deepEqual(db2.getDoc('y'), { id: 'y', seq: 2, rev: '1-b', deleted: false, tree: 'tree:1-b' });
    assert.equal(db2.getBody('x', '1-a'), '{"v":"1-a"}');
    assert.deepEqual(db2.getLocal('_local/l'), { id: '_local/l', rev: '0-1', body: '{"a":1}' });
    assert.equal(db2.getProp('revs_limit'), '7');
    assert.deepEqual(db2.writeDocs([put('w', '1-d')]), [4]);
    engine2.close();
  });

  it('closing a handle drops it from the engine, which reopens it on demand', () => {
    const { engine } = freshEngine();
    const db = engine.create('c');
    db.writeDocs([put('a', '1-a')]);
    db.close();
    db.close();
    const db2 = engine.open('c')!;
    assert.notEqual(db2, db);
    assert.equal(db2.getDoc('a')?.rev, '1-a');
    engine.close();
  });

  it('works with durability full', () => {
    const { engine } = freshEngine('full');
    const db = engine.create('f');
    assert.deepEqual(db.writeDocs([put('a', '1-a')]), [1]);
    engine.close();
  });
});

describe('sqlite engine: documents', () => {
  it('gives consecutive seqs and moves a document to its new seq', () => {
    const { db, engine } = freshDb();
    assert.deepEqual(db.writeDocs([put('a', '1-a'), put('b', '1-b'), put('c', '1-c')]), [1, 2, 3]);
    assert.deepEqual(db.writeDocs([]), []);
    assert.deepEqual(db.writeDocs([put('a', '2-a')]), [4]);
    assert.deepEqual(db.getDoc('a'), { id: 'a', seq: 4, rev: '2-a', deleted: false, tree: 'tree:2-a' });
    assert.deepEqual(seqs(db.foldChanges(0)), [2, 3, 4]);
    assert.deepEqual(ids(db.foldChanges(0)), ['b', 'c', 'a']);
    assert.equal(db.meta().updateSeq, 4);
    // The same id twice in one batch: the later write wins, with the later seq.
    assert.deepEqual(db.writeDocs([put('b', '2-b'), put('b', '3-b')]), [5, 6]);
    assert.deepEqual(ids(db.foldChanges(0)), ['c', 'a', 'b']);
    assert.equal(db.getDoc('b')?.rev, '3-b');
    assert.equal(db.meta().docCount, 3);
    engine.close();
  });

  it('gets records and bodies, keeps old bodies and drops the ones asked', () => {
    const { db, engine } = freshDb();
    db.writeDocs([put('a', '1-a')]);
    db.writeDocs([put('a', '2-a')]);
    assert.equal(db.getBody('a', '1-a'), '{"v":"1-a"}');
    assert.equal(db.getBody('a', '2-a'), '{"v":"2-a"}');
    assert.equal(db.getBody('a', '9-z'), undefined);
    assert.equal(db.getBody('nope', '1-a'), undefined);
    db.writeDocs([put('a', '3-a', { drop: ['1-a'] })]);
    assert.equal(db.getBody('a', '1-a'), undefined);
    assert.equal(db.getBody('a', '2-a'), '{"v":"2-a"}');
    // A write with no new body (the winner is a stored revision).
    db.writeDocs([{ record: { id: 'a', rev: '2-a', deleted: false, tree: 't' }, bodies: [] }]);
    assert.equal(db.getDoc('a')?.rev, '2-a');
    assert.equal(db.meta().sizes.external, Buffer.byteLength('{"v":"2-a"}'));
    const docs = db.getDocs(['a', 'missing', 'a']);
    assert.deepEqual(
      docs.map((d) => d?.rev),
      ['2-a', undefined, '2-a'],
    );
    assert.equal(db.getDoc('missing'), undefined);
    engine.close();
  });

  it('counters follow the deleted flag (live → deleted → live) and sizes', () => {
    const { db, engine } = freshDb();
    const counts = (): [number, number, number] => {
      const m = db.meta();
      return [m.docCount, m.docDelCount, m.sizes.external];
    };
    const body = '{"name":"é😀"}'; // 2- and 4-byte characters: external counts UTF-8 bytes
    const bytes = Buffer.byteLength(body);
    assert.equal(bytes, body.length + 1 + 2);
    db.writeDocs([put('a', '1-a', { body }), put('b', '1-b', { body })]);
    assert.deepEqual(counts(), [2, 0, 2 * bytes]);
    db.writeDocs([put('a', '2-a', { deleted: true })]);
    assert.deepEqual(counts(), [1, 1, bytes]);
    db.writeDocs([put('a', '3-a', { body: '{}' })]);
    assert.deepEqual(counts(), [2, 0, bytes + 2]);
    db.writeDocs([put('c', '1-c', { deleted: true })]);
    assert.deepEqual(counts(), [2, 1, bytes + 2]);
    db.writeDocs([put('b', '2-b', { deleted: true }), put('c', '2-c', { body })]);
    assert.deepEqual(counts(), [2, 1, bytes + 2]);
    const m = db.meta();
    assert.equal(m.updateSeq, 7);
    assert.ok(m.createdAt > Date.now() - 60_000 && m.createdAt <= Date.now());
    assert.ok(m.sizes.file > 0 && m.sizes.active > 0 && m.sizes.active <= m.sizes.file + 65536);
    engine.close();
  });

  it('large batches (multi-row statements): new and existing docs mixed, isNew or not, lookups in order', () => {
    const { db, engine } = freshDb();
    const n = 203; // not a multiple of any statement size
    const name = (i: number) => `d${String(i).padStart(4, '0')}`;
    const first = Array.from({ length: n }, (_, i) => ({ ...put(name(i), '1-a'), isNew: true }));
    assert.deepEqual(
      db.writeDocs(first),
      Array.from({ length: n }, (_, i) => i + 1),
    );
    // Every other doc again (found again by the engine), new docs in between, one new doc not
    // marked isNew, and one new doc with two bodies.
    const second: DocWrite[] = [];
    for (let i = 0; i < n; i += 2) {
      second.push(put(name(i), '2-a', { drop: ['1-a'] }));
      second.push({ ...put(`e${i}`, '1-e'), isNew: true });
    }
    second.push(put('f', '1-f'));
    second.push({
      record: { id: 'g', rev: '2-g', deleted: false, tree: 't' },
      bodies: [
        { rev: '1-g', body: '{"v":1}' },
        { rev: '2-g', body: '{"v":22}' },
      ],
      isNew: true,
    });
    const seqs2 = db.writeDocs(second);
    assert.deepEqual(
      seqs2,
      Array.from({ length: second.length }, (_, i) => n + 1 + i),
    );
    assert.equal(db.meta().docCount, n + Math.ceil(n / 2) + 2);
    assert.equal(db.getBody(name(0), '1-a'), undefined);
    assert.equal(db.getBody(name(0), '2-a'), '{"v":"2-a"}');
    assert.equal(db.getBody(name(1), '1-a'), '{"v":"1-a"}');
    assert.equal(db.getBody('e4', '1-e'), '{"v":"1-e"}');
    assert.equal(db.getBody('f', '1-f'), '{"v":"1-f"}');
    assert.equal(db.getBody('g', '1-g'), '{"v":1}');
    assert.equal(db.getBody('g', '2-g'), '{"v":22}');
    assert.equal(
      db.meta().sizes.external,
      [...db.foldDocs({})].reduce((sum, d) => sum + Buffer.byteLength(db.getBody(d.id, d.rev)!), 0),
    );
    // Lookups of many ids: in the order asked, duplicates and missing ids included.
    const asked = [
      'zz',
      name(5),
      'g',
      name(5),
      ...Array.from({ length: 150 }, (_, i) => name(n - 1 - i)),
      'e0',
      'missing',
    ];
    const got = db.getDocs(asked);
    assert.deepEqual(
      got,
      asked.map((id) => db.getDoc(id)),
    );
    assert.equal(got[0], undefined);
    assert.equal(got[1]?.rev, '1-a');
    assert.notEqual(got[1], got[3], 'each entry its own record');
    // An id that is not well-formed UTF-16 is still found the way getDoc finds it.
    db.writeDocs([put('x\ud800', '1-x')]);
    assert.deepEqual(db.getDocs([...asked, 'x\ud800']).at(-1), db.getDoc('x\ud800'));
    // Two new docs with the same id in one batch fail as one insert would, and change nothing.
    const before = db.meta();
    assert.throws(() =>
      db.writeDocs([{ ...put('dup', '1-a'), isNew: true }, put(name(3), '2-b'), { ...put('dup', '1-b'), isNew: true }]),
    );
    assert.equal(db.getDoc('dup'), undefined);
    assert.equal(db.getDoc(name(3))?.rev, '1-a');
    assert.equal(db.meta().updateSeq, before.updateSeq);
    // Keys go on after the largest one.
    assert.deepEqual(db.writeDocs([{ ...put('h', '1-h'), isNew: true }]), [before.updateSeq + 1]);
    assert.equal(db.getBody('h', '1-h'), '{"v":"1-h"}');
    engine.close();
  });

  it('stores a long one-line history in chunks: an update that grows it rewrites a short row', () => {
    const { db, engine, dir } = freshDb();
    const hex = (n: number): string => createHash('md5').update(`r${n}`).digest('hex');
    const line = (from: number, to: number): string =>
      `${from}:${Array.from({ length: to - from + 1 }, (_, i) => hex(from + i)).join('.')}`;
    db.writeDocs([{ record: { id: 'h', rev: `1-${hex(1)}`, deleted: false, tree: line(1, 1) }, bodies: [] }]);
    // Revs limit 1,000: from generation 1,001 on each write stems the oldest revision.
    for (let n = 2; n <= 1100; n++) {
      const from = Math.max(1, n - 999);
      db.writeDocs([
        {
          record: { id: 'h', rev: `${n}-${hex(n)}`, deleted: false, tree: line(from, n) },
          bodies: [{ rev: `${n}-${hex(n)}`, body: `{"n":${n}}` }],
          treeGrowth: { dropped: n > 1000 ? 1 : 0, added: 1 },
        },
      ]);
    }
    assert.equal(db.getDoc('h')?.tree, line(101, 1100));
    const file = new Database(join(dir, 'db.sqlite'), { readonly: true });
    try {
      const stored = file.prepare("SELECT tree FROM docs WHERE id = 'h'").pluck().get() as string;
      assert.ok(
        stored.length < 48 * 34 + 40,
        `the row keeps at most a chunk's worth of the tree (${stored.length} bytes)`,
      );
      const chunks = file.prepare('SELECT count(*), max(length(nodes)) FROM tree_chunks').raw().get() as number[];
      assert.ok(chunks[0]! >= 19 && chunks[0]! <= 21, `chunks of 48 revisions hold the rest (${chunks[0]})`);
      assert.ok(chunks[1]! < 2000, 'each chunk fits in its b-tree page');
    } finally {
      file.close();
    }
    // A write that says nothing of how the tree grew stores it as given.
    db.writeDocs([
      { record: { id: 'h', rev: `1101-${hex(1101)}`, deleted: false, tree: line(1101, 1101) }, bodies: [] },
    ]);
    assert.equal(db.getDoc('h')?.tree, line(1101, 1101));
    engine.close();
  });

  it('brings a file of schema version 1 (no tree_chunks) up to the current version on open', () => {
    const { engine, dir } = freshEngine();
    engine.create('old').writeDocs([put('a', '1-a')]);
    engine.close();
    const file = new Database(join(dir, 'old.sqlite'));
    file.exec('DROP TABLE tree_chunks');
    file.pragma('user_version = 1');
    file.close();
    const again = openSqliteEngine({ dir });
    const db = again.open('old')!;
    assert.equal(db.getDoc('a')?.rev, '1-a');
    const long = `1:${Array.from({ length: 200 }, (_, i) => createHash('md5').update(`${i}`).digest('hex')).join('.')}`;
    db.writeDocs([{ record: { id: 'a', rev: '200-x', deleted: false, tree: long }, bodies: [] }]);
    assert.equal(db.getDoc('a')?.tree, long);
    again.close();
    const reopened = new Database(join(dir, 'old.sqlite'), { readonly: true });
    assert.equal(reopened.pragma('user_version', { simple: true }), 9);
    reopened.close();
  });

  it('brings a file of schema version 6 (counters saved by every write) up to 7, its counters as saved', () => {
    const { engine, dir } = freshEngine();
    const db = engine.create('six');
    db.writeDocs([put('a', '1-a'), put('b', '1-b'), put('c', '1-c', { deleted: true })]);
    const before = db.meta();
    engine.close();
    const file = new Database(join(dir, 'six.sqlite'));
    file.pragma('user_version = 6');
    // Version 6 saved the stale bytes with every write; a kept value must survive the upgrade.
    file.prepare("UPDATE meta SET value = 42 WHERE key = 'stale'").run();
    file.close();
    const again = openSqliteEngine({ dir });
    const six = again.open('six')!;
    const after = six.meta();
    assert.deepEqual(
      [after.updateSeq, after.docCount, after.docDelCount, after.sizes.external],
      [before.updateSeq, before.docCount, before.docDelCount, before.sizes.external],
    );
    assert.deepEqual(six.writeDocs([put('d', '1-d')]), [4]);
    again.close();
    const reopened = new Database(join(dir, 'six.sqlite'), { readonly: true });
    assert.equal(reopened.pragma('user_version', { simple: true }), 9);
    assert.equal(reopened.prepare("SELECT value FROM meta WHERE key = 'stale'").pluck().get(), 42);
    reopened.close();
  });

  it('moves bodies between the row and `bodies` when another revision wins (schema version 9)', () => {
    const { db, engine, dir } = freshDb();
    // A conflict: 2-y wins, 2-x's body goes to `bodies`.
    db.writeDocs([
      {
        record: { id: 'a', rev: '2-y', deleted: false, tree: 't' },
        bodies: [
          { rev: '2-x', body: '{"v":"xx"}' },
          { rev: '2-y', body: '{"v":"y"}' },
        ],
      },
    ]);
    // The winner deleted: the other branch wins, its body taken out of `bodies` into the row.
    db.writeDocs([
      { record: { id: 'a', rev: '2-x', deleted: false, tree: 't' }, bodies: [{ rev: '3-y', body: '{}' }] },
    ]);
    assert.deepEqual(db.getDocWithBody('a')?.body, '{"v":"xx"}');
    assert.deepEqual(
      ['2-x', '2-y', '3-y'].map((rev) => db.getBody('a', rev)),
      ['{"v":"xx"}', '{"v":"y"}', '{}'],
    );
    assert.equal(db.meta().sizes.external, Buffer.byteLength('{"v":"xx"}'));
    // A purge of the winner: 3-y (kept) wins again, 2-x's body goes with the purge.
    db.purgeDocs(
      [{ id: 'a', revs: ['2-x'], record: { id: 'a', rev: '3-y', deleted: true, tree: 't' }, dropBodies: ['2-x'] }],
      10,
    );
    assert.deepEqual(db.getDocWithBody('a'), {
      record: { id: 'a', seq: 3, rev: '3-y', deleted: true, tree: 't' },
      body: '{}',
    });
    assert.deepEqual(
      ['2-x', '2-y', '3-y'].map((rev) => db.getBody('a', rev)),
      [undefined, '{"v":"y"}', '{}'],
    );
    assert.equal(db.meta().sizes.external, 0);
    engine.close();
    const file = new Database(join(dir, 'db.sqlite'), { readonly: true });
    const rows = file.prepare('SELECT rev FROM bodies ORDER BY rev').pluck().all();
    assert.deepEqual(rows, ['2-y'], 'bodies holds no winner');
    file.close();
  });

  it('brings a file of schema version 8 (every body in `bodies`) up to 9: winners move into their rows, every read the same', () => {
    const { engine, dir } = freshEngine();
    const db = engine.create('eight');
    db.writeDocs([put('a', '1-a'), put('b', '1-b'), put('c', '1-c'), put('d', '1-d')]);
    db.writeDocs([
      put('a', '2-a'),
      // A conflict: two leaves, one the winner.
      {
        record: { id: 'b', rev: '2-y', deleted: false, tree: 't' },
        bodies: [
          { rev: '2-x', body: '{"v":"x"}' },
          { rev: '2-y', body: '{"v":"y"}' },
        ],
      },
      put('c', '2-c', { deleted: true, body: '{"gone":true}' }),
      // A winner whose body was never stored.
      { record: { id: 'd', rev: '2-d', deleted: false, tree: 't' }, bodies: [] },
    ]);
    const revs: [string, string][] = [
      ['a', '1-a'],
      ['a', '2-a'],
      ['b', '1-b'],
      ['b', '2-x'],
      ['b', '2-y'],
      ['c', '1-c'],
      ['c', '2-c'],
      ['d', '1-d'],
      ['d', '2-d'],
    ];
    const ids = ['a', 'b', 'c', 'd'];
    const reads = (store: SqliteSyncStore) => ({
      bodies: revs.map(([id, rev]) => store.getBody(id, rev)),
      batch: store.getBodies([...revs, ...revs].map(([id, rev]) => ({ id, rev }))),
      withBodies: store.getDocsWithBodies(ids),
      fold: [...store.foldDocBodies({ includeDeleted: true })],
      changes: [...store.foldChangedBodies(0)],
      one: ids.map((id) => store.getDocWithBody(id)),
      sizes: store.meta().sizes.external,
      stats: store.rangeStats('a', 'z'),
    });
    const before = reads(db);
    assert.deepEqual(before.bodies, [
      '{"v":"1-a"}',
      '{"v":"2-a"}',
      '{"v":"1-b"}',
      '{"v":"x"}',
      '{"v":"y"}',
      '{"v":"1-c"}',
      '{"gone":true}',
      '{"v":"1-d"}',
      undefined,
    ]);
    engine.close();
    // The version-8 layout: no `docs.body`, every stored body in `bodies`.
    const file = new Database(join(dir, 'eight.sqlite'));
    file.exec(`
      INSERT INTO bodies (doc, rev, body) SELECT k, rev, body FROM docs WHERE body IS NOT NULL;
      ALTER TABLE docs DROP COLUMN body;
    `);
    file.pragma('user_version = 8');
    file.close();
    const again = openSqliteEngine({ dir });
    const eight = again.open('eight')!;
    assert.deepEqual(reads(eight), before);
    // A write after the upgrade: the old winner's body stays readable.
    eight.writeDocs([put('a', '3-a')]);
    assert.deepEqual([eight.getBody('a', '2-a'), eight.getBody('a', '3-a')], ['{"v":"2-a"}', '{"v":"3-a"}']);
    again.close();
    const reopened = new Database(join(dir, 'eight.sqlite'), { readonly: true });
    assert.equal(reopened.pragma('user_version', { simple: true }), 9);
    const columns = reopened.prepare("SELECT name FROM pragma_table_info('docs')").pluck().all() as string[];
    assert.equal(columns[columns.length - 1], 'body', 'the body last in the row, after access');
    const winnersInBodies = reopened
      .prepare('SELECT count(*) FROM bodies b JOIN docs d ON d.k = b.doc AND d.rev = b.rev')
      .pluck()
      .get();
    assert.equal(winnersInBodies, 0);
    reopened.close();
  });

  it('saves the counters at a clean close, not with each write batch', () => {
    const { engine, dir } = freshEngine();
    const db = engine.create('saved');
    db.writeDocs([put('a', '1-a')]);
    const peek = new Database(join(dir, 'saved.sqlite'), { readonly: true });
    const savedSeq = (): unknown => peek.prepare("SELECT value FROM meta WHERE key = 'update_seq'").pluck().get();
    assert.equal(savedSeq(), 0);
    engine.close();
    assert.equal(savedSeq(), 1);
    peek.close();
  });

  it('counts the counters again from the rows when meta is behind them (a write batch after the last save)', () => {
    const { engine, dir } = freshEngine();
    const db = engine.create('behind');
    db.writeDocs([put('a', '1-a'), put('b', '1-b', { body: '{"b":"é"}' }), put('c', '1-c', { deleted: true })]);
    db.writeDocs([put('a', '2-a', { drop: ['1-a'] })]);
    const exact = db.meta();
    engine.close();
    // What a kill -9 after these writes leaves: meta as it was saved before them.
    const file = new Database(join(dir, 'behind.sqlite'));
    const setSaved = file.prepare('UPDATE meta SET value = ? WHERE key = ?');
    for (const key of ['update_seq', 'doc_count', 'doc_del_count', 'external']) setSaved.run(0, key);
    file.close();
    const again = openSqliteEngine({ dir });
    const behind = again.open('behind')!;
    const m = behind.meta();
    assert.deepEqual(
      [m.updateSeq, m.docCount, m.docDelCount, m.sizes.external],
      [exact.updateSeq, exact.docCount, exact.docDelCount, exact.sizes.external],
    );
    assert.deepEqual([m.updateSeq, m.docCount, m.docDelCount], [4, 2, 1]);
    // The stale bytes are not on the rows: left to be counted again (SqliteDatabase.countStaleBodies).
    const file2 = new Database(join(dir, 'behind.sqlite'), { readonly: true });
    assert.equal(file2.prepare("SELECT count(*) FROM meta WHERE key = 'stale'").pluck().get(), 0);
    file2.close();
    behind.countStaleBodies(() => []);
    assert.deepEqual(behind.writeDocs([put('d', '1-d')]), [5]);
    again.close();
  });

  it('a failing transaction changes nothing', () => {
    const { db, engine } = freshDb();
    db.writeDocs([put('a', '1-a'), put('b', '1-b')]);
    const before = db.meta();
    const bad: DocWrite = {
      record: { id: 'c', rev: '1-c', deleted: false, tree: 't' },
      bodies: [{ rev: '1-c', body: { x: 1 } as unknown as string }],
    };
    assert.throws(() => db.writeDocs([put('a', '2-a', { deleted: true }), put('d', '1-d'), bad]), TypeError);
    assert.deepEqual(db.meta().updateSeq, before.updateSeq);
    assert.deepEqual(
      [db.meta().docCount, db.meta().docDelCount, db.meta().sizes.external],
      [before.docCount, before.docDelCount, before.sizes.external],
    );
    assert.equal(db.getDoc('a')?.rev, '1-a');
    assert.equal(db.getDoc('d'), undefined);
    assert.equal(db.getBody('a', '2-a'), undefined);
    assert.deepEqual(ids(db.foldChanges(0)), ['a', 'b']);
    // The next write goes on from the old counters, also after a reopen.
    assert.deepEqual(db.writeDocs([put('d', '1-d')]), [3]);
    assert.equal(db.meta().docCount, 3);
    engine.close();
  });
});

describe('sqlite engine: folds', () => {
  // In UTF-16 order the astral character sorts before U+E000; in code point order after U+FFFF.
  const all = ['a', 'b', 'B', 'ba', '_design/x', 'é', '\uE000', '\uFFFF', '😀', '😀a', 'z'];
  const sorted = [...all].sort(byCodePoint);
  let engine: SqliteSyncEngine;
  let db: SqliteSyncStore;
  before(() => {
    ({ engine, db } = freshDb());
    db.writeDocs(all.map((id) => put(id, '1-x', { deleted: id === 'ba' })));
  });
  after(() => engine.close());

  it('orders ids by code point', () => {
    assert.notDeepEqual([...all].sort(), sorted, 'the sample must tell the two orders apart');
    assert.deepEqual(ids(db.foldDocs({ includeDeleted: true })), sorted);
    assert.deepEqual(
      ids(db.foldDocs({})),
      sorted.filter((id) => id !== 'ba'),
    );
    assert.deepEqual(ids(db.foldDocs({ descending: true, includeDeleted: true })), [...sorted].reverse());
  });

  it('applies start, end, inclusiveEnd and descending', () => {
    const fold = (range: IdRange): string[] => ids(db.foldDocs({ includeDeleted: true, ...range }));
    const slice = (from: string, to: string): string[] => sorted.slice(sorted.indexOf(from), sorted.indexOf(to) + 1);
    assert.deepEqual(fold({ start: 'b', end: '\uFFFF' }), slice('b', '\uFFFF'));
    assert.deepEqual(fold({ start: 'b', end: '\uFFFF', inclusiveEnd: false }), slice('b', '\uE000'));
    assert.deepEqual(fold({ start: '\uE000', end: '😀' }), ['\uE000', '\uFFFF', '😀']);
    assert.deepEqual(fold({ start: 'c' }), slice('z', '😀a'));
    assert.deepEqual(fold({ end: 'a' }), slice('B', 'a'));
    assert.deepEqual(fold({ end: 'a', inclusiveEnd: false }), slice('B', '_design/x'));
    assert.deepEqual(fold({ start: '😀', end: 'b', descending: true }), slice('b', '😀').reverse());
    assert.deepEqual(
      fold({ start: '😀', end: 'b', descending: true, inclusiveEnd: false }),
      slice('ba', '😀').reverse(),
    );
    assert.deepEqual(fold({ start: 'b', descending: true }), slice('B', 'b').reverse());
    assert.deepEqual(fold({ end: '\uFFFF', descending: true }), slice('\uFFFF', '😀a').reverse());
    assert.deepEqual(fold({ start: 'z', end: 'a' }), [], 'start after end ascending');
    assert.deepEqual(ids(db.foldDocs({ start: 'b', end: 'bz' })), ['b'], 'deleted left out');
  });

  it('counts what foldDocs gives', () => {
    const ranges: IdRange[] = [
      {},
      { includeDeleted: true },
      { start: 'b', end: '\uFFFF' },
      { start: 'b', end: '\uFFFF', inclusiveEnd: false, includeDeleted: true },
      { start: '😀', end: 'b', descending: true },
      { start: '😀', end: 'b', descending: true, inclusiveEnd: false },
      { end: '_design0', inclusiveEnd: false, start: '_design/' },
      { start: 'z', end: 'a' },
    ];
    for (const range of ranges)
      assert.equal(db.countDocs(range), [...db.foldDocs(range)].length, JSON.stringify(range));
  });

  it('folds changes since a seq, both ways, and counts them', () => {
    const { db, engine } = freshDb();
    db.writeDocs(['a', 'b', 'c', 'd'].map((id) => put(id, '1-x')));
    db.writeDocs([put('b', '2-x', { deleted: true })]);
    assert.deepEqual(ids(db.foldChanges(0)), ['a', 'c', 'd', 'b']);
    assert.deepEqual(seqs(db.foldChanges(2)), [3, 4, 5]);
    assert.deepEqual(seqs(db.foldChanges(0, true)), [5, 4, 3, 1]);
    assert.deepEqual(seqs(db.foldChanges(3, true)), [5, 4]);
    assert.deepEqual(seqs(db.foldChanges(5)), []);
    assert.equal(db.countChanges(0), 4);
    assert.equal(db.countChanges(1), 3);
    assert.equal(db.countChanges(3), 2);
    assert.equal(db.countChanges(5), 0);
    const changed = [...db.foldChanges(4)][0];
    assert.deepEqual(changed, { id: 'b', seq: 5, rev: '2-x', deleted: true, tree: 'tree:2-x' });
    engine.close();
  });

  it('pages across boundaries (1,234 documents) and survives writes between yields', () => {
    const { db, engine } = freshDb();
    const n = 1234;
    const docIds = Array.from({ length: n }, (_, i) => `doc${String(i).padStart(5, '0')}`);
    // Written in a shuffled order so id order and seq order differ.
    const shuffled = docIds.map((_id, i) => docIds[(i * 577) % n]!);
    assert.equal(new Set(shuffled).size, n);
    db.writeDocs(shuffled.map((id) => put(id, '1-x')));
    assert.deepEqual(ids(db.foldDocs({})), docIds);
    assert.deepEqual(ids(db.foldDocs({ descending: true })), [...docIds].reverse());
    assert.deepEqual(ids(db.foldChanges(0)), shuffled);
    assert.deepEqual(ids(db.foldChanges(0, true)), [...shuffled].reverse());
    assert.deepEqual(
      ids(db.foldDocs({ start: docIds[100], end: docIds[1100], inclusiveEnd: false })),
      docIds.slice(100, 1100),
    );
    assert.equal(db.countDocs({ start: docIds[100] }), n - 100);

    // Writing while a fold is between two yields: no error, and the fold goes on in order. (A
    // fold is no snapshot: rows written ahead of the cursor show up unless the last page was read.)
    const seen = new Set<string>();
    let last = '';
    for (const doc of db.foldDocs({})) {
      assert.ok(doc.id > last);
      last = doc.id;
      if (seen.size % 100 === 0) db.writeDocs([put(doc.id, '2-x'), put(`zz${seen.size}`, '1-x')]);
      seen.add(doc.id);
    }
    assert.ok(docIds.every((id) => seen.has(id)));
    let lastSeq = 0;
    const changed = new Set<string>();
    for (const doc of db.foldChanges(0)) {
      assert.ok(doc.seq > lastSeq);
      lastSeq = doc.seq;
      if (changed.size === 70) db.writeDocs([put(doc.id, '3-x')]);
      changed.add(doc.id);
    }
    assert.equal(changed.size, n + 13);

    for (let i = 0; i < n; i++) db.putLocal({ id: `_local/${docIds[i]}`, rev: '0-1', body: '{}' });
    assert.deepEqual(
      ids(db.foldLocal({})),
      docIds.map((id) => `_local/${id}`),
    );
    assert.equal([...db.foldLocal({ descending: true })].length, n);
    engine.close();
  });

  it('stops early without leaving anything open', () => {
    const { db, engine } = freshDb();
    db.writeDocs(Array.from({ length: 300 }, (_, i) => put(`d${i}`, '1-x')));
    const it = db.foldDocs({});
    assert.equal(it.next().value?.id, 'd0');
    it.return(undefined);
    db.writeDocs([put('d0', '2-x')]);
    engine.close();
  });
});

describe('sqlite engine: local documents and props', () => {
  it('puts, gets, replaces, deletes and folds local docs', () => {
    const { db, engine } = freshDb();
    assert.equal(db.getLocal('_local/a'), undefined);
    db.putLocal({ id: '_local/b', rev: '0-1', body: '{"b":1}' });
    db.putLocal({ id: '_local/a', rev: '0-1', body: '{"a":1}' });
    db.putLocal({ id: '_local/a', rev: '0-2', body: '{"a":2}' });
    db.putLocal({ id: '_local/😀', rev: '0-1', body: '{}' });
    db.putLocal({ id: '_local/\uFFFF', rev: '0-1', body: '{}' });
    assert.deepEqual(db.getLocal('_local/a'), { id: '_local/a', rev: '0-2', body: '{"a":2}' });
    assert.deepEqual(ids(db.foldLocal({})), ['_local/a', '_local/b', '_local/\uFFFF', '_local/😀']);
    assert.deepEqual(ids(db.foldLocal({ start: '_local/b', descending: true })), ['_local/b', '_local/a']);
    assert.deepEqual(ids(db.foldLocal({ start: '_local/a', end: '_local/b', inclusiveEnd: false })), ['_local/a']);
    assert.equal(db.deleteLocal('_local/a'), true);
    assert.equal(db.deleteLocal('_local/a'), false);
    assert.equal(db.getLocal('_local/a'), undefined);
    // Local docs are not documents.
    const m = db.meta();
    assert.deepEqual([m.updateSeq, m.docCount, m.docDelCount], [0, 0, 0]);
    assert.deepEqual([...db.foldDocs({ includeDeleted: true })], []);
    assert.deepEqual([...db.foldChanges(0)], []);
    engine.close();
  });

  it('stores props', () => {
    const { db, engine } = freshDb();
    assert.equal(db.getProp('security'), undefined);
    db.setProp('security', '{"admins":{}}');
    db.setProp('security', '{"members":{}}');
    db.setProp('revs_limit', '1000');
    assert.equal(db.getProp('security'), '{"members":{}}');
    assert.equal(db.getProp('revs_limit'), '1000');
    engine.close();
  });
});

describe('sqlite engine: one process owns an open file', () => {
  const sqlitePath = createRequire(import.meta.url).resolve('better-sqlite3');
  /** What another process gets reading `file`: its row count, or the error's code. */
  const readElsewhere = (file: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const script = `try { const D = require(process.argv[1]); const d = new D(process.argv[2], { timeout: 0 });
        console.log(d.prepare('SELECT count(*) FROM docs').pluck().get()); } catch (e) { console.log(e.code); }`;
      const proc = spawn(process.execPath, ['-e', script, sqlitePath, file], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      proc.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      proc.on('error', reject);
      proc.on('exit', () => resolve(out.trim()));
    });

  it('keeps the WAL index in memory and the file locked from other processes until it closes', async () => {
    // `%`, `?` and `#` in the path: the file is opened by a URI (src/storage/sqlite/process-vfs.ts).
    const dir = join(tmp.dir, 'odd %25 ?x=1 #dir');
    const engine = openSqliteEngine({ dir });
    const db = engine.create('a/b');
    db.writeDocs([put('x', '1-a'), put('y', '1-b')]);
    const file = join(dir, 'a%2Fb.sqlite');
    assert.ok(existsSync(file), 'the file is where its path says');
    assert.ok(existsSync(`${file}-wal`), 'in WAL mode');
    assert.ok(!existsSync(`${file}-shm`), 'the WAL index is in memory, not in a -shm file');
    assert.equal(await readElsewhere(file), 'SQLITE_BUSY');
    engine.close();
    assert.equal(await readElsewhere(file), '2');
    const again = openSqliteEngine({ dir });
    assert.equal(again.open('a/b')?.getDoc('y')?.rev, '1-b');
    again.close();
  });
});

describe('sqlite engine: crash safety', () => {
  it('keeps every acknowledged write when the writer gets SIGKILL', async () => {
    const { dir } = freshEngine();
    const child = join(fileURLToPath(import.meta.url), '..', 'support', 'storage-kill-child.js');
    const proc = spawn(process.execPath, [child, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    let acked = 0;
    let lines = 0;
    let pending = '';
    const exited = new Promise<NodeJS.Signals | null>((resolve) => proc.on('exit', (_code, signal) => resolve(signal)));
    proc.stdout.setEncoding('utf8');
    proc.stdout.on('data', (chunk: string) => {
      pending += chunk;
      const parts = pending.split('\n');
      pending = parts.pop()!;
      for (const p of parts) {
        acked = Number(p);
        if (++lines === 400) proc.kill('SIGKILL');
      }
    });
    assert.equal(await exited, 'SIGKILL');
    assert.ok(acked >= 400 * 5, `acked ${acked}`);

    const engine = openSqliteEngine({ dir });
    const db = engine.open('crash')!;
    const m = db.meta();
    assert.ok(m.updateSeq >= acked, `updateSeq ${m.updateSeq} < acknowledged ${acked}`);
    assert.equal(m.updateSeq % 5, 0, 'whole batches only');
    // Recompute what the writes 1..updateSeq leave behind and compare it all.
    const lastWrite = new Map<string, number>();
    for (let k = 1; k <= m.updateSeq; k++) lastWrite.set(`d${k % 500}`, k);
    let live = 0;
    let external = 0;
    for (const [id, k] of lastWrite) {
      const deleted = k % 7 === 0;
      assert.deepEqual(db.getDoc(id), { id, seq: k, rev: `${k}-x`, deleted, tree: `[${k}]` });
      assert.equal(db.getBody(id, `${k}-x`), `{"k":${k}}`);
      if (!deleted) {
        live++;
        external += `{"k":${k}}`.length;
      }
    }
    assert.deepEqual([m.docCount, m.docDelCount, m.sizes.external], [live, lastWrite.size - live, external]);
    assert.equal([...db.foldChanges(0)].length, lastWrite.size);
    engine.close();
  });
});

describe('sqlite engine: WAL checkpoints off the event loop', () => {
  const sizeOf = (path: string): number => (existsSync(path) ? statSync(path).size : 0);
  const bigBody = (k: number): string => `{"k":${k},"pad":"${'x'.repeat(40_000)}"}`;

  it("copies a commit into the database file without the writer's own checkpoint", async () => {
    const { engine, dir } = freshEngine();
    const db = engine.create('big');
    const file = join(dir, readdirSync(dir).find((f) => f.endsWith('.sqlite'))!);
    const before = sizeOf(file);
    // ~12 MB: far below the writer's own autocheckpoint (64 MiB) while the worker runs.
    db.writeDocs(Array.from({ length: 300 }, (_, k) => put(`d${k}`, `1-${k}`, { body: bigBody(k) })));
    const deadline = Date.now() + 10_000;
    while (sizeOf(file) < before + 10_000_000 && Date.now() < deadline) await sleep(50);
    assert.ok(sizeOf(file) >= before + 10_000_000, `database file ${sizeOf(file)} bytes`);
    assert.equal(db.getBody('d299', '1-299'), bigBody(299));
    engine.close();
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.endsWith('-wal')),
      [],
      'the writer closed last: its close checkpointed and removed the WAL',
    );
  });

  it('copies the commits of a file written without pause while the writes go on', async () => {
    const { engine, dir } = freshEngine();
    const db = engine.create('busy');
    const file = join(dir, readdirSync(dir).find((f) => f.endsWith('.sqlite'))!);
    // Enough writes for the worker to watch the file (it starts on a file's WATCH_AFTER_DOCS-th).
    db.writeDocs(Array.from({ length: WATCH_AFTER_DOCS }, (_, k) => put(`filler${k}`, '1-f')));
    const before = sizeOf(file);
    // A commit every few milliseconds, never the quiet moment the worker waits for: it copies
    // them anyway once the oldest is a few hundred milliseconds old.
    let k = 0;
    const deadline = Date.now() + 10_000;
    while (sizeOf(file) < before + 2_000_000 && Date.now() < deadline) {
      db.writeDocs([put(`d${k}`, `1-${k}`, { body: bigBody(k) })]);
      k++;
      await sleep(5);
    }
    assert.ok(sizeOf(file) >= before + 2_000_000, `database file ${sizeOf(file)} bytes after ${k} writes`);
    assert.equal(db.getBody(`d${k - 1}`, `1-${k - 1}`), bigBody(k - 1));
    engine.close();
  });

  it('a database destroyed and made again under the same name keeps the new one’s writes', async () => {
    const { dir } = freshEngine();
    for (let round = 0; round < 5; round++) {
      const engine = openSqliteEngine({ dir });
      const old = engine.create('x');
      old.writeDocs([put('old', '1-a', { body: bigBody(round) })]);
      // Enough writes for the worker to watch the file (it starts on a file's WATCH_AFTER_DOCS-th).
      old.writeDocs(Array.from({ length: WATCH_AFTER_DOCS }, (_, k) => put(`filler${k}`, '1-f')));
      await sleep(150); // the worker has the file open by now
      engine.destroy('x');
      const fresh = engine.create('x');
      fresh.writeDocs([put('new', `1-${round}`)]);
      await sleep(150);
      fresh.writeDocs([put('newer', `1-${round}`)]);
      engine.close();
      const again = openSqliteEngine({ dir });
      const reopened = again.open('x')!;
      assert.equal(reopened.getDoc('old'), undefined);
      assert.equal(reopened.getBody('new', `1-${round}`), `{"v":"1-${round}"}`);
      assert.equal(reopened.getBody('newer', `1-${round}`), `{"v":"1-${round}"}`);
      again.destroy('x');
      again.close();
    }
  });
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The `_find` page read as one text (doc-reads.ts `plainWinnersText`) is a fast path its callers
 * fall back from silently (they read the page document by document when it declines), so its
 * answers are asserted here: a path that always declined would still pass every HTTP test.
 */
describe('sqlite engine: a page of winners as one text', () => {
  it('writes live winners in the order asked, their bodies in the docs row included', () => {
    const { db } = freshDb();
    db.writeDocs([put('a', '1-a', { body: '{"v":1}' }), put('b', '1-b', { body: '{}' }), put('c', '1-c')]);
    // An update: its winner's body is the new one, the old one kept for other revisions only.
    db.writeDocs([put('a', '2-a', { body: '{"v":2,"w":[1]}' })]);
    const max = db.meta().updateSeq;
    assert.equal(
      db.plainWinnersText(['c', 'a', 'b'], max, 3),
      '{"_id":"c","_rev":"1-c","v":"1-c"},{"_id":"a","_rev":"2-a","v":2,"w":[1]},{"_id":"b","_rev":"1-b"}',
    );
    // Only the first `count` are written; every id is still checked.
    assert.equal(db.plainWinnersText(['b', 'a'], max, 1), '{"_id":"b","_rev":"1-b"}');
  });

  it('declines a missing, deleted or newer document, and a body with a special member first', () => {
    const { db } = freshDb();
    db.writeDocs([
      put('live', '1-l'),
      put('gone', '1-g', { deleted: true }),
      put('att', '1-t', { body: '{"_attachments":{}}' }),
    ]);
    const max = db.meta().updateSeq;
    assert.notEqual(db.plainWinnersText(['live'], max, 1), undefined);
    assert.equal(db.plainWinnersText(['live', 'missing'], max, 2), undefined);
    assert.equal(db.plainWinnersText(['live', 'gone'], max, 2), undefined);
    assert.equal(db.plainWinnersText(['att'], max, 1), undefined);
    db.writeDocs([put('live', '2-l')]);
    assert.equal(db.plainWinnersText(['live'], max, 1), undefined);
  });
});
