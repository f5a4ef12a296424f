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

/**
 * A page of documents judged by their index rows is read as one text written by storage
 * (storage/sqlite/doc-reads.ts `plainWinnersText`): each document in it is the text a GET of it
 * gives, byte for byte, whatever its id or body holds; a page it cannot write so (attachment
 * stubs, a deleted or conflicted document, `conflicts`) is read document by document, the same.
 */
describe('_find page read as one text', () => {
  let t: TestServer;
  // In index order (`key`): the ids' own order is another.
  const ids = [
    'g plain',
    'b "quoted" \\ back',
    'f control \u0001\u0008\t\n\u001f\u007f',
    'd 漢字 café',
    'a \u2028 line separator',
    'e 😀 pair',
    'c last',
  ];
  const find = (body: unknown) => t.request('POST', '/joined/_find', { body });
  /** The texts a GET of each document gives (without its newline). */
  const gets = async (wanted: string[], query = '') =>
    Promise.all(
      wanted.map(async (id) => (await t.request('GET', `/joined/${encodeURIComponent(id)}${query}`)).text.trimEnd()),
    );
  /** The `docs` of a `_find` answer as they are written. */
  const pageOf = (text: string): string => text.slice('{"docs":['.length, text.indexOf('],"bookmark"'));

  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/joined');
    const docs = ids.map((id, n) => ({
      _id: id,
      group: 'j',
      key: `k${n}`,
      text: `${id} ${'€'.repeat(n)}`,
      nested: { a: [n] },
    }));
    await t.request('POST', '/joined/_bulk_docs', { body: { docs } });
    await t.request('POST', '/joined/_index', { body: { index: { fields: ['group', 'key'] } } });
  });
  after(() => t.close());

  it('gives each document as a GET does, in the index order, and the stats of a page read so', async () => {
    const r = await find({ selector: { group: 'j', key: { $gte: 'k0' } }, execution_stats: true });
    assert.equal(r.status, 200);
    assert.equal(Number(r.headers.get('content-length')), Buffer.byteLength(r.text));
    assert.equal(pageOf(r.text), (await gets(ids)).join(','));
    assert.deepEqual(
      (r.json.docs as { _id: string }[]).map((d) => d._id),
      ids,
    );
    const stats = r.json.execution_stats as Record<string, number>;
    assert.equal(stats.results_returned, ids.length);
    assert.equal(stats.total_docs_examined, ids.length);
    for (let skip = 0; skip < ids.length; skip++) {
      for (const limit of [1, 2, 3, ids.length]) {
        const page = await find({ selector: { group: 'j', key: { $lt: 'k6' } }, skip, limit, execution_stats: true });
        const wanted = ids.slice(0, 6).slice(skip, skip + limit);
        assert.equal(pageOf(page.text), (await gets(wanted)).join(','), `skip ${skip} limit ${limit}`);
        assert.equal((page.json.execution_stats as Record<string, number>).results_returned, wanted.length);
      }
    }
  });

  it('the same where a page holds attachment stubs, a deletion or a conflict, or asks for conflicts', async () => {
    const rev = async (id: string) => (await t.request('GET', `/joined/${encodeURIComponent(id)}`)).json._rev as string;
    // Stubs: the document's body starts with them in storage (moved to the end when read).
    await t.request('PUT', `/joined/${encodeURIComponent(ids[1]!)}/att.txt?rev=${await rev(ids[1]!)}`, {
      body: 'bytes',
      headers: { 'content-type': 'text/plain' },
    });
    let live = ids;
    assert.equal(
      pageOf((await find({ selector: { group: 'j', key: { $gte: 'k0' } } })).text),
      (await gets(live)).join(','),
    );
    await t.request('DELETE', `/joined/${encodeURIComponent(ids[2]!)}?rev=${await rev(ids[2]!)}`);
    live = ids.filter((id) => id !== ids[2]);
    assert.equal(
      pageOf((await find({ selector: { group: 'j', key: { $gte: 'k0' } } })).text),
      (await gets(live)).join(','),
    );
    // A conflicting branch (new_edits: false) of the fourth document, not the winner.
    await t.request('POST', '/joined/_bulk_docs', {
      body: { new_edits: false, docs: [{ _id: ids[3], _rev: '1-0000', group: 'j', key: 'k3' }] },
    });
    assert.equal(
      pageOf((await find({ selector: { group: 'j', key: { $gte: 'k0' } } })).text),
      (await gets(live)).join(','),
    );
    assert.equal(
      pageOf((await find({ selector: { group: 'j', key: { $gte: 'k0' } }, conflicts: true })).text),
      (await gets(live, '?conflicts=true')).join(','),
    );
  });
});
