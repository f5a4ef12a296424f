import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TestServer } from './support/server.js';
import { twoNodesOnPostgres } from './support/two-nodes.js';

/** `_db_updates` on two nodes of one PostgreSQL: one server's database events, whichever node is asked. */
describe('_db_updates across two nodes on one PostgreSQL', () => {
  let a: TestServer;
  let b: TestServer;
  twoNodesOnPostgres('dbupdnodes', (nodes) => ({ a, b } = nodes));

  it("a node's feed lists the other node's databases created, written and deleted", async () => {
    const start = (await b.request('GET', '/_db_updates')).json.last_seq;
    await a.request('PUT', '/far');
    await a.request('PUT', '/far/doc', { body: {} });
    await a.request('PUT', '/gone');
    await a.request('DELETE', '/gone');
    const r = await b.request('GET', `/_db_updates?since=${start}`);
    assert.deepEqual(
      r.json.results.map((e: { db_name: string; type: string }) => [e.db_name, e.type]),
      [
        ['far', 'created'],
        ['far', 'updated'],
        ['gone', 'created'],
        ['gone', 'deleted'],
      ],
    );
  });

  it("a longpoll on one node ends with the other node's write", async () => {
    const now = (await b.request('GET', '/_db_updates')).json.last_seq;
    const waiting = b.request('GET', `/_db_updates?feed=longpoll&since=${now}&timeout=10000`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = Date.now();
    await a.request('PUT', '/far/other', { body: {} });
    const r = await waiting;
    assert.ok(Date.now() - started < 5000, 'woken by the write, not the timeout');
    assert.deepEqual(
      r.json.results.map((e: { db_name: string; type: string }) => [e.db_name, e.type]),
      [['far', 'updated']],
    );
  });
});
