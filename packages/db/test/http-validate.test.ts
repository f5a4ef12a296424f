import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';
import { basic, createUser, login } from './support/users.js';

const forbidden = (reason: unknown) => ({ error: 'forbidden', reason });

describe('validate_doc_update', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    await createUser(t, 'alice', 'a', ['writer']);
    await createUser(t, 'carol', 'c');
  });
  after(() => t.close());

  /** A fresh public database with these design documents (id → validate source). */
  async function dbWith(name: string, functions: Record<string, string>, security?: object): Promise<void> {
    assert.equal((await t.request('PUT', `/${name}`)).status, 201);
    await t.request('PUT', `/${name}/_security`, { body: security ?? { admins: { names: ['carol'] } } });
    for (const [id, source] of Object.entries(functions)) {
      const r = await t.request('PUT', `/${name}/_design/${id}`, { body: { validate_doc_update: source } });
      assert.equal(r.status, 201, r.text);
    }
  }

  it('gets (newDoc, oldDoc, userCtx, secObj) as CouchDB hands them over', async () => {
    await dbWith('args', {
      spy: `function (newDoc, oldDoc, userCtx, secObj) {
        if (newDoc.spy) throw({ forbidden: { newDoc: newDoc, oldDoc: oldDoc, userCtx: userCtx, secObj: secObj } });
      }`,
    });
    const create = await t.request('PUT', '/args/d1', { auth: basic('alice', 'a'), body: { spy: true, v: 1 } });
    assert.equal(create.status, 403);
    assert.deepEqual(create.json.reason, {
      newDoc: { _id: 'd1', spy: true, v: 1 },
      oldDoc: null,
      userCtx: { db: 'args', name: 'alice', roles: ['writer'] },
      secObj: { admins: { names: ['carol'] } },
    });
    const rev = (await t.request('PUT', '/args/d1', { body: { v: 1 } })).json.rev as string;
    const update = await t.request('PUT', '/args/d1', { auth: false, body: { _rev: rev, spy: true } });
    const [pos, hash] = rev.split('-');
    assert.deepEqual(update.json.reason.newDoc, {
      _id: 'd1',
      _rev: rev,
      spy: true,
      _revisions: { start: Number(pos), ids: [hash] },
    });
    assert.deepEqual(update.json.reason.oldDoc, {
      _id: 'd1',
      _rev: rev,
      v: 1,
      _revisions: { start: Number(pos), ids: [hash] },
    });
    assert.deepEqual(update.json.reason.userCtx, { db: 'args', name: null, roles: [] });
    const admin = await t.request('POST', '/args', { body: { spy: true } });
    assert.deepEqual(admin.json.reason.userCtx.roles, ['_admin']);
    assert.match(admin.json.reason.newDoc._id, /^[0-9a-f]{32}$/);
  });

  it('{forbidden} is a 403, {unauthorized} a 401, the reason passed through as JSON', async () => {
    await dbWith('rules', {
      a_rules: `function (doc) {
        if (doc.kind === 'str') throw({ forbidden: 'no strings' });
        if (doc.kind === 'num') throw({ forbidden: 42 });
        if (doc.kind === 'obj') throw({ forbidden: { nested: 'object' } });
        if (doc.kind === 'auth') throw({ unauthorized: 'log in' });
        if (doc.kind === 'both') throw({ forbidden: 'from a' });
      }`,
      b_more: `function (doc) { if (doc.kind === 'both' || doc.kind === 'b') throw({ forbidden: 'from b' }); return false; }`,
    });
    const put = (kind: string) => t.request('PUT', `/rules/${kind}`, { body: { kind } });
    assert.deepEqual(await put('str').then((r) => [r.status, r.json]), [403, forbidden('no strings')]);
    assert.deepEqual(await put('num').then((r) => [r.status, r.json]), [403, forbidden(42)]);
    assert.deepEqual(await put('obj').then((r) => [r.status, r.json]), [403, forbidden({ nested: 'object' })]);
    assert.deepEqual(await put('auth').then((r) => [r.status, r.json]), [
      401,
      { error: 'unauthorized', reason: 'log in' },
    ]);
    // Design-document id order: a_rules decides before b_more.
    assert.deepEqual(await put('both').then((r) => r.json.reason), 'from a');
    assert.deepEqual(await put('b').then((r) => r.json.reason), 'from b');
    assert.equal((await put('fine')).status, 201); // returning false accepts
  });

  it('_bulk_docs: refused documents are rows, the others saved; new_edits:false too', async () => {
    await dbWith('bulk', { v: `function (doc) { if (doc.bad) throw({ forbidden: 'bad doc' }); }` });
    const r = await t.request('POST', '/bulk/_bulk_docs', {
      body: { docs: [{ _id: 'ok1' }, { _id: 'no1', bad: true }] },
    });
    assert.equal(r.status, 201);
    assert.equal(r.json[0].ok, true);
    assert.deepEqual(r.json[1], { id: 'no1', error: 'forbidden', reason: 'bad doc' });
    assert.equal((await t.request('GET', '/bulk/no1')).status, 404);
    const replicated = await t.request('POST', '/bulk/_bulk_docs', {
      body: {
        new_edits: false,
        docs: [
          { _id: 'r1', _rev: '1-abc', bad: true },
          { _id: 'r2', _rev: '1-abc' },
        ],
      },
    });
    assert.equal(replicated.status, 201);
    assert.deepEqual(replicated.json, [{ id: 'r1', rev: '1-abc', error: 'forbidden', reason: 'bad doc' }]);
    const single = await t.request('PUT', '/bulk/r3?new_edits=false', { body: { _rev: '1-abc', bad: true } });
    assert.equal(single.status, 403);
  });

  it('deletions, attachment writes and COPY are validated; _local and design docs are not', async () => {
    await dbWith('writes', {
      v: `function (newDoc, oldDoc) {
        if (newDoc._deleted) throw({ forbidden: 'no deleting' });
        if (newDoc._id === 'copy-target') throw({ forbidden: 'no copying here' });
        if (oldDoc && oldDoc.frozen) throw({ forbidden: 'frozen' });
      }`,
    });
    const rev = (await t.request('PUT', '/writes/d', { body: { frozen: true } })).json.rev;
    const del = await t.request('DELETE', `/writes/d?rev=${rev}`);
    assert.deepEqual([del.status, del.json], [403, forbidden('no deleting')]);
    const viaPut = await t.request('PUT', '/writes/d', { body: { _rev: rev, _deleted: true } });
    assert.equal(viaPut.status, 403);
    const att = await t.request('PUT', `/writes/d/a.txt?rev=${rev}`, {
      body: 'hi',
      headers: { 'content-type': 'text/plain' },
    });
    assert.deepEqual([att.status, att.json], [403, forbidden('frozen')]);
    const copy = await t.request('COPY', '/writes/d', { headers: { destination: 'copy-target' } });
    assert.deepEqual([copy.status, copy.json], [403, forbidden('no copying here')]);
    assert.equal((await t.request('PUT', '/writes/_local/x', { body: { _deleted: false } })).status, 201);
    assert.equal((await t.request('PUT', '/writes/_design/other', { body: {} })).status, 201);
  });

  it('attachments are stubs in newDoc and oldDoc', async () => {
    await dbWith('atts', {
      v: `function (newDoc, oldDoc) {
        if (newDoc.spy) throw({ forbidden: { n: newDoc._attachments || null, o: oldDoc && oldDoc._attachments || null } });
        var atts = newDoc._attachments || {};
        for (var name in atts) if (atts[name].content_type !== 'text/plain') throw({ forbidden: 'text only' });
      }`,
    });
    const inline = await t.request('PUT', '/atts/d', {
      body: {
        _attachments: { 'a.txt': { content_type: 'text/plain', data: Buffer.from('hello').toString('base64') } },
      },
    });
    assert.equal(inline.status, 201);
    const png = await t.request('PUT', `/atts/d/b.png?rev=${inline.json.rev}`, {
      body: 'xx',
      headers: { 'content-type': 'image/png' },
    });
    assert.deepEqual([png.status, png.json], [403, forbidden('text only')]);
    const spy = await t.request('PUT', '/atts/d', {
      body: { _rev: inline.json.rev, spy: true, _attachments: { 'a.txt': { stub: true } } },
    });
    assert.equal(spy.status, 403);
    assert.deepEqual(spy.json.reason.n, { 'a.txt': { stub: true } });
    assert.deepEqual(Object.keys(spy.json.reason.o['a.txt']).sort(), [
      'content_type',
      'digest',
      'length',
      'revpos',
      'stub',
    ]);
    assert.equal(spy.json.reason.o['a.txt'].length, 5);
  });

  it('admins are validated too; DB-admin status is in secObj, not userCtx', async () => {
    await dbWith('admins', {
      v: `function (doc, old, userCtx, secObj) {
        var isDbAdmin = secObj.admins && secObj.admins.names && secObj.admins.names.indexOf(userCtx.name) !== -1;
        if (!isDbAdmin && userCtx.roles.indexOf('_admin') === -1) throw({ forbidden: 'admins only' });
        if (doc.never) throw({ forbidden: 'never' });
      }`,
    });
    assert.equal((await t.request('PUT', '/admins/a', { auth: basic('carol', 'c'), body: {} })).status, 201);
    assert.equal((await t.request('PUT', '/admins/b', { auth: basic('alice', 'a'), body: {} })).status, 403);
    const cookie = await login(t, 'carol', 'c');
    const viaCookie = await t.request('PUT', '/admins/c', {
      auth: false,
      headers: { cookie: `AuthSession=${cookie}` },
      body: {},
    });
    assert.equal(viaCookie.status, 201);
    assert.equal((await t.request('PUT', '/admins/n', { body: { never: true } })).status, 403);
  });

  it('a design document change applies to the next write', async () => {
    await dbWith('live', {});
    assert.equal((await t.request('PUT', '/live/a', { body: {} })).status, 201);
    const ddoc = await t.request('PUT', '/live/_design/v', {
      body: { validate_doc_update: `function () { throw({ forbidden: 'closed' }); }` },
    });
    assert.equal((await t.request('PUT', '/live/b', { body: {} })).status, 403);
    await t.request('DELETE', `/live/_design/v?rev=${ddoc.json.rev}`);
    assert.equal((await t.request('PUT', '/live/c', { body: {} })).status, 201);
  });

  it('broken functions: a clear 4xx on every guarded write, never a 500', async () => {
    const cases: [string, string, number, string][] = [
      ['syntax', 'function (doc) { if (', 400, 'compilation_error'],
      ['notfn', '"not a function"', 400, 'compilation_error'],
      ['empty', '', 404, 'not_found'],
      ['text', `function () { throw 'text'; }`, 400, 'unknown_error'],
      ['error', `function () { throw new Error('boom'); }`, 400, 'Error'],
      ['typeerror', 'function (doc) { return doc.missing.field; }', 400, 'TypeError'],
      ['both', `function () { throw({ forbidden: 'a', unauthorized: 'b' }); }`, 400, 'invalid_validation_result'],
      ['loop', 'function () { while (true) {} }', 400, 'validate_failed'],
    ];
    for (const [name, source, status, error] of cases) {
      const db = `broken-${name}`;
      await dbWith(db, { x: source });
      const r = await t.request('PUT', `/${db}/doc`, { body: {} });
      assert.deepEqual([r.status, r.json.error], [status, error], `${name}: ${r.text}`);
      if (name === 'empty') {
        assert.equal(r.json.reason, 'missing validate_doc_update function validate_doc_update on design doc _design/x');
      }
      const bulk = await t.request('POST', `/${db}/_bulk_docs`, { body: { docs: [{ _id: 'b' }] } });
      assert.deepEqual([bulk.status, bulk.json[0].error], [201, error], name);
      assert.equal((await t.request('PUT', `/${db}/_local/l`, { body: {} })).status, 201);
    }
    const nonString = await t.request('PUT', '/broken-syntax/_design/y', { body: { validate_doc_update: 1 } });
    assert.deepEqual(
      [nonString.status, nonString.json],
      [400, { error: 'invalid_design_doc', reason: '`validate_doc_update` field must have string type' }],
    );
  });

  it('design documents need a DB admin: 401 anonymous, 403 signed in, per row in _bulk_docs', async () => {
    await dbWith('designs', {}, { admins: { names: ['carol'] }, members: { names: [] } });
    const anon = await t.request('PUT', '/designs/_design/a', { auth: false, body: {} });
    assert.deepEqual(
      [anon.status, anon.json],
      [401, { error: 'unauthorized', reason: 'You are not a db or server admin.' }],
    );
    const alice = await t.request('PUT', '/designs/_design/a', { auth: basic('alice', 'a'), body: {} });
    assert.deepEqual([alice.status, alice.json], [403, forbidden('You are not a db or server admin.')]);
    const bulk = await t.request('POST', '/designs/_bulk_docs', {
      auth: basic('alice', 'a'),
      body: { docs: [{ _id: '_design/b' }, { _id: 'plain' }] },
    });
    assert.deepEqual(bulk.json[0], {
      id: '_design/b',
      error: 'forbidden',
      reason: 'You are not a db or server admin.',
    });
    assert.equal(bulk.json[1].ok, true);
    assert.equal((await t.request('PUT', '/designs/_design/a', { auth: basic('carol', 'c'), body: {} })).status, 201);
  });
});
