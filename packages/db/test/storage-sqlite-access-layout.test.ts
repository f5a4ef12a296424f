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

const changes = (db: SqliteSyncStore, principals: string[]) =>
  [...db.access.foldChanges(principals, 0, { withRemoved: true })].map((c) => [c.record.id, c.removed]);

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

describe('sqlite engine: access kept in the document row (schema version 3)', () => {
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
    engine.close();
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
    again.close();

    const file = new Database(join(dir, 'old.sqlite'), { readonly: true });
    try {
      assert.equal(file.pragma('user_version', { simple: true }), 4);
      const names = file.prepare('SELECT name FROM sqlite_schema').pluck().all();
      assert.ok(!names.includes('access_leaves') && !names.includes('access_log_by_doc'), 'the old layout is gone');
      assert.deepEqual(
        file.prepare('SELECT principal, doc, removed FROM access_log ORDER BY doc, principal').raw().all(),
        [
          ['bob', 'b', 1],
          ['carol', 'b', 0],
        ],
      );
    } finally {
      file.close();
    }
  });

  it('a new document costs its readers two access-row entries and no index of its own', () => {
    const engine = openSqliteEngine({ dir: join(tmp.dir, 'trees') });
    const db = engine.create('db');
    update(db, [write('a', '1-a', ['alice'])]);
    engine.close();
    const file = new Database(join(tmp.dir, 'trees', 'db.sqlite'), { readonly: true });
    try {
      const indexes = file
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'access_log'")
        .pluck()
        .all();
      assert.deepEqual(
        indexes.filter((name) => !String(name).startsWith('sqlite_autoindex')),
        ['access_log_by_seq'],
      );
      assert.deepEqual(file.prepare("SELECT access FROM docs WHERE id = 'a'").pluck().get(), '[["alice"],[]]');
    } finally {
      file.close();
    }
  });
});
