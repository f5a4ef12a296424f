import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.js';

/** Each bad request gets CouchDB's status and error body, and changes nothing. */
describe('bad input', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ maxBodyBytes: 64 * 1024 });
    await t.request('PUT', '/db');
  });
  after(() => t.close());

  const unchanged = async () => {
    const info = (await t.request('GET', '/db')).json;
    assert.equal(info.update_seq, 0);
    assert.equal(info.doc_count, 0);
  };

  for (const [label, body] of [
    ['truncated JSON', '{"a":'],
    ['an empty body', ''],
    ['trailing garbage', '{} x'],
    ['two objects', '{}{}'],
    ['NaN', '{"a":NaN}'],
    ['a BOM', '\ufeff{}'],
    ['a lone surrogate escape', '{"a":"\\ud800"}'],
    ['single quotes', "{'a':1}"],
  ] as const) {
    it(`invalid JSON (${label}) is 400 bad_request "invalid UTF-8 JSON"`, async () => {
      const r = await t.request('PUT', '/db/doc', { body });
      assert.deepEqual([r.status, r.json], [400, { error: 'bad_request', reason: 'invalid UTF-8 JSON' }]);
      await unchanged();
    });
  }

  it('bytes that are not UTF-8 are invalid JSON', async () => {
    const r = await t.request('PUT', '/db/doc', {
      body: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]),
    });
    assert.deepEqual([r.status, r.json.reason], [400, 'invalid UTF-8 JSON']);
    await unchanged();
  });

  for (const body of ['[]', '"text"', '42', 'null']) {
    it(`a body that is not an object (${body}) is 400 "Document must be a JSON object"`, async () => {
      const r = await t.request('PUT', '/db/doc', { body });
      assert.deepEqual([r.status, r.json], [400, { error: 'bad_request', reason: 'Document must be a JSON object' }]);
      await unchanged();
    });
  }

  it('wrong Content-Type on a POST endpoint is 415', async () => {
    for (const path of ['/db', '/db/_bulk_docs', '/db/_all_docs', '/db/_revs_diff', '/db/_bulk_get']) {
      const r = await t.request('POST', path, { body: '{"docs":[]}', headers: { 'content-type': 'text/plain' } });
      assert.deepEqual(
        [r.status, r.json],
        [415, { error: 'bad_content_type', reason: 'Content-Type must be application/json' }],
        path,
      );
    }
    const missing = await fetch(`${t.url}/db/_bulk_docs`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from('admin:secret').toString('base64')}` },
      body: new Uint8Array(Buffer.from('{"docs":[{}]}')),
    });
    assert.equal(missing.status, 415);
    await unchanged();
  });

  it('a PUT of a document accepts any Content-Type', async () => {
    const r = await t.request('PUT', '/db/typed', { body: '{"a":1}', headers: { 'content-type': 'text/plain' } });
    assert.equal(r.status, 201);
    const rev = r.json.rev;
    await t.request('DELETE', `/db/typed?rev=${rev}`);
    // Put the counters back to zero for the other tests: recreate a fresh db.
    await t.request('DELETE', '/db');
    await t.request('PUT', '/db');
  });

  it('a body over the limit is 413 and nothing is written', async () => {
    const big = JSON.stringify({ docs: [{ _id: 'big', pad: 'x'.repeat(100 * 1024) }] });
    const r = await t.request('POST', '/db/_bulk_docs', { body: big });
    assert.equal(r.status, 413);
    assert.equal(r.json.error, 'too_large');
    await unchanged();
  });

  it('an invalid database name is 400 with the name in the reason', async () => {
    const r = await t.request('PUT', '/Bad-Name');
    assert.equal(r.status, 400);
    assert.equal(r.json.error, 'illegal_database_name');
    assert.match(r.json.reason, /Bad-Name/);
  });

  it('an unknown method is 405 with Allow', async () => {
    const r = await t.request('PATCH', '/db/_bulk_docs');
    assert.deepEqual([r.status, r.headers.get('allow'), r.json.error], [405, 'POST', 'method_not_allowed']);
    const get = await t.request('GET', '/db/_bulk_docs');
    assert.deepEqual([get.status, get.json.reason], [405, 'Only POST allowed']);
  });

  it('wrong types in special members are doc_validation errors', async () => {
    for (const body of [{ _deleted: 1 }, { _revisions: [] }, { _attachments: 'x' }, { _unknown: true }]) {
      const r = await t.request('PUT', '/db/typed2', { body });
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.json.error, 'doc_validation', JSON.stringify(body));
    }
    await unchanged();
  });

  it('bad query values are 400s', async () => {
    const bool = await t.request('GET', '/db/_all_docs?descending=maybe');
    assert.deepEqual(
      [bool.status, bool.json],
      [400, { error: 'query_parse_error', reason: 'Invalid boolean parameter: "maybe"' }],
    );
    const int = await t.request('GET', '/db/_all_docs?limit=abc');
    assert.deepEqual([int.status, int.json.reason], [400, 'Invalid value for integer: "abc"']);
    const negative = await t.request('GET', '/db/_all_docs?limit=-1');
    assert.deepEqual([negative.status, negative.json.reason], [400, 'Invalid value for positive integer: "-1"']);
    const json = await t.request('GET', '/db/_all_docs?startkey=b');
    assert.deepEqual([json.status, json.json.reason], [400, 'invalid UTF-8 JSON']);
  });

  it('the server keeps serving after all of it', async () => {
    assert.equal((await t.request('GET', '/_up')).status, 200);
    assert.equal((await t.request('PUT', '/db/fine', { body: {} })).status, 201);
  });
});
