/**
 * Views exactly as CouchDB 3.5 answers them (issue #14, the views part): what a map function
 * sees of a document's conflicts, the order of one document's rows under one key, sources with
 * a trailing `;` or comment, one-element `keys`, offsets and order of multi-key queries, the
 * view's `update_seq`, and include_docs of a linked revision.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';
import { assertError, dbSeq, putDdoc, putDoc, seed, viewClient } from './support/views-http.js';

describe('views exactly as CouchDB: what map functions see', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  it('a map function sees _conflicts (only when there are some) and _deleted_conflicts', async () => {
    const db = 'conflicts';
    await seed(t, db, [{ _id: 'plain', n: 0 }], {
      c: {
        views: {
          conflicts: { map: 'function (doc) { if (doc._conflicts) emit(doc._id, doc._conflicts); }' },
          deleted: { map: 'function (doc) { if (doc._deleted_conflicts) emit(doc._id, doc._deleted_conflicts); }' },
          members: {
            map: "function (doc) { emit(doc._id, Object.keys(doc).filter(function (k) { return k[0] === '_'; })); }",
          },
        },
      },
    });
    // Three leaves of `x` written as replication does: 2-c wins (highest), 2-a and 2-b conflict.
    const bulk = await t.request('POST', `/${db}/_bulk_docs`, {
      body: {
        new_edits: false,
        docs: [
          { _id: 'x', _rev: '2-aaaa', n: 1, _revisions: { start: 2, ids: ['aaaa', 'root'] } },
          { _id: 'x', _rev: '2-bbbb', n: 2, _revisions: { start: 2, ids: ['bbbb', 'root'] } },
          { _id: 'x', _rev: '2-cccc', n: 3, _revisions: { start: 2, ids: ['cccc', 'root'] } },
        ],
      },
    });
    assert.equal(bulk.status, 201, bulk.text);
    const v = viewClient(t, db, 'c');
    let r = await v.ok('conflicts');
    assert.deepEqual(r.rows, [{ id: 'x', key: 'x', value: ['2-bbbb', '2-aaaa'] }]);
    assert.deepEqual((await v.ok('deleted')).rows, []);
    // Deleting one losing leaf moves it to _deleted_conflicts.
    const del = await t.request('DELETE', `/${db}/x?rev=2-aaaa`);
    assert.equal(del.status, 200, del.text);
    r = await v.ok('conflicts');
    assert.deepEqual(r.rows, [{ id: 'x', key: 'x', value: ['2-bbbb'] }]);
    r = await v.ok('deleted');
    assert.equal(r.rows.length, 1);
    assert.equal(r.rows[0].value.length, 1);
    assert.match(r.rows[0].value[0], /^3-/);
    r = await v.ok('members');
    assert.deepEqual(r.rows, [
      { id: 'plain', key: 'plain', value: ['_id', '_rev'] },
      { id: 'x', key: 'x', value: ['_id', '_rev', '_conflicts', '_deleted_conflicts'] },
    ]);
  });
});

describe('views exactly as CouchDB: one document, one key, several rows', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    const emits =
      "emit('k', true); emit('k', 'str'); emit('k', 1); emit('k', {a: 1}); emit('k', null); emit('k', [1]); emit('k', false); emit('k', 2);";
    await seed(t, 'dups', [{ _id: 'a' }, { _id: 'b' }], {
      d: { views: { dups: { map: `function (doc) { ${emits} emit('j', doc._id); }` } } },
    });
  });
  after(() => t.close());

  const ORDER = [1, 2, false, null, true, { a: 1 }, [1], 'str'];
  const values = (r: { rows: { id: string; value: unknown }[] }) => r.rows.map((row) => [row.id, row.value]);

  it('rows of one doc under one key come by value in raw term order (numbers < false < null < true < objects < arrays < strings)', async () => {
    const v = viewClient(t, 'dups', 'd');
    const r = await v.ok('dups', { key: 'k' });
    assert.deepEqual(values(r), [...ORDER.map((x) => ['a', x]), ...ORDER.map((x) => ['b', x])]);
  });

  it('in the same value order when descending (only the documents come in reverse)', async () => {
    const v = viewClient(t, 'dups', 'd');
    const r = await v.ok('dups', { descending: true, startkey: 'k', endkey: 'k' });
    assert.deepEqual(values(r), [...ORDER.map((x) => ['b', x]), ...ORDER.map((x) => ['a', x])]);
    const paged = await v.ok('dups', { descending: true, key: 'k', skip: 1, limit: 2 });
    assert.deepEqual(values(paged), [
      ['b', 2],
      ['b', false],
    ]);
    const all = await v.ok('dups', { descending: true });
    assert.deepEqual(values(all).slice(0, 3), [
      ['b', 1],
      ['b', 2],
      ['b', false],
    ]);
    assert.deepEqual(values(all).slice(-2), [
      ['b', 'b'],
      ['a', 'a'],
    ]);
  });
});

describe('views exactly as CouchDB: sources with a trailing ; or comment', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    await seed(t, 'semi', [
      { _id: 'a', n: 1 },
      { _id: 'b', n: 2 },
    ]);
  });
  after(() => t.close());

  it('a map or reduce source ending with ; or a comment saves (ddoc check) and compiles (query)', async () => {
    await putDdoc(t, 'semi', 's', {
      views: {
        semi: { map: 'function (doc) { emit(doc._id, doc.n); };' },
        semis: { map: 'function (doc) { emit(doc._id, doc.n); } ;;\n' },
        comment: { map: 'function (doc) { emit(doc._id, doc.n); }; // done' },
        block: { map: 'function (doc) { emit(doc._id, doc.n); } /* done */;' },
        slashes: { map: 'function (doc) { emit(doc._id, doc.n); /* a//b */ }; // c // d\n;' },
        js: {
          map: 'function (doc) { emit(null, doc.n); }',
          reduce: 'function (keys, values, rereduce) { return sum(values); }; // a JS reduce',
        },
      },
    });
    const v = viewClient(t, 'semi', 's');
    for (const view of ['semi', 'semis', 'comment', 'block', 'slashes']) {
      assert.deepEqual((await v.ok(view)).rows, [
        { id: 'a', key: 'a', value: 1 },
        { id: 'b', key: 'b', value: 2 },
      ]);
    }
    assert.deepEqual((await v.ok('js')).rows, [{ key: null, value: 3 }]);
  });

  it('a source that does not compile is still a 400 compilation_error', async () => {
    const r = await t.request('PUT', '/semi/_design/bad', {
      body: { views: { v: { map: 'function (doc) { emit(doc._id; }' } } },
    });
    assertError(r, 400, 'compilation_error', /^Compilation of the map function in the 'v' view failed: /);
    // Statements that are not one function are no function, trailing `;` or not.
    for (const map of ['1; 2;', 'function (doc) {}; function (doc) {};']) {
      const bad = await t.request('PUT', '/semi/_design/bad', { body: { views: { v: { map } } } });
      assertError(bad, 400, 'compilation_error');
    }
  });
});

describe('views exactly as CouchDB: one-element keys, multi-key offset and order', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    await seed(
      t,
      'onekey',
      ['a', 'b', 'c', 'd'].map((k, i) => ({ _id: `${k}1`, k, n: i + 1 })),
      {
        k: {
          views: {
            map: { map: 'function (doc) { emit(doc.k, doc.n); }' },
            sum: { map: 'function (doc) { emit(doc.k, doc.n); }', reduce: '_sum' },
          },
        },
      },
    );
  });
  after(() => t.close());

  it('a one-element keys wins over key (GET, in either order, and POST)', async () => {
    const v = viewClient(t, 'onekey', 'k');
    const want = [{ id: 'c1', key: 'c', value: 3 }];
    assert.deepEqual(
      (
        await v.ok('map', [
          ['key', 'a'],
          ['keys', ['c']],
        ])
      ).rows,
      want,
    );
    assert.deepEqual(
      (
        await v.ok('map', [
          ['keys', ['c']],
          ['key', 'a'],
        ])
      ).rows,
      want,
    );
    assert.deepEqual((await v.postOk('map', { keys: ['c'] }, { key: 'a' })).rows, want);
  });

  it('a one-element keys plus startkey is a range; reversed, the range error', async () => {
    const v = viewClient(t, 'onekey', 'k');
    const r = await v.ok('map', [
      ['keys', ['c']],
      ['startkey', 'b'],
    ]);
    assert.deepEqual(
      r.rows.map((row: { key: string }) => row.key),
      ['b', 'c'],
    );
    assert.equal(r.offset, 1);
    assert.deepEqual(
      (
        await v.ok('sum', [
          ['keys', ['c']],
          ['startkey', 'a'],
        ])
      ).rows,
      [{ key: null, value: 6 }],
    );
    assertError(
      await v.get('map', [
        ['keys', ['a']],
        ['startkey', 'c'],
      ]),
      400,
      'query_parse_error',
      'No rows can match your key range, reverse your start_key and end_key or set descending=true',
    );
  });

  it('on a reduce view a one-element keys needs no group', async () => {
    const v = viewClient(t, 'onekey', 'k');
    assert.deepEqual((await v.postOk('sum', { keys: ['b'] })).rows, [{ key: null, value: 2 }]);
  });
});

describe('views exactly as CouchDB: multi-key offset and grouped order', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    await seed(
      t,
      'multikey',
      ['a', 'a', 'b', 'c', 'c', 'd'].map((k, i) => ({ _id: `${k}${i}`, k, n: i + 1 })),
      {
        k: {
          views: {
            map: { map: 'function (doc) { emit(doc.k, doc.n); }' },
            sum: { map: 'function (doc) { emit(doc.k, doc.n); }', reduce: '_sum' },
          },
        },
      },
    );
  });
  after(() => t.close());

  it('offset is counted as CouchDB 3.5 counts it: from the first requested key with rows, plus skip', async () => {
    const v = viewClient(t, 'multikey', 'k');
    // Index: a0 a1 b2 c3 c4 d5. CouchDB's shard reports the rows before the first row it finds
    // (skip is applied on the coordinator, which adds it, capped at total_rows).
    let r = await v.postOk('map', { keys: ['c', 'a'] });
    assert.equal(r.offset, 3);
    r = await v.postOk('map', { keys: ['c', 'a'], skip: 2 });
    assert.deepEqual(
      r.rows.map((row: { id: string }) => row.id),
      ['a0', 'a1'],
    );
    assert.equal(r.offset, 5);
    r = await v.postOk('map', { keys: ['zz', 'b', 'd'], skip: 1 });
    assert.deepEqual(
      r.rows.map((row: { id: string }) => row.id),
      ['d5'],
    );
    assert.equal(r.offset, 3);
    // No key with rows: the rows before the last requested key.
    r = await v.postOk('map', { keys: ['zz', 'bb'] });
    assert.deepEqual(r.rows, []);
    assert.equal(r.offset, 3);
    r = await v.postOk('map', { keys: ['bb', 'zz'] });
    assert.equal(r.offset, 6);
    // Descending: rows come in reversed key order, but the offset is read in request order
    // (rows after the first requested key that has rows), capped at total_rows.
    r = await v.postOk('map', { keys: ['a', 'c'], descending: true });
    assert.deepEqual(
      r.rows.map((row: { id: string }) => row.id),
      ['c4', 'c3', 'a1', 'a0'],
    );
    assert.equal(r.offset, 4);
    r = await v.postOk('map', { keys: ['a', 'c'], descending: true, skip: 3 });
    assert.deepEqual(
      r.rows.map((row: { id: string }) => row.id),
      ['a0'],
    );
    assert.equal(r.offset, 6);
    r = await v.postOk('map', { keys: ['c', 'zz'], descending: true, skip: 1 });
    assert.equal(r.offset, 2);
  });

  it('a grouped reduce with keys keeps the order of the keys when descending', async () => {
    const v = viewClient(t, 'multikey', 'k');
    const r = await v.postOk('sum', { keys: ['c', 'a', 'd'], group: true, descending: true });
    assert.deepEqual(r.rows, [
      { key: 'c', value: 9 },
      { key: 'a', value: 3 },
      { key: 'd', value: 6 },
    ]);
  });
});

describe("views exactly as CouchDB: a view's update_seq", () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    await seed(t, 'seqs', [{ _id: 'a', type: 'x' }], {
      s: {
        views: {
          xs: { map: "function (doc) { if (doc.type === 'x') emit(doc._id); }" },
          ys: { map: "function (doc) { if (doc.type === 'y') emit(doc._id); }" },
        },
      },
    });
  });
  after(() => t.close());

  it('is the sequence of the last change to its rows: design docs and docs it ignores leave it', async () => {
    const v = viewClient(t, 'seqs', 's');
    const first = await v.ok('xs', { update_seq: true });
    assert.equal(first.update_seq, 1, 'doc a was change 1 (the design doc, change 2, is not mapped)');
    assert.equal(await dbSeq(t, 'seqs'), 2);
    await putDdoc(t, 'seqs', 'other', { views: { v: { map: 'function (doc) { emit(null); }' } } });
    await putDoc(t, 'seqs', { _id: 'b', type: 'y' });
    const uncached = await v.ok('xs', { update_seq: true, limit: 5 });
    assert.equal(uncached.update_seq, 1);
    // The same query again (answered from the cache): the same answer.
    assert.deepEqual(await v.ok('xs', { update_seq: true, limit: 5 }), uncached);
    assert.equal((await v.ok('ys', { update_seq: true })).update_seq, 4);
    await putDoc(t, 'seqs', { _id: 'c', type: 'x' });
    const after = await v.ok('xs', { update_seq: true, limit: 5 });
    assert.equal(after.update_seq, 5);
    assert.deepEqual(await v.ok('xs', { update_seq: true, limit: 5 }), after);
  });
});

describe('views exactly as CouchDB: include_docs of a linked revision', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    await seed(t, 'linked', [], {
      l: { views: { links: { map: 'function (doc) { if (doc.to) emit(doc._id, { _id: doc.to, _rev: doc.rev }); }' } } },
    });
  });
  after(() => t.close());

  it('a {_id, _rev} value fetches exactly that revision, without _conflicts', async () => {
    const bulk = await t.request('POST', '/linked/_bulk_docs', {
      body: {
        new_edits: false,
        docs: [
          { _id: 'x', _rev: '1-root', n: 0 },
          { _id: 'x', _rev: '2-aaaa', n: 1, _revisions: { start: 2, ids: ['aaaa', 'root'] } },
          { _id: 'x', _rev: '2-bbbb', n: 2, _revisions: { start: 2, ids: ['bbbb', 'root'] } },
        ],
      },
    });
    assert.equal(bulk.status, 201, bulk.text);
    await putDoc(t, 'linked', { _id: 'l1', to: 'x', rev: '2-aaaa' });
    await putDoc(t, 'linked', { _id: 'l2', to: 'x', rev: '1-root' });
    const v = viewClient(t, 'linked', 'l');
    const r = await v.ok('links', { include_docs: true, conflicts: true });
    assert.deepEqual(
      r.rows.map((row: { doc: unknown }) => row.doc),
      [
        { _id: 'x', _rev: '2-aaaa', n: 1 },
        { _id: 'x', _rev: '1-root', n: 0 },
      ],
    );
  });
});
