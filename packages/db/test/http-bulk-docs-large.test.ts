import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';

/** Documents whose texts exercise what a body parsed in pieces must keep: escapes, non-ASCII, numbers, nesting. */
function docs(count: number): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, i) => ({
    _id: `doc${String(i).padStart(4, '0')}`,
    text: `line ${i}: "quoted" \\ back, tab\t, é ü 雪 😀, brackets [ { ] }, comma ,`,
    n: i % 3 === 0 ? 1.5e300 : i,
    big: 2 ** 60,
    nested: { list: [i, [i, { deep: [null, true, false] }]], empty: {}, none: [] },
  }));
}

describe('_bulk_docs with a body large enough to be parsed in pieces', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/whole');
    await t.request('PUT', '/pieces');
  });
  after(() => t.close());

  it('stores every document as a small batch does, with the same revisions and bodies', async () => {
    const all = docs(600);
    const body = JSON.stringify({ docs: all });
    assert.ok(Buffer.byteLength(body) > 128 * 1024, 'the body is over the size parsed in pieces');
    const large = await t.request('POST', '/pieces/_bulk_docs', {
      body: body,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(large.status, 201);
    // The same documents in small batches (bodies parsed whole) are the reference.
    const small: unknown[] = [];
    for (let i = 0; i < all.length; i += 50) {
      const r = await t.request('POST', '/whole/_bulk_docs', { body: { docs: all.slice(i, i + 50) } });
      assert.equal(r.status, 201);
      small.push(...r.json);
    }
    assert.deepEqual(large.json, small);
    for (const id of ['doc0000', 'doc0001', 'doc0299', 'doc0599']) {
      const [a, b] = await Promise.all([t.request('GET', `/pieces/${id}`), t.request('GET', `/whole/${id}`)]);
      assert.equal(a.status, 200);
      assert.equal(a.text, b.text);
    }
  });

  it('refuses a damaged large body as a whole parse does (400 bad_request)', async () => {
    const body = JSON.stringify({ docs: docs(600) });
    for (const bad of [
      body.slice(0, -1),
      `${body.slice(0, -2)}}}`,
      body.replace('"doc0007"', '"doc0007" 1'),
      `${body} x`,
    ]) {
      const r = await t.request('POST', '/pieces/_bulk_docs', {
        body: bad,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(r.status, 400);
      assert.equal(r.json.error, 'bad_request');
    }
  });

  it('takes new_edits and the last of duplicate members as a whole parse does', async () => {
    const many = docs(600).map((d) => ({ ...d, _id: `r-${d._id}`, _rev: '3-0123456789abcdef0123456789abcdef' }));
    const body = `{"docs":${JSON.stringify(many.slice(0, 1))},"new_edits":false,"docs":${JSON.stringify(many)}}`;
    const r = await t.request('POST', '/pieces/_bulk_docs', { body, headers: { 'content-type': 'application/json' } });
    assert.equal(r.status, 201);
    assert.deepEqual(r.json, []);
    const got = await t.request('GET', '/pieces/r-doc0599');
    assert.equal(got.json._rev, '3-0123456789abcdef0123456789abcdef');
  });
});
