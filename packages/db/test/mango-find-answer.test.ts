import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';

/**
 * The bytes of a `_find` answer: an ASCII page is written by characters, any other measured
 * (mango/find.ts `answerBytes`); either way the body is the documents' UTF-8, whole.
 */
describe('_find answer bytes', () => {
  let t: TestServer;
  const texts: Record<string, string> = {
    a0: 'plain',
    a1: 'café', // 2-byte character
    a2: '漢字', // 3-byte characters
    a3: 'smile 😀', // a surrogate pair: 4 bytes
    a4: '€'.repeat(300), // far longer in bytes than in characters
    a5: 'plain again',
  };
  const find = (body: unknown) => t.request('POST', '/answer/_find', { body });

  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/answer');
    const docs = Object.entries(texts).map(([id, text], n) => ({ _id: id, group: 'g', n, text }));
    docs.push(
      ...Array.from({ length: 6 }, (_, i) => ({ _id: `b${i}`, group: 'ascii', n: i, text: `only ascii ${i}` })),
    );
    await t.request('POST', '/answer/_bulk_docs', { body: { docs } });
    await t.request('POST', '/answer/_index', { body: { index: { fields: ['group', 'n'] } } });
  });
  after(() => t.close());

  /** The reply's text is its Content-Length's bytes of UTF-8, and its documents those asked. */
  const assertWhole = (r: Awaited<ReturnType<typeof find>>, ids: string[]) => {
    assert.equal(r.status, 200);
    assert.equal(Number(r.headers.get('content-length')), Buffer.byteLength(r.text));
    assert.ok(r.text.endsWith('}\n'));
    const docs = r.json.docs as { _id: string; text: string }[];
    assert.deepEqual(
      docs.map((d) => d._id),
      ids,
    );
    for (const doc of docs) assert.equal(doc.text, texts[doc._id] ?? `only ascii ${doc._id.slice(1)}`);
  };

  it('an ASCII page', async () => {
    assertWhole(await find({ selector: { group: 'ascii' }, limit: 4 }), ['b0', 'b1', 'b2', 'b3']);
  });

  it('a page with characters of every UTF-8 length, each first, inside and last', async () => {
    const ids = Object.keys(texts);
    assertWhole(await find({ selector: { group: 'g' } }), ids);
    for (let from = 0; from < ids.length; from++) {
      for (let limit = 1; from + limit <= ids.length; limit++) {
        assertWhole(await find({ selector: { group: 'g' }, skip: from, limit }), ids.slice(from, from + limit));
      }
    }
  });

  it('a projection with non-ASCII values', async () => {
    const r = await find({ selector: { group: 'g', n: { $gte: 1 } }, fields: ['_id', 'text'], limit: 2 });
    assert.equal(Number(r.headers.get('content-length')), Buffer.byteLength(r.text));
    assert.deepEqual(r.json.docs, [
      { _id: 'a1', text: 'café' },
      { _id: 'a2', text: '漢字' },
    ]);
  });
});
