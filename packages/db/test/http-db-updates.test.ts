/**
 * `GET /_db_updates`: the server's database events as CouchDB's global_changes answers them, on
 * every feed, for server admins only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AUTH, startTestServer, type TestServer } from './support/server.js';
import { basic, createUser } from './support/users.js';

interface Event {
  db_name: string;
  type: string;
  seq: number;
}

const pairs = (events: Event[], prefix: string) =>
  events.filter((e) => e.db_name.startsWith(prefix)).map((e) => [e.db_name, e.type]);

describe('/_db_updates', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  it('is for server admins, checked first: 401 for anonymous callers and other users; GET only', async () => {
    const anon = await t.request('GET', '/_db_updates?feed=bogus', { auth: false });
    assert.deepEqual([anon.status, anon.json], [401, { error: 'unauthorized', reason: 'You are not a server admin.' }]);
    await createUser(t, 'dbu', 'pw');
    const user = await t.request('GET', '/_db_updates', { auth: basic('dbu', 'pw') });
    assert.equal(user.status, 401);
    const post = await t.request('POST', '/_db_updates', { body: {} });
    assert.deepEqual([post.status, post.headers.get('allow')], [405, 'GET']);
  });

  it('lists created, updated and deleted databases with db_name, type and seq (normal feed)', async () => {
    const start = (await t.request('GET', '/_db_updates')).json.last_seq;
    assert.equal(typeof start, 'number');
    await t.request('PUT', '/dbu-a');
    await t.request('PUT', '/dbu-a/doc', { body: { x: 1 } });
    await t.request('PUT', '/dbu-b');
    await t.request('DELETE', '/dbu-b');
    const r = await t.request('GET', `/_db_updates?since=${start}`);
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(pairs(r.json.results, 'dbu-'), [
      ['dbu-a', 'created'],
      ['dbu-a', 'updated'],
      ['dbu-b', 'created'],
      ['dbu-b', 'deleted'],
    ]);
    for (const event of r.json.results) assert.deepEqual(Object.keys(event), ['db_name', 'type', 'seq']);
    const seqs = r.json.results.map((e: Event) => e.seq);
    assert.equal(r.json.last_seq, seqs[seqs.length - 1]);
    assert.ok(r.text.startsWith('{"results":[\n') && r.text.endsWith(`\n],\n"last_seq":${r.json.last_seq}}\n`));

    const limited = await t.request('GET', `/_db_updates?since=${start}&limit=2`);
    assert.deepEqual(pairs(limited.json.results, 'dbu-'), [
      ['dbu-a', 'created'],
      ['dbu-a', 'updated'],
    ]);
    assert.equal(limited.json.last_seq, seqs[1]);
    const newest = await t.request('GET', '/_db_updates?descending=true&limit=1');
    assert.deepEqual(pairs(newest.json.results, 'dbu-'), [['dbu-b', 'deleted']]);
    const later = await t.request('GET', `/_db_updates?since=${seqs[2]}`);
    assert.deepEqual(pairs(later.json.results, 'dbu-'), [['dbu-b', 'deleted']]);
    const none = await t.request('GET', '/_db_updates?since=now');
    assert.deepEqual(none.json, { results: [], last_seq: r.json.last_seq });
  });

  it('answers 304 to its own ETag until a database changes', async () => {
    const first = await t.request('GET', '/_db_updates');
    const etag = first.headers.get('etag')!;
    assert.ok(etag);
    const same = await t.request('GET', '/_db_updates', { headers: { 'if-none-match': etag } });
    assert.deepEqual([same.status, same.text], [304, '']);
    await t.request('PUT', '/dbu-etag');
    const changed = await t.request('GET', '/_db_updates', { headers: { 'if-none-match': etag } });
    assert.equal(changed.status, 200);
  });

  it('refuses a bad feed, limit or heartbeat with 400', async () => {
    const feed = await t.request('GET', '/_db_updates?feed=bogus');
    assert.deepEqual(
      [feed.status, feed.json.reason],
      [400, 'Supported `feed` types: normal, continuous, longpoll, eventsource'],
    );
    for (const query of ['limit=-1', 'limit=x', 'heartbeat=abc', 'timeout=-5']) {
      const r = await t.request('GET', `/_db_updates?${query}`);
      assert.deepEqual([r.status, r.json], [400, { error: 'bad_request', reason: 'invalid_integer' }], query);
    }
  });

  it('longpoll waits for the next event, or answers what is there already', async () => {
    const now = (await t.request('GET', '/_db_updates')).json.last_seq;
    const waiting = t.request('GET', `/_db_updates?feed=longpoll&since=${now}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await t.request('PUT', '/dbu-long');
    const r = await waiting;
    assert.equal(r.status, 200);
    assert.deepEqual(pairs(r.json.results, 'dbu-'), [['dbu-long', 'created']]);
    const timedOut = await t.request('GET', '/_db_updates?feed=longpoll&since=now&timeout=200');
    assert.deepEqual(timedOut.json.results, []);
    const ready = await t.request('GET', `/_db_updates?feed=longpoll&since=${now}`);
    assert.deepEqual(pairs(ready.json.results, 'dbu-'), [['dbu-long', 'created']]);
  });

  it('longpoll with a heartbeat sends newlines while it waits', async () => {
    const now = (await t.request('GET', '/_db_updates')).json.last_seq;
    const waiting = t.request('GET', `/_db_updates?feed=longpoll&since=${now}&heartbeat=100`);
    await new Promise((resolve) => setTimeout(resolve, 350));
    await t.request('PUT', '/dbu-beat');
    const r = await waiting;
    assert.match(r.text, /^\{"results":\[\n\n\n/);
    assert.deepEqual(pairs(r.json.results, 'dbu-'), [['dbu-beat', 'created']]);
  });

  it('continuous sends one event per line, then last_seq at the timeout', async () => {
    const now = (await t.request('GET', '/_db_updates')).json.last_seq;
    const feed = t.request('GET', `/_db_updates?feed=continuous&since=${now}&timeout=2000`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await t.request('PUT', '/dbu-cont');
    await t.request('DELETE', '/dbu-cont');
    const r = await feed;
    const lines = r.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const last = lines.pop();
    assert.deepEqual(pairs(lines, 'dbu-'), [
      ['dbu-cont', 'created'],
      ['dbu-cont', 'deleted'],
    ]);
    assert.deepEqual(last, { last_seq: lines[lines.length - 1].seq });
    const limited = await t.request('GET', `/_db_updates?feed=continuous&since=${now}&limit=1`);
    const limitedLines = limited.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.equal(limitedLines.length, 2);
    assert.deepEqual(limitedLines[1], { last_seq: limitedLines[0].seq });
  });

  it('eventsource sends data and id per event', async () => {
    const now = (await t.request('GET', '/_db_updates')).json.last_seq;
    await t.request('PUT', '/dbu-sse');
    const r = await t.request('GET', `/_db_updates?feed=eventsource&since=${now}&limit=1`);
    assert.equal(r.headers.get('content-type'), 'text/event-stream');
    const match = /^data: (.*)\nid: (\d+)\n\n$/.exec(r.text);
    assert.ok(match, r.text);
    const event = JSON.parse(match[1]!);
    assert.deepEqual([event.db_name, event.type, String(event.seq)], ['dbu-sse', 'created', match[2]]);
    // An EventSource reconnecting resumes after the last id it saw.
    const resumed = await fetch(`${t.url}/_db_updates?feed=eventsource&timeout=100`, {
      headers: { authorization: AUTH, 'last-event-id': match[2]! },
    });
    assert.equal(await resumed.text(), '');
  });
});
