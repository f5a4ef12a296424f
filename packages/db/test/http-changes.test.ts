import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';

const q = (value: unknown): string => encodeURIComponent(JSON.stringify(value));
const seqIds = (body: { results: { seq: number; id: string }[] }): [number, string][] =>
  body.results.map((row) => [row.seq, row.id]);

describe('_changes', () => {
  let t: TestServer;
  const revs: Record<string, string> = {};

  // seq 1 a, 2 b, 3 c, 4 a (update), 5 b (delete), 6 _design/x
  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/db');
    for (const id of ['a', 'b', 'c']) revs[id] = (await t.request('PUT', `/db/${id}`, { body: { n: id } })).json.rev;
    revs.a = (await t.request('PUT', '/db/a', { body: { _rev: revs.a, n: 'a2' } })).json.rev;
    revs.b = (await t.request('DELETE', `/db/b?rev=${revs.b}`)).json.rev;
    revs['_design/x'] = (await t.request('PUT', '/db/_design/x', { body: {} })).json.rev;
    await t.request('PUT', '/db/_local/skip', { body: {} });
  });
  after(() => t.close());

  const change = (seq: number, id: string, deleted = false) => ({
    seq,
    id,
    changes: [{ rev: revs[id] }],
    ...(deleted ? { deleted: true } : {}),
  });

  it('one row per doc at its latest seq, deleted rows flagged, last_seq and pending', async () => {
    const r = await t.request('GET', '/db/_changes');
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, {
      results: [change(3, 'c'), change(4, 'a'), change(5, 'b', true), change(6, '_design/x')],
      last_seq: 6,
      pending: 0,
    });
    assert.ok(r.headers.get('etag'), 'a normal feed has an ETag');
  });

  it('include_docs gives docs, and the tombstone for deleted docs', async () => {
    const r = await t.request('GET', '/db/_changes?include_docs=true&since=3');
    assert.deepEqual(r.json.results, [
      { ...change(4, 'a'), doc: { _id: 'a', _rev: revs.a, n: 'a2' } },
      { ...change(5, 'b', true), doc: { _id: 'b', _rev: revs.b, _deleted: true } },
      { ...change(6, '_design/x'), doc: { _id: '_design/x', _rev: revs['_design/x'] } },
    ]);
  });

  it('a deleted design document is a bare tombstone: no language, views or other members (DELETE and _deleted alike)', async () => {
    await t.request('PUT', '/tomb');
    const ddoc = {
      language: 'javascript',
      views: { v: { map: 'function (doc) { emit(doc._id, 1); }' } },
      filters: { f: 'function () { return true; }' },
    };
    const one = (await t.request('PUT', '/tomb/_design/one', { body: ddoc })).json.rev;
    const two = (await t.request('PUT', '/tomb/_design/two', { body: ddoc })).json.rev;
    const gone = (await t.request('DELETE', `/tomb/_design/one?rev=${one}`)).json.rev;
    const marked = await t.request('POST', '/tomb/_bulk_docs', {
      body: { docs: [{ _id: '_design/two', _rev: two, _deleted: true }] },
    });
    const tombstones = {
      '_design/one': { _id: '_design/one', _rev: gone, _deleted: true },
      '_design/two': { _id: '_design/two', _rev: marked.json[0].rev, _deleted: true },
    };
    const changes = await t.request('GET', '/tomb/_changes?include_docs=true');
    assert.deepEqual(
      changes.json.results.map((row: { doc: unknown }) => row.doc),
      [tombstones['_design/one'], tombstones['_design/two']],
    );
    const keyed = await t.request('POST', '/tomb/_all_docs?include_docs=true', {
      body: { keys: ['_design/one'] },
    });
    assert.equal(keyed.json.rows[0].doc, null);
    const read = await t.request('GET', `/tomb/_design/one?rev=${gone}`);
    assert.deepEqual(read.json, tombstones['_design/one']);
    const opened = await t.request('GET', '/tomb/_design/two?open_revs=all');
    assert.match(opened.text, /"_deleted":true/);
    assert.doesNotMatch(opened.text, /language|views|filters/);
  });

  it("since is an integer (1.x form) or now; N-opaque (another server's) starts over, past the end is the end; anything else is a 400", async () => {
    const since4 = await t.request('GET', '/db/_changes?since=4');
    assert.deepEqual(seqIds(since4.json), [
      [5, 'b'],
      [6, '_design/x'],
    ]);
    // Divan's sequences are integers: an opaque one is another server's, and CouchDB rewinds a
    // sequence of another database to 0 (never reading its number as one of its own).
    const opaque = await t.request('GET', '/db/_changes?since=5-g1AAAA');
    const all = await t.request('GET', '/db/_changes');
    assert.deepEqual(opaque.json, all.json);
    assert.equal(opaque.json.last_seq, 6);
    // Past the end: no rows, and last_seq is the database's own, never the one sent.
    for (const since of ['7', '1000']) {
      const past = await t.request('GET', `/db/_changes?since=${since}`);
      assert.deepEqual(past.json, { results: [], last_seq: 6, pending: 0 }, since);
      const longpoll = await t.request('GET', `/db/_changes?feed=longpoll&timeout=50&since=${since}`);
      assert.deepEqual(longpoll.json, { results: [], last_seq: 6, pending: 0 }, since);
    }
    const now = await t.request('GET', '/db/_changes?since=now');
    assert.deepEqual(now.json, { results: [], last_seq: 6, pending: 0 });
    for (const bad of ['abc', '-1', '1.5', '']) {
      const r = await t.request('GET', `/db/_changes?since=${bad}`);
      assert.deepEqual(
        [r.status, r.json],
        [400, { error: 'bad_request', reason: "Malformed sequence supplied in 'since' parameter." }],
        bad,
      );
    }
  });

  it('limit cuts the feed: last_seq is the last row, pending counts the rest; limit=0 has no rows', async () => {
    const r = await t.request('GET', '/db/_changes?limit=2');
    assert.deepEqual(seqIds(r.json), [
      [3, 'c'],
      [4, 'a'],
    ]);
    assert.deepEqual([r.json.last_seq, r.json.pending], [4, 2]);
    const exact = await t.request('GET', '/db/_changes?limit=4');
    assert.deepEqual([exact.json.results.length, exact.json.last_seq, exact.json.pending], [4, 6, 0]);
    const zero = await t.request('GET', '/db/_changes?limit=0');
    assert.deepEqual(zero.json, { results: [], last_seq: 0, pending: 4 });
    const zeroSince = await t.request('GET', '/db/_changes?limit=0&since=4');
    assert.deepEqual(zeroSince.json, { results: [], last_seq: 4, pending: 2 });
  });

  it('descending lists newest first (and ignores since=now)', async () => {
    const r = await t.request('GET', '/db/_changes?descending=true');
    assert.deepEqual(seqIds(r.json), [
      [6, '_design/x'],
      [5, 'b'],
      [4, 'a'],
      [3, 'c'],
    ]);
    const now = await t.request('GET', '/db/_changes?descending=true&since=now&limit=1');
    assert.deepEqual(seqIds(now.json), [[6, '_design/x']]);
  });

  it('filter=_doc_ids: GET JSON param, POST body; missing doc_ids is a 400; POST doc_ids alone is ignored', async () => {
    const get = await t.request('GET', `/db/_changes?filter=_doc_ids&doc_ids=${q(['b', 'c', 'none'])}`);
    assert.deepEqual(seqIds(get.json), [
      [3, 'c'],
      [5, 'b'],
    ]);
    const post = await t.request('POST', '/db/_changes?filter=_doc_ids', { body: { doc_ids: ['a'] } });
    assert.deepEqual(seqIds(post.json), [[4, 'a']]);
    const reason = '`doc_ids` filter parameter is not a list of doc ids.';
    const missing = await t.request('GET', '/db/_changes?filter=_doc_ids');
    assert.deepEqual([missing.status, missing.json], [400, { error: 'bad_request', reason }]);
    const missingPost = await t.request('POST', '/db/_changes?filter=_doc_ids', { body: {} });
    assert.deepEqual([missingPost.status, missingPost.json], [400, { error: 'bad_request', reason }]);
    const notStrings = await t.request('GET', `/db/_changes?filter=_doc_ids&doc_ids=${q([1])}`);
    assert.equal(notStrings.status, 400);
    const badJson = await t.request('GET', '/db/_changes?filter=_doc_ids&doc_ids=%5B');
    assert.deepEqual([badJson.status, badJson.json], [400, { error: 'bad_request', reason: 'invalid UTF-8 JSON' }]);
    const typed = await t.request('POST', '/db/_changes?filter=_doc_ids', {
      body: '{"doc_ids":["a"]}',
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(typed.status, 415);
    const unfiltered = await t.request('POST', '/db/_changes', { body: { doc_ids: ['a'] } });
    assert.equal(unfiltered.json.results.length, 4);
  });

  it('filter=_design keeps design docs; an unknown builtin filter is a 400; a missing ddoc filter is a 404', async () => {
    const design = await t.request('GET', '/db/_changes?filter=_design');
    assert.deepEqual(seqIds(design.json), [[6, '_design/x']]);
    const unknown = await t.request('GET', '/db/_changes?filter=_bogus');
    assert.deepEqual(
      [unknown.status, unknown.json],
      [400, { error: 'bad_request', reason: 'unknown builtin filter name' }],
    );
    const missing = await t.request('GET', '/db/_changes?filter=nope/f');
    assert.deepEqual([missing.status, missing.json], [404, { error: 'not_found', reason: 'missing' }]);
  });

  it('style=all_docs lists every leaf: winner first, then live leaves, then deleted ones, each descending', async () => {
    await t.request('POST', '/db/_bulk_docs', {
      body: {
        new_edits: false,
        docs: [
          { _id: 'cf', _rev: '1-aaa' },
          { _id: 'cf', _rev: '1-ccc' },
          { _id: 'cf', _rev: '1-bbb', _deleted: true },
          { _id: 'cf', _rev: '1-zzz', _deleted: true },
        ],
      },
    });
    const filter = `filter=_doc_ids&doc_ids=${q(['cf'])}`;
    const main = await t.request('GET', `/db/_changes?${filter}`);
    assert.deepEqual(main.json.results, [{ seq: 7, id: 'cf', changes: [{ rev: '1-ccc' }] }]);
    const all = await t.request('GET', `/db/_changes?style=all_docs&${filter}`);
    assert.deepEqual(all.json.results, [
      { seq: 7, id: 'cf', changes: [{ rev: '1-ccc' }, { rev: '1-aaa' }, { rev: '1-zzz' }, { rev: '1-bbb' }] },
    ]);
    const conflicts = await t.request('GET', `/db/_changes?include_docs=true&conflicts=true&${filter}`);
    assert.deepEqual(conflicts.json.results[0].doc, { _id: 'cf', _rev: '1-ccc', _conflicts: ['1-aaa'] });
  });

  it('booleans other than "true" are false, as CouchDB parses them; bad feed/heartbeat/limit/timeout/style are 400s (CouchDB crashes on the last three)', async () => {
    const loose = await t.request('GET', '/db/_changes?include_docs=yes&descending=TRUE&limit=1');
    assert.deepEqual(loose.json.results, [{ seq: 3, id: 'c', changes: [{ rev: revs.c }] }]);
    const feed = await t.request('GET', '/db/_changes?feed=bogus');
    assert.deepEqual(
      [feed.status, feed.json],
      [
        400,
        { error: 'bad_request', reason: 'Supported `feed` types: normal, continuous, live, longpoll, eventsource' },
      ],
    );
    const heartbeat = await t.request('GET', '/db/_changes?feed=continuous&heartbeat=abc');
    assert.deepEqual(
      [heartbeat.status, heartbeat.json.reason],
      [400, 'Invalid heartbeat value. Expecting a positive integer value (in milliseconds).'],
    );
    const negative = await t.request('GET', '/db/_changes?feed=continuous&heartbeat=-5');
    assert.deepEqual(
      [negative.status, negative.json.reason],
      [400, 'The heartbeat value should be a positive integer (in milliseconds).'],
    );
    for (const [query, reason] of [
      ['limit=abc', '`limit` must be a non-negative integer, got "abc"'],
      ['limit=-1', '`limit` must be a non-negative integer, got "-1"'],
      ['timeout=abc', '`timeout` must be an integer, got "abc"'],
      ['style=bogus', '`style` must be `main_only` or `all_docs`, got "bogus"'],
    ]) {
      const r = await t.request('GET', `/db/_changes?${query}`);
      assert.deepEqual([r.status, r.json], [400, { error: 'bad_request', reason }], query);
    }
  });

  it('longpoll answers at once when there are changes after since', async () => {
    const started = Date.now();
    const r = await t.request('GET', '/db/_changes?feed=longpoll&since=5&timeout=10000');
    assert.ok(Date.now() - started < 5000);
    assert.deepEqual(seqIds(r.json), [
      [6, '_design/x'],
      [7, 'cf'],
    ]);
    assert.deepEqual([r.json.last_seq, r.json.pending], [7, 0]);
    assert.equal(r.headers.get('etag'), null);
  });

  it('longpoll with timeout=100 and nothing new: empty results after the timeout', async () => {
    const r = await t.request('GET', '/db/_changes?feed=longpoll&since=now&timeout=100');
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, { results: [], last_seq: 7, pending: 0 });
  });

  it('longpoll wakes up when a doc is written during the wait', async () => {
    const pending = t.request('GET', '/db/_changes?feed=longpoll&since=now&timeout=10000');
    await new Promise((resolve) => setTimeout(resolve, 150));
    const started = Date.now();
    const put = await t.request('PUT', '/db/lp', { body: {} });
    const r = await pending;
    assert.ok(Date.now() - started < 5000);
    assert.deepEqual(r.json, {
      results: [{ seq: 8, id: 'lp', changes: [{ rev: put.json.rev }] }],
      last_seq: 8,
      pending: 0,
    });
  });

  it('longpoll with a filter waits for a matching change', async () => {
    const pending = t.request(
      'GET',
      `/db/_changes?feed=longpoll&since=now&timeout=10000&filter=_doc_ids&doc_ids=${q(['wanted'])}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    await t.request('PUT', '/db/unwanted', { body: {} });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await t.request('PUT', '/db/wanted', { body: {} });
    const r = await pending;
    assert.deepEqual(seqIds(r.json), [[10, 'wanted']]);
    assert.equal(r.json.last_seq, 10);
  });

  it('continuous: one JSON object per line, then last_seq after the timeout', async () => {
    const r = await t.request('GET', '/db/_changes?feed=continuous&since=7&timeout=100');
    assert.equal(r.status, 200);
    const lines = r.text.split('\n').filter((line) => line !== '');
    const parsed = lines.map((line) => JSON.parse(line));
    assert.deepEqual(
      parsed.slice(0, -1).map((row: { seq: number; id: string }) => [row.seq, row.id]),
      [
        [8, 'lp'],
        [9, 'unwanted'],
        [10, 'wanted'],
      ],
    );
    assert.deepEqual(parsed[parsed.length - 1], { last_seq: 10, pending: 0 });
  });

  it('continuous streams changes written while it runs', async () => {
    const pending = t.request('GET', '/db/_changes?feed=continuous&since=now&timeout=2000');
    await new Promise((resolve) => setTimeout(resolve, 150));
    await t.request('PUT', '/db/live1', { body: {} });
    const r = await pending;
    const parsed = r.text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line));
    assert.deepEqual(
      parsed.map((row) => row.id ?? 'end'),
      ['live1', 'end'],
    );
    assert.deepEqual(parsed[1], { last_seq: 11, pending: 0 });
  });

  it('continuous with a limit stops after that many rows; feed=live is continuous', async () => {
    const r = await t.request('GET', '/db/_changes?feed=live&limit=2&timeout=5000');
    const parsed = r.text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line));
    assert.deepEqual(
      parsed.slice(0, 2).map((row) => row.seq),
      [3, 4],
    );
    assert.equal(parsed[2].last_seq, 4);
    assert.ok(parsed[2].pending > 0);
  });

  it('the normal feed ETag answers If-None-Match with 304 and changes with the database', async () => {
    const first = await t.request('GET', '/db/_changes');
    const etag = first.headers.get('etag')!;
    const cached = await t.request('GET', '/db/_changes', { headers: { 'if-none-match': etag } });
    assert.deepEqual([cached.status, cached.text], [304, '']);
    await t.request('PUT', '/db/etag-bump', { body: {} });
    const after = await t.request('GET', '/db/_changes', { headers: { 'if-none-match': etag } });
    assert.equal(after.status, 200);
    assert.notEqual(after.headers.get('etag'), etag);
  });

  it('longpoll with a heartbeat sends newlines while it waits, then the change', async () => {
    const pending = t.request('GET', '/db/_changes?feed=longpoll&since=now&heartbeat=50');
    await new Promise((resolve) => setTimeout(resolve, 250));
    const put = await t.request('PUT', '/db/hb', { body: {} });
    const r = await pending;
    assert.equal(r.status, 200);
    assert.match(r.text, /^\{"results":\[\n\n+/);
    const body = JSON.parse(r.text);
    assert.deepEqual(
      body.results.map((row: { id: string }) => row.id),
      ['hb'],
    );
    assert.equal(body.results[0].changes[0].rev, put.json.rev);
    assert.deepEqual([body.last_seq, body.pending], [body.results[0].seq, 0]);
  });

  it('HEAD answers headers only; PUT is a 405 with Allow', async () => {
    const head = await t.request('HEAD', '/db/_changes');
    assert.deepEqual([head.status, head.text], [200, '']);
    const put = await t.request('PUT', '/db/_changes', { body: {} });
    assert.equal(put.status, 405);
    assert.equal(put.headers.get('allow'), 'GET,POST,HEAD');
  });

  it('feed=eventsource sends server-sent events and resumes from Last-Event-ID', async () => {
    const r = await t.request('GET', '/db/_changes?feed=eventsource&since=8&limit=2&timeout=5000');
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type')!, /^text\/event-stream/);
    const events = r.text.split('\n\n').filter((chunk) => chunk !== '');
    assert.equal(events.length, 2);
    const [data, id] = events[0]!.split('\n');
    assert.equal(id, 'id: 9');
    assert.equal(JSON.parse(data!.slice('data: '.length)).id, 'unwanted');
    const resumed = await t.request('GET', '/db/_changes?feed=eventsource&limit=1&timeout=5000', {
      headers: { 'last-event-id': '9' },
    });
    assert.match(resumed.text, /^data: \{"seq":10,"id":"wanted"/);
  });

  it('a missing database is a 404', async () => {
    const r = await t.request('GET', '/nodb/_changes');
    assert.deepEqual([r.status, r.json], [404, { error: 'not_found', reason: 'Database does not exist.' }]);
  });
});
