import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CouchError } from '../src/errors.js';
import { parseJson, type JsonValue } from '../src/json/index.js';
import { parseRev } from '../src/revisions/index.js';
import { Database, type OpenOptions, type WriteResult } from '../src/documents/database.js';
import { readDocInput } from '../src/documents/doc-input.js';
import type { Storage } from '../src/storage/contract.js';
import { openSqliteStorage } from '../src/storage/sqlite/sqlite-storage.js';
import { makeTempDir } from './support/tmp-dir.js';

/**
 * The document layer in-process, on a SQLite storage in a temporary folder (no HTTP, no server):
 * what `_bulk_docs`, replication (`new_edits=false`) and revs_limit do to stored documents.
 */
const tmp = makeTempDir('divan-database-');
let storage: Storage;
before(() => {
  storage = openSqliteStorage({ dir: tmp.dir });
});
after(async () => {
  await storage.close();
  tmp.cleanup();
});

let dbCount = 0;
/** A fresh database, created as the server creates one. */
async function freshDb(): Promise<Database> {
  const name = `db${++dbCount}`;
  const store = await storage.create(name);
  return new Database(name, store, (await store.meta()).createdAt);
}

const json = (doc: object): JsonValue => parseJson(JSON.stringify(doc));
const bulk = (db: Database, docs: object[], newEdits = true): Promise<WriteResult[]> =>
  db.bulkDocs(docs.map(json), newEdits);

async function open(db: Database, id: string, options: OpenOptions = {}): Promise<Record<string, unknown>> {
  return JSON.parse((await db.openDoc(id, options)).json) as Record<string, unknown>;
}

/** The rev of an ok row (fails on an error row). */
function revOf(row: WriteResult | undefined): string {
  assert.ok(row !== undefined && 'ok' in row, `not an ok row: ${JSON.stringify(row)}`);
  return row.rev;
}

/** The CouchError a call ends with (bulkDocs refuses a bad request before it returns a promise). */
async function rejection(call: () => Promise<unknown>): Promise<{ error: string; reason: string }> {
  try {
    await call();
  } catch (error) {
    assert.ok(error instanceof CouchError, String(error));
    return error.toJSON();
  }
  assert.fail('accepted');
}

describe('Database.bulkDocs (new_edits=true)', () => {
  test('documents without an _id get generated ids: 32 hex digits, all different', async () => {
    const db = await freshDb();
    const rows = await bulk(db, [{ v: 1 }, { v: 2 }, { v: 3 }]);
    assert.equal(rows.length, 3);
    const ids = rows.map((row) => {
      assert.ok('ok' in row && row.ok);
      assert.match(row.id, /^[0-9a-f]{32}$/);
      assert.match(row.rev, /^1-[0-9a-f]{32}$/);
      return row.id;
    });
    assert.equal(new Set(ids).size, 3);
    assert.deepEqual(await open(db, ids[1]!), { _id: ids[1], _rev: revOf(rows[1]), v: 2 });
    assert.equal((await db.meta()).docCount, 3);
  });

  test('conflicts are rows: the other documents of the request are written', async () => {
    const db = await freshDb();
    const first = revOf((await bulk(db, [{ _id: 'a', v: 1 }]))[0]);
    const second = revOf((await bulk(db, [{ _id: 'a', _rev: first, v: 2 }]))[0]);
    const rows = await bulk(db, [
      { _id: 'a', _rev: first, v: 3 }, // stale
      { _id: 'b', v: 1 },
      { _id: 'a', v: 4 }, // no rev on a live document
    ]);
    assert.deepEqual(rows[0], { id: 'a', error: 'conflict', reason: 'Document update conflict.' });
    assert.equal(rows[1]!.id, 'b');
    revOf(rows[1]);
    assert.deepEqual(rows[2], { id: 'a', error: 'conflict', reason: 'Document update conflict.' });
    assert.deepEqual(await open(db, 'a'), { _id: 'a', _rev: second, v: 2 });
    assert.equal((await db.meta()).docCount, 2);
  });

  test('one edit of an id per request: a second one in the same request is a conflict', async () => {
    const db = await freshDb();
    const rows = await bulk(db, [
      { _id: 'a', v: 1 },
      { _id: 'a', v: 2 },
    ]);
    revOf(rows[0]);
    assert.deepEqual(rows[1], { id: 'a', error: 'conflict', reason: 'Document update conflict.' });
    assert.equal((await open(db, 'a')).v, 1);
  });

  test('one invalid document fails the whole request; nothing is written', async () => {
    const db = await freshDb();
    const refusals: [object, { error: string; reason: string }][] = [
      [
        { _id: 'x', _bad: 1 },
        { error: 'doc_validation', reason: 'Bad special document member: _bad' },
      ],
      [{ _id: 42 }, { error: 'illegal_docid', reason: 'Document id must be a string' }],
      [
        { _id: 'x', _rev: 'nonsense' },
        { error: 'bad_request', reason: 'Invalid rev format' },
      ],
    ];
    for (const [invalid, refusal] of refusals) {
      assert.deepEqual(
        await rejection(() => bulk(db, [{ _id: 'good', v: 1 }, invalid, { _id: 'also-good' }])),
        refusal,
      );
    }
    assert.equal((await db.meta()).docCount, 0);
    assert.equal(await db.updateSeq(), 0);
    assert.deepEqual(await rejection(() => db.openDoc('good')), { error: 'not_found', reason: 'missing' });
  });

  test('deleting and recreating: the tombstone counts as deleted, the new rev continues its branch', async () => {
    const db = await freshDb();
    const first = revOf((await bulk(db, [{ _id: 'a', v: 1 }]))[0]);
    const tombstone = revOf((await bulk(db, [{ _id: 'a', _rev: first, _deleted: true }]))[0]);
    assert.equal(parseRev(tombstone).pos, 2);
    assert.deepEqual(await rejection(() => db.openDoc('a')), { error: 'not_found', reason: 'deleted' });
    assert.equal((await db.meta()).docDelCount, 1);
    const again = revOf((await bulk(db, [{ _id: 'a', v: 3 }]))[0]);
    assert.equal(parseRev(again).pos, 3);
    const doc = await open(db, 'a', { revs: true });
    assert.deepEqual(doc._revisions, {
      start: 3,
      ids: [again, tombstone, first].map((rev) => parseRev(rev).id),
    });
    const meta = await db.meta();
    assert.deepEqual([meta.docCount, meta.docDelCount], [1, 0]);
  });
});

describe('Database.bulkDocs (new_edits=false)', () => {
  const ids = (...suffixes: string[]) => suffixes.map((s) => s.repeat(32));

  test('a replicated history is stored as given: _revisions, the ancestors without bodies', async () => {
    const db = await freshDb();
    const [c, b, a] = ids('c', 'b', 'a');
    const rows = await bulk(db, [{ _id: 'x', _rev: `3-${c}`, _revisions: { start: 3, ids: [c, b, a] }, v: 3 }], false);
    assert.deepEqual(rows, [{ ok: true, id: 'x', rev: `3-${c}` }]);
    const doc = await open(db, 'x', { revs: true, revsInfo: true });
    assert.deepEqual(doc._revisions, { start: 3, ids: [c, b, a] });
    assert.deepEqual(doc._revs_info, [
      { rev: `3-${c}`, status: 'available' },
      { rev: `2-${b}`, status: 'missing' },
      { rev: `1-${a}`, status: 'missing' },
    ]);
    // The same revision again changes nothing (no new sequence).
    const seq = await db.updateSeq();
    assert.deepEqual(
      await bulk(db, [{ _id: 'x', _rev: `3-${c}`, _revisions: { start: 3, ids: [c, b, a] }, v: 3 }], false),
      [{ ok: true, id: 'x', rev: `3-${c}` }],
    );
    assert.equal(await db.updateSeq(), seq);
  });

  test('branches make conflicts; the winner is the deepest live leaf, then the larger rev id', async () => {
    const db = await freshDb();
    const [a, b, c, d, e] = ids('a', 'b', 'c', 'd', 'e');
    await bulk(db, [{ _id: 'x', _rev: `2-${b}`, _revisions: { start: 2, ids: [b, a] }, v: 'b' }], false);
    await bulk(db, [{ _id: 'x', _rev: `2-${c}`, _revisions: { start: 2, ids: [c, a] }, v: 'c' }], false);
    // Same generation: the larger rev id wins; the other live leaf is a conflict.
    assert.deepEqual(await open(db, 'x', { conflicts: true }), {
      _id: 'x',
      _rev: `2-${c}`,
      v: 'c',
      _conflicts: [`2-${b}`],
    });
    // A deeper deleted branch does not win over live leaves; it is a deleted conflict.
    await bulk(db, [{ _id: 'x', _rev: `3-${d}`, _deleted: true, _revisions: { start: 3, ids: [d, b, a] } }], false);
    const afterDelete = await open(db, 'x', { conflicts: true, deletedConflicts: true });
    assert.deepEqual(afterDelete, { _id: 'x', _rev: `2-${c}`, v: 'c', _deleted_conflicts: [`3-${d}`] });
    // A deeper live branch wins.
    await bulk(db, [{ _id: 'x', _rev: `3-${e}`, _revisions: { start: 3, ids: [e, b, a] }, v: 'e' }], false);
    assert.deepEqual(await open(db, 'x', { conflicts: true }), {
      _id: 'x',
      _rev: `3-${e}`,
      v: 'e',
      _conflicts: [`2-${c}`],
    });
    const leaves = await db.openRevs('x', 'all');
    assert.deepEqual(
      leaves.map((leaf) => ('ok' in leaf ? leaf.doc.rev : leaf.missing)),
      [`2-${c}`, `3-${d}`, `3-${e}`],
    );
    assert.deepEqual(
      (await db.leafRevs('x')).map((rev) => `${rev.pos}-${rev.id}`),
      [`3-${e}`, `2-${c}`, `3-${d}`],
    );
    // An interactive edit of the losing leaf is allowed (it resolves nothing by itself).
    const onC = revOf((await bulk(db, [{ _id: 'x', _rev: `2-${c}`, v: 'c2' }]))[0]);
    assert.equal(parseRev(onC).pos, 3);
    const meta = await db.meta();
    assert.deepEqual([meta.docCount, meta.docDelCount], [1, 0]);
  });

  test('without _rev or _revisions the whole request is refused', async () => {
    const db = await freshDb();
    assert.deepEqual(
      await rejection(() => bulk(db, [{ _id: 'a', _rev: `1-${'a'.repeat(32)}` }, { _id: 'b' }], false)),
      {
        error: 'bad_request',
        reason: 'When `new_edits: false`, the document needs `_rev` or `_revisions` specified',
      },
    );
    assert.equal(await db.updateSeq(), 0);
  });
});

describe('Database: revs_limit stems histories', () => {
  test('after many updates, _revisions and _revs_info hold revs_limit revisions; older ones are gone', async () => {
    const db = await freshDb();
    await db.setRevsLimit(3);
    const revs = [revOf((await bulk(db, [{ _id: 'x', n: 0 }]))[0])];
    for (let n = 1; n < 10; n++) revs.push(revOf((await bulk(db, [{ _id: 'x', _rev: revs.at(-1), n }]))[0]));
    const newest = revs.slice(-3).reverse();
    const doc = await open(db, 'x', { revs: true, revsInfo: true });
    assert.equal(doc._rev, revs[9]);
    assert.equal(doc.n, 9);
    assert.deepEqual(doc._revisions, { start: 10, ids: newest.map((rev) => parseRev(rev).id) });
    assert.deepEqual(
      doc._revs_info,
      newest.map((rev) => ({ rev, status: 'available' })),
    );
    // A stemmed revision is no longer there, nor its body.
    assert.deepEqual(await rejection(() => db.openDoc('x', { rev: parseRev(revs[5]!) })), {
      error: 'not_found',
      reason: 'missing',
    });
    assert.equal((await open(db, 'x', { rev: parseRev(revs[7]!) })).n, 7);
  });

  test('the limit is stored with the database; a replicated history longer than it is stemmed on write', async () => {
    const db = await freshDb();
    await db.setRevsLimit(2);
    const reopened = new Database(db.name, db.store, db.createdAt);
    assert.equal(await reopened.revsLimit(), 2);
    const chain = ['d', 'c', 'b', 'a'].map((s) => s.repeat(32));
    await bulk(reopened, [{ _id: 'x', _rev: `4-${chain[0]}`, _revisions: { start: 4, ids: chain } }], false);
    assert.deepEqual((await open(reopened, 'x', { revs: true }))._revisions, { start: 4, ids: chain.slice(0, 2) });
  });
});

describe('Database: what the floors above read instead of the store', () => {
  test('foldChanges: records after a sequence, in sequence order, newest first when descending', async () => {
    const db = await freshDb();
    const [a] = await bulk(db, [{ _id: 'a' }, { _id: 'b' }, { _id: 'c' }]);
    await bulk(db, [{ _id: 'a', _rev: revOf(a), v: 2 }]);
    const changes = async (since: number, descending?: boolean): Promise<string[]> => {
      const out: string[] = [];
      for await (const page of db.foldChanges(since, descending)) for (const r of page) out.push(`${r.id}@${r.seq}`);
      return out;
    };
    assert.deepEqual(await changes(0), ['b@2', 'c@3', 'a@4']);
    assert.deepEqual(await changes(2), ['c@3', 'a@4']);
    assert.deepEqual(await changes(0, true), ['a@4', 'c@3', 'b@2']);
    assert.deepEqual(await changes(4), []);
  });

  test('recordRoles: a change of roles moves the sequence and tells the listeners at once; none does not', async () => {
    const db = await freshDb();
    await db.enableAccess();
    await bulk(db, [{ _id: 'd', _access: ['team'] }]);
    const heard: number[] = [];
    const stop = db.onChange((seq) => heard.push(seq));
    try {
      // The first record takes the roles as they are: nothing written, nobody told.
      await db.recordRoles('alice', ['team'], ['alice', '_users', 'team'], 1);
      assert.equal(await db.updateSeq(), 1);
      assert.ok(
        heard.every((seq) => seq === 1),
        `heard ${heard}`,
      );
      // Team taken away: the document it read is a removed row at a new sequence, told before the call returns.
      await db.recordRoles('alice', [], ['alice', '_users'], 2);
      assert.equal(await db.updateSeq(), 2);
      assert.equal(heard.at(-1), 2);
    } finally {
      stop();
    }
  });
});

describe('Database: group commit', () => {
  test('writes that come in the same turn commit together: one change told, each its own sequence', async () => {
    const db = await freshDb();
    const heard: number[] = [];
    const stop = db.onChange((seq) => heard.push(seq));
    try {
      const input = (id: string) => readDocInput(json({ n: id }), id);
      const rows = await Promise.all(Array.from({ length: 16 }, (_, i) => db.putDoc(`d${i}`, input(`d${i}`))));
      assert.equal(new Set(rows.map((r) => r.rev)).size, 16);
      assert.equal(await db.updateSeq(), 16);
      // One commit for the sixteen: the listeners hear its last sequence once.
      assert.deepEqual(
        heard.filter((seq) => seq > 0),
        [16],
      );
      const changes: string[] = [];
      for await (const page of db.foldChanges(0)) for (const r of page) changes.push(`${r.id}@${r.seq}`);
      assert.deepEqual(changes.sort(), Array.from({ length: 16 }, (_, i) => `d${i}@${i + 1}`).sort());
    } finally {
      stop();
    }
  });

  test('two edits of one id in the same turn: the first wins, the second is a conflict', async () => {
    const db = await freshDb();
    const [created] = await bulk(db, [{ _id: 'x' }]);
    const edit = (v: number) =>
      db.putDoc('x', readDocInput(json({ _rev: revOf(created), v }), 'x')).then(
        (row) => row.rev,
        (error: unknown) => (error instanceof CouchError ? error.error : error),
      );
    const [first, second] = await Promise.all([edit(1), edit(2)]);
    assert.match(String(first), /^2-/);
    assert.equal(second, 'conflict');
    assert.equal((await open(db, 'x')).v, 1);
  });

  test('a writer alone, one document after another, still writes each', async () => {
    const db = await freshDb();
    let rev: string | undefined;
    for (let i = 0; i < 40; i++) {
      const body = rev === undefined ? { i } : { _rev: rev, i };
      rev = (await db.putDoc('solo', readDocInput(json(body), 'solo'))).rev;
    }
    assert.match(rev!, /^40-/);
    assert.equal((await open(db, 'solo')).i, 39);
  });
});
