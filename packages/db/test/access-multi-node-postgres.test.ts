/**
 * Per-document access (`_access`) on two nodes of one PostgreSQL: access rows are written in the
 * document's transaction, so what one node writes is read with the right access on the other at
 * once; a revocation, by a new `_access` or by a role taken away in `_users`, shows in the other
 * node's feeds, and a feed waiting there wakes for it.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { TestServer } from './support/server.js';
import { twoNodesOnPostgres } from './support/two-nodes.js';
import { basic, createUser } from './support/users.js';

const DB = 'shared';
const alice = basic('alice', 'a');
const bob = basic('bob', 'b');
const carol = basic('carol', 'c');
const ids = (rows: { id: string }[]) => rows.map((row) => row.id);

describe('per-document access across two nodes on one PostgreSQL', () => {
  let a: TestServer;
  let b: TestServer;
  twoNodesOnPostgres('accessnodes', (nodes) => ({ a, b } = nodes));

  before(async () => {
    await createUser(a, 'alice', 'a');
    await createUser(a, 'bob', 'b');
    await createUser(a, 'carol', 'c', ['team']);
    assert.equal((await a.request('PUT', `/${DB}?access=true`)).status, 201);
    await a.request('PUT', `/${DB}/_security`, {
      body: { members: { roles: ['_admin', '_users'] }, admins: { roles: ['_admin'] } },
    });
  });

  it('a write on one node is read on the other at once, with its access', async () => {
    const made = await a.request('PUT', `/${DB}/s1`, { auth: alice, body: { v: 1, _access: ['alice', 'bob'] } });
    assert.equal(made.status, 201);
    await a.request('PUT', `/${DB}/a1`, { auth: alice, body: { v: 2, _access: ['alice'] } });
    assert.equal((await b.request('GET', `/${DB}/s1`, { auth: bob })).status, 200);
    assert.equal((await b.request('GET', `/${DB}/a1`, { auth: bob })).status, 404);
    assert.deepEqual(ids((await b.request('GET', `/${DB}/_all_docs`, { auth: bob })).json.rows), ['s1']);
    assert.deepEqual(ids((await b.request('GET', `/${DB}/_changes`, { auth: bob })).json.results), ['s1']);
    assert.deepEqual(ids((await b.request('GET', `/${DB}/_all_docs`, { auth: alice })).json.rows), ['a1', 's1']);
  });

  it("a revocation on one node shows in the other's feed, and wakes a longpoll waiting there", async () => {
    const current = await a.request('PUT', `/${DB}/r1`, { auth: alice, body: { _access: ['alice', 'bob'] } });
    const since = (await b.request('GET', `/${DB}/_changes`, { auth: bob })).json.last_seq;
    const polled = b.request('GET', `/${DB}/_changes?feed=longpoll&removed=true&since=${since}&timeout=10000`, {
      auth: bob,
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await a.request('PUT', `/${DB}/r1`, { auth: alice, body: { _rev: current.json.rev, _access: ['alice'] } });
    const woke = await polled;
    assert.deepEqual(
      woke.json.results.map((row: { id: string; removed?: boolean }) => [row.id, row.removed]),
      [['r1', true]],
    );
    assert.equal((await b.request('GET', `/${DB}/r1`, { auth: bob })).status, 404);
  });

  it("a role taken away or given through one node reaches the user's feed on the other", async () => {
    await a.request('PUT', `/${DB}/t1`, { body: { _access: ['team'] } });
    const synced = await b.request('GET', `/${DB}/_changes`, { auth: carol });
    assert.deepEqual(ids(synced.json.results), ['t1']);
    await createUser(a, 'carol', 'c', []);
    const lost = await b.request('GET', `/${DB}/_changes?removed=true&since=${synced.json.last_seq}`, {
      auth: carol,
    });
    assert.deepEqual(
      lost.json.results.map((row: { id: string; removed?: boolean }) => [row.id, row.removed]),
      [['t1', true]],
    );
    // Given back through node a while carol's longpoll waits on node b: it wakes with the document.
    const polled = b.request('GET', `/${DB}/_changes?feed=longpoll&since=${lost.json.last_seq}&timeout=10000`, {
      auth: carol,
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await createUser(a, 'carol', 'c', ['team']);
    const back = await polled;
    assert.deepEqual(ids(back.json.results), ['t1']);
  });
});
