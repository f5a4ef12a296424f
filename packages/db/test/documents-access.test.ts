/**
 * Per-document access for in-process writers and readers: the embedded API (`db.as(user)`) meets
 * the same rules as HTTP (documents/access-rules.ts), refused with the same error; the planner's
 * leaves and readers in the storage transaction; `_access` outside the revision hash.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CouchError, openDivan, type Divan } from '../src/index.js';
import { ACCESS_MEMBER, AccessPlanner, effectiveAccess, principalsOf } from '../src/documents/access-rules.js';
import { newRevId } from '../src/revisions/rev-id.js';
import type { RevNode, RevTree } from '../src/revisions/index.js';
import { fromPlain, type JsonObject, toPlain } from '../src/json/index.js';
import { makeTempDir } from './support/tmp-dir.js';

const alice = { name: 'alice', roles: [] };
const bob = { name: 'bob', roles: ['team'] };

async function refusal(write: Promise<unknown>): Promise<unknown> {
  try {
    await write;
  } catch (error) {
    assert.ok(error instanceof CouchError, String(error));
    return { status: error.status, ...error.toJSON() };
  }
  assert.fail('the write was accepted');
}

describe('per-document access for in-process writers', () => {
  const tmp = makeTempDir('divan-access-');
  let divan: Divan;
  before(() => {
    divan = openDivan(tmp.dir, { hashIterations: 10 });
  });
  after(async () => {
    await divan.close();
    tmp.cleanup();
  });

  it('db.as(user) is refused as HTTP is, and reads only what the user may read', async () => {
    const db = await divan.createDb('acc', { access: true });
    await db.as(alice).put({ _id: 'a', v: 1, _access: ['alice'] });
    await db.as(bob).put({ _id: 'b', v: 2, _access: ['team'] });
    assert.deepEqual(await refusal(db.as(alice).put({ _id: 'c', _access: ['bob'] })), {
      status: 403,
      error: 'forbidden',
      reason: 'access',
    });
    assert.deepEqual(await refusal(db.as(bob).put({ _id: 'a', _access: ['team'] })), {
      status: 403,
      error: 'forbidden',
      reason: 'access',
    });
    assert.deepEqual(await refusal(db.as(alice).get('b')), { status: 404, error: 'not_found', reason: 'missing' });
    assert.equal((await db.as(bob).get('b')).v, 2);
    // The embedded API's own writer is a server admin: it reads and writes everything.
    assert.equal((await db.get('a')).v, 1);
    await db.put({ _id: '_design/app', views: { v: { map: 'function (d) { emit(d.v) }' } } });
    const rows = (await db.as(alice).view('app', 'v')).rows as { id: string }[];
    assert.deepEqual(
      rows.map((r) => r.id),
      ['a'],
    );
    const bulk = await db.as(alice).bulkDocs([{ _id: 'd', _access: ['alice'] }, { _id: 'e' }]);
    assert.deepEqual(bulk[1], { id: 'e', error: 'forbidden', reason: 'access' });
  });

  it("a tombstone inherits its parent's _access as written; conflicts and their resolution keep who reads it", async () => {
    const db = await divan.createDb('leaves', { access: true });
    // In byte order (the usual document: storage keeps no text for it) and not.
    const sorted = await db.as(alice).put({ _id: 's', _access: ['alice', 'bob'] });
    const unsorted = await db.as(alice).put({ _id: 'u', _access: ['bob', 'alice'] });
    const [deletedSorted, deletedUnsorted] = await db.as(alice).bulkDocs([
      { _id: 's', _rev: sorted.rev, _deleted: true },
      { _id: 'u', _rev: unsorted.rev, _deleted: true },
    ]);
    const tombstone = async (id: string, rev: string) =>
      (await db.get(id, { rev: { pos: Number(rev.split('-')[0]), id: rev.split('-')[1]! } }))._access;
    assert.deepEqual(await tombstone('s', (deletedSorted as { rev: string }).rev), ['alice', 'bob']);
    assert.deepEqual(await tombstone('u', (deletedUnsorted as { rev: string }).rev), ['bob', 'alice']);
    // Two branches that disagree: only the principal on both reads; once the other branch is
    // deleted, the document is the usual one again and its readers are the branch left.
    await db.bulkDocs(
      [
        { _id: 'c', _rev: '1-aaaa', _access: ['alice', 'bob'] },
        { _id: 'c', _rev: '1-bbbb', _access: ['alice'] },
      ],
      false,
    );
    assert.equal((await db.as(alice).get('c'))._id, 'c');
    assert.deepEqual(await refusal(db.as(bob).get('c')), { status: 404, error: 'not_found', reason: 'missing' });
    await db.as(alice).bulkDocs([{ _id: 'c', _rev: '1-bbbb', _deleted: true }]);
    assert.equal((await db.as(bob).get('c'))._rev, '1-aaaa');
    const update = await db.as(bob).put({ _id: 'c', _rev: '1-aaaa', v: 2, _access: ['alice', 'bob'] });
    assert.equal((await db.as(alice).get('c'))._rev, update.rev);
    await db.as(bob).put({ _id: 'c', _rev: update.rev, v: 3, _access: ['bob'] });
    assert.deepEqual(await refusal(db.as(alice).get('c')), { status: 404, error: 'not_found', reason: 'missing' });
  });

  it('a plain database keeps _access as an ordinary member, hashed with the body', async () => {
    const plain = await divan.createDb('plain');
    const withAccess = await plain.put({ _id: 'x', a: 1, _access: ['x'] });
    const without = await plain.put({ _id: 'y', a: 1 });
    assert.notEqual(withAccess.rev, without.rev);
    assert.equal('ok' in (await plain.as(alice).bulkDocs([{ _id: 'z', _access: ['bob'] }]))[0]!, true);
  });
});

describe('access rules, pure', () => {
  it("a user's principals: name, roles and _users", () => {
    assert.deepEqual(principalsOf({ name: 'u', roles: ['r'] }), ['r', 'u', '_users']);
    assert.deepEqual(principalsOf({ name: null, roles: [] }), []);
  });

  it('effective access intersects the live leaves; with every leaf deleted, the winner gives it', () => {
    const leaf = (id: string, deleted = false): RevNode => ({ id, deleted, stored: true, children: [] });
    const conflicted: RevTree = [
      { pos: 1, node: { ...leaf('root'), children: [leaf('a'), leaf('b'), leaf('c', true)] } },
    ];
    const leaves = new Map(Object.entries({ '2-a': ['x', 'y'], '2-b': ['y', 'z'], '2-c': ['q'] }));
    assert.deepEqual(effectiveAccess(conflicted, leaves), ['y']);
    const tombstones: RevTree = [{ pos: 1, node: { ...leaf('root'), children: [leaf('a', true), leaf('b', true)] } }];
    assert.deepEqual(effectiveAccess(tombstones, leaves), ['y', 'z'], 'the winner is the highest rev id: 2-b');
  });

  it('the planner refuses a writer outside the stored access before the edit, and fills tombstones', () => {
    const planner = new AccessPlanner();
    const tree: RevTree = [{ pos: 1, node: { id: 'a', deleted: false, stored: true, children: [] } }];
    const record = { id: 'd', seq: 1, rev: '1-a', deleted: false, tree: '', access: '{"1-a":["x"]}' };
    const writer = (name: string) => ({ admin: false, name, principals: [name, '_users'], autofill: false });
    const input = (body: Record<string, unknown>, deleted = false) => ({
      id: 'd',
      rev: { pos: 1, id: 'a' },
      revisions: undefined,
      deleted,
      body: fromPlain(body) as JsonObject,
    });
    assert.throws(() => planner.admit('d', input({ _access: ['y'] }), record, tree, writer('y')), /access/);
    const deletion = planner.admit('d', input({}, true), record, tree, writer('x'));
    assert.deepEqual(deletion.access, ['x']);
    assert.deepEqual(toPlain(deletion.input.body), { _access: ['x'] });
    const parent = { pos: 1, id: 'a' };
    assert.equal(
      newRevId(true, parent, deletion.input.body, [], ACCESS_MEMBER),
      newRevId(true, parent, fromPlain({}) as JsonObject),
      'the rev hashes the body without _access',
    );
  });
});
