import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';

/**
 * `_explain`'s `index_candidates` as CouchDB 3.5's mango_cursor:extract_candidate_indexes builds
 * them: one reason per index by kind (partial, other scope, not usable, excluded by use_index,
 * another cursor type, not chosen), each kind ranked one below the last non-empty kind before it,
 * the list in descending (design doc, name) order with `_all_docs` last; `covering` for every
 * JSON index from the requested fields alone; the other members in CouchDB's order.
 */
describe('_explain index_candidates as CouchDB 3.5', () => {
  let t: TestServer;
  type Candidate = {
    index: { name: string };
    analysis: { usable: boolean; reasons: { name: string }[]; ranking: number; covering: boolean | null };
  };
  const explain = async (db: string, body: unknown) => (await t.request('POST', `/${db}/_explain`, { body })).json;
  const summary = (candidates: Candidate[]) =>
    candidates.map((c) => [
      c.index.name,
      c.analysis.usable,
      c.analysis.reasons.map((r) => r.name).join(),
      c.analysis.ranking,
      c.analysis.covering,
    ]);

  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/m');
    await t.request('POST', '/m/_bulk_docs', { body: { docs: [{ _id: 'a', x: 1, y: 2, z: 3 }] } });
    for (const index of [
      { index: { fields: ['x'] }, ddoc: 'a', name: 'x' },
      { index: { fields: ['x', 'y'] }, ddoc: 'b', name: 'xy' },
      { index: { fields: ['y'] }, ddoc: 'c', name: 'y' },
      { index: { fields: ['x'], partial_filter_selector: { z: 3 } }, ddoc: 'd', name: 'px' },
    ]) {
      assert.equal((await t.request('POST', '/m/_index', { body: index })).status, 200);
    }
  });
  after(() => t.close());

  it('members in order; a chosen index, the others by kind with their rankings', async () => {
    const r = await explain('m', { selector: { x: { $gt: 0 } }, fields: ['x'] });
    assert.deepEqual(Object.keys(r), [
      'dbname',
      'index',
      'partitioned',
      'selector',
      'opts',
      'limit',
      'skip',
      'fields',
      'index_candidates',
      'selector_hints',
      'mrargs',
      'covering',
    ]);
    assert.equal(r.index.name, 'x');
    // Usable and ranked: x (chosen). Another type: _all_docs (1). Not usable: xy, y (2). Partial: px (3).
    assert.deepEqual(summary(r.index_candidates), [
      ['px', false, 'is_partial', 3, true],
      ['y', false, 'field_mismatch', 2, false],
      ['xy', false, 'field_mismatch', 2, true],
      ['_all_docs', true, 'unfavored_type', 1, null],
    ]);
    // One hint per index type the server has: CouchDB lists text and nouveau only where Clouseau
    // and Nouveau are enabled; Divan has both.
    assert.deepEqual(r.selector_hints, [
      { type: 'json', indexable_fields: ['x'], unindexable_fields: [] },
      { type: 'text', indexable_fields: ['x'], unindexable_fields: [] },
      { type: 'nouveau', indexable_fields: ['x'], unindexable_fields: [] },
    ]);
  });

  it("selector_hints list fields in the order of CouchDB's Erlang sets (OTP 25 sets, erlang:phash/2 slots), not sorted", async () => {
    // Slots of 16: owner.name 1, zip 5, d and t 6, c and s 9. A set lists slot by slot, a slot
    // in the order it was built; sets:subtract filters, which reverses what a slot keeps.
    const r = await explain('m', {
      selector: { s: { $ne: 1 }, c: { $ne: 2 }, d: 1, t: { $gt: 0 }, owner: { name: 'Bob' }, zip: { $regex: '^9' } },
    });
    assert.deepEqual(r.selector_hints[0], {
      type: 'json',
      indexable_fields: ['owner.name', 'd', 't'],
      unindexable_fields: ['zip', 'c', 's'],
    });
    // Values Erlang/OTP 25 gives: sets:to_list(sets:from_list([<<"age">>, <<"name">>])) is [name, age].
    const two = await explain('m', { selector: { age: { $gt: 3 }, name: 'Bob' } });
    assert.deepEqual(two.selector_hints[0], {
      type: 'json',
      indexable_fields: ['name', 'age'],
      unindexable_fields: [],
    });
  });

  it('usable indexes not chosen rank by their position after the chosen one; use_index excludes every other usable one', async () => {
    const r = await explain('m', { selector: { x: { $gt: 0 }, y: 2 } });
    assert.equal(r.index.name, 'xy');
    assert.deepEqual(summary(r.index_candidates), [
      ['px', false, 'is_partial', 4, false],
      ['y', true, 'less_overlap', 2, false],
      ['x', true, 'less_overlap', 1, false],
      ['_all_docs', true, 'unfavored_type', 3, null],
    ]);
    const wide = await explain('m', { selector: { x: 1, y: { $exists: true } }, use_index: ['a'] });
    assert.equal(wide.index.name, 'x');
    // use_index named a usable index: every other usable one, _all_docs too, is excluded by the user.
    assert.deepEqual(summary(wide.index_candidates), [
      ['px', false, 'is_partial', 2, false],
      ['y', true, 'excluded_by_user', 1, false],
      ['xy', true, 'excluded_by_user', 1, false],
      ['_all_docs', true, 'excluded_by_user', 1, null],
    ]);
  });

  it('_all_docs chosen: every JSON index not usable; a sort no index gives', async () => {
    const r = await explain('m', { selector: { z: 1 } });
    assert.equal(r.index.name, '_all_docs');
    assert.deepEqual(summary(r.index_candidates), [
      ['px', false, 'is_partial', 2, false],
      ['y', false, 'field_mismatch', 1, false],
      ['xy', false, 'field_mismatch', 1, false],
      ['x', false, 'field_mismatch', 1, false],
    ]);
    const sorted = await explain('m', { selector: { x: { $gt: 0 } }, sort: [{ y: 'asc' }] });
    assert.equal(sorted.index.name, 'y');
    assert.deepEqual(summary(sorted.index_candidates), [
      ['px', false, 'is_partial', 2, false],
      ['xy', false, 'sort_order_mismatch', 1, false],
      ['x', false, 'sort_order_mismatch', 1, false],
      ['_all_docs', false, 'sort_order_mismatch', 1, null],
    ]);
  });

  it('a partitioned database lists the indexes of the other scope as scope_mismatch', async () => {
    await t.request('PUT', '/p?partitioned=true');
    await t.request('POST', '/p/_bulk_docs', { body: { docs: [{ _id: 'k:a', x: 1 }] } });
    await t.request('POST', '/p/_index', {
      body: { index: { fields: ['x'] }, ddoc: 'g', name: 'gx', partitioned: false },
    });
    await t.request('POST', '/p/_index', { body: { index: { fields: ['x'] }, ddoc: 'q', name: 'qx' } });
    const global = await explain('p', { selector: { x: 1 } });
    assert.equal(global.index.name, 'gx');
    assert.deepEqual(summary(global.index_candidates), [
      ['qx', false, 'scope_mismatch', 2, false],
      ['_all_docs', true, 'unfavored_type', 1, null],
    ]);
    const r = await t.request('POST', '/p/_partition/k/_explain', { body: { selector: { x: 1 } } });
    assert.equal(r.json.index.name, 'qx');
    assert.deepEqual(summary(r.json.index_candidates), [
      ['gx', false, 'scope_mismatch', 2, false],
      ['_all_docs', true, 'unfavored_type', 1, null],
    ]);
  });
});
