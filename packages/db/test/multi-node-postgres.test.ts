import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AUTH, type TestServer } from './support/server.js';
import { twoNodesOnPostgres } from './support/two-nodes.js';

/** Two server nodes on one PostgreSQL behave as one server. */
describe('two Divan nodes on one PostgreSQL', () => {
  let a: TestServer;
  let b: TestServer;
  const logs = { a: [] as string[], b: [] as string[] };
  twoNodesOnPostgres('nodes', (nodes) => ({ a, b } = nodes), {
    a: (line) => logs.a.push(line),
    b: (line) => logs.b.push(line),
  });

  it('a database and a write on one node are there at once on the other', async () => {
    assert.equal((await a.request('PUT', '/shared')).status, 201);
    assert.equal((await b.request('PUT', '/shared')).status, 412, 'it exists for both');
    const put = await a.request('PUT', '/shared/doc', { body: { n: 1 } });
    const read = await b.request('GET', '/shared/doc');
    assert.deepEqual([read.status, read.json._rev], [200, put.json.rev]);
    assert.ok((await b.request('GET', '/_all_dbs')).json.includes('shared'));
  });

  it('an attachment uploaded through one node reads back, whole and by range, through the other', async () => {
    const bytes = Buffer.from(Array.from({ length: 300 * 1024 }, (_, i) => i % 253));
    const put = await a.request('PUT', '/shared/att/blob.bin', {
      body: bytes,
      headers: { 'content-type': 'application/octet-stream' },
    });
    assert.equal(put.status, 201);
    const whole = await fetch(`${b.url}/shared/att/blob.bin`, { headers: { authorization: AUTH } });
    assert.ok(Buffer.from(await whole.arrayBuffer()).equals(bytes));
    const part = await fetch(`${b.url}/shared/att/blob.bin`, {
      headers: { authorization: AUTH, range: 'bytes=262140-262150' },
    });
    assert.equal(part.status, 206);
    assert.ok(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(262140, 262151)));
  });

  it('concurrent edits from both nodes: one wins, the other conflicts, none is lost', async () => {
    const { rev } = (await a.request('PUT', '/shared/race', { body: { v: 0 } })).json;
    const [fromA, fromB] = await Promise.all([
      a.request('PUT', '/shared/race', { body: { _rev: rev, v: 'a' } }),
      b.request('PUT', '/shared/race', { body: { _rev: rev, v: 'b' } }),
    ]);
    assert.deepEqual([fromA.status, fromB.status].sort(), [201, 409]);
    const doc = (await b.request('GET', '/shared/race?conflicts=true')).json;
    assert.equal(doc._conflicts, undefined);
    assert.equal(doc._rev, (fromA.status === 201 ? fromA : fromB).json.rev);
  });

  it('a validate function written, deleted or purged through one node applies at once to writes on the other', async () => {
    await a.request('PUT', '/rules');
    const put = (node: TestServer, id: string, body: object) => node.request('PUT', `/rules/${id}`, { body });
    // b keeps the design documents it looked up for its writes (none yet), and its writes go on
    // with them while no design document changes, whatever a's other writes.
    assert.equal((await put(b, 'b1', { no: true })).status, 201);
    assert.equal((await put(a, 'a1', { no: true })).status, 201);
    assert.equal((await put(b, 'b2', { no: true })).status, 201);
    const ddoc = await put(a, '_design/v', {
      validate_doc_update: `function (d) { if (d.no) throw({ forbidden: 'no' }); }`,
    });
    assert.equal(ddoc.status, 201);
    const refused = await put(b, 'b3', { no: true });
    assert.deepEqual([refused.status, refused.json.reason], [403, 'no']);
    // A batch and a concurrent PUT on b, planned together: each refused as its rules say.
    const [batch, single] = await Promise.all([
      b.request('POST', '/rules/_bulk_docs', { body: { docs: [{ _id: 'b4', no: true }, { _id: 'b5' }] } }),
      put(b, 'b6', {}),
    ]);
    assert.deepEqual(
      batch.json.map((row: { id: string; error?: string }) => [row.id, row.error ?? 'ok']),
      [
        ['b4', 'forbidden'],
        ['b5', 'ok'],
      ],
    );
    assert.equal(single.status, 201);
    const gone = await a.request('DELETE', `/rules/_design/v?rev=${ddoc.json.rev}`);
    assert.equal(gone.status, 200);
    assert.equal((await put(b, 'b7', { no: true })).status, 201, 'deleted on a: b writes as before');
    const again = await put(a, '_design/v', {
      validate_doc_update: `function (d) { if (d.no) throw({ forbidden: 'no' }); }`,
    });
    assert.equal(again.status, 201);
    assert.equal((await put(b, 'b8', { no: true })).status, 403);
    const purged = await a.request('POST', '/rules/_purge', { body: { '_design/v': [again.json.rev] } });
    assert.equal(purged.status, 201);
    assert.equal((await a.request('GET', '/rules/_design/v')).status, 404);
    assert.equal((await put(b, 'b9', { no: true })).status, 201, 'purged on a: b writes as before');
  });

  it('a longpoll _changes on one node wakes within 300 ms of a write on the other', async () => {
    const since = (await b.request('GET', '/shared')).json.update_seq;
    const started = Date.now();
    const waiting = b.request('GET', `/shared/_changes?feed=longpoll&since=${since}&timeout=10000`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const wrote = Date.now();
    await a.request('PUT', '/shared/wake', { body: {} });
    const answer = await waiting;
    const woke = Date.now();
    assert.deepEqual(
      answer.json.results.map((r: { id: string }) => r.id),
      ['wake'],
    );
    assert.ok(woke - wrote < 300 + 100, `woke ${woke - wrote} ms after the write (${woke - started} ms in all)`);
  });

  it("a view queried on one node sees the other node's writes", async () => {
    await a.request('PUT', '/shared/_design/v', {
      body: { views: { n: { map: 'function (d) { if (d.n) emit(d.n, 1) }', reduce: '_count' } } },
    });
    assert.deepEqual((await b.request('GET', '/shared/_design/v/_view/n')).json.rows, [{ key: null, value: 1 }]);
    await a.request('PUT', '/shared/two', { body: { n: 2 } });
    assert.deepEqual((await b.request('GET', '/shared/_design/v/_view/n')).json.rows, [{ key: null, value: 2 }]);
    assert.deepEqual((await a.request('GET', '/shared/_design/v/_view/n')).json.rows, [{ key: null, value: 2 }]);
  });

  it('a view index is shared: built by one node, the other answers from it without mapping a document', async () => {
    await a.request('PUT', '/indexed', {});
    const docs = Array.from({ length: 500 }, (_, i) => ({ _id: `d${i}`, group: i % 7, n: i }));
    await a.request('POST', '/indexed/_bulk_docs', { body: { docs } });
    await a.request('PUT', '/indexed/_design/g', {
      body: { views: { by_group: { map: 'function (d) { emit(d.group, d.n) }', reduce: '_sum' } } },
    });
    const indexed = (lines: string[]) => lines.filter((line) => line.includes('indexed indexed/_design/g'));
    const query = '/indexed/_design/g/_view/by_group?group=true';
    const onB = await b.request('GET', query);
    assert.equal(onB.json.rows.length, 7);
    assert.equal(indexed(logs.b).length, 1, 'B built the index');
    const onA = await a.request('GET', query);
    assert.deepEqual(onA.json, onB.json);
    assert.equal(onA.headers.get('etag'), onB.headers.get('etag'), 'the same index, the same ETag');
    assert.equal(indexed(logs.a).length, 0, 'A mapped nothing: it took in what B stored');
    // An update made by A (the node that saw the write) is then B's too.
    await a.request('PUT', '/indexed/d0', {
      body: { _rev: (await a.request('GET', '/indexed/d0')).json._rev, group: 100, n: 5 },
    });
    const updated = await a.request('GET', `${query}&key=100`);
    assert.deepEqual(updated.json.rows, [{ key: 100, value: 5 }]);
    assert.equal(indexed(logs.a).length, 1);
    assert.deepEqual((await b.request('GET', `${query}&key=100`)).json.rows, [{ key: 100, value: 5 }]);
    assert.equal(indexed(logs.b).length, 1, 'B did not map the change again');
    // update=false on B answers from the stored index, which A brought up to date.
    assert.deepEqual((await b.request('GET', `${query}&key=0&update=false`)).json.rows, [{ key: 0, value: 17892 }]);
  });

  it('admins are shared: the admin of the storage logs in on both nodes', async () => {
    assert.equal((await a.request('GET', '/_all_dbs')).status, 200);
    assert.equal((await b.request('GET', '/_all_dbs')).status, 200);
    assert.equal((await b.request('GET', '/_all_dbs', { auth: false })).status, 401);
  });
});
