/**
 * A document nested deeper than the JSON limit (1,000 levels) that a remote peer sends is refused
 * alone: the rest of its batch replicates, the job completes, and the refusal is counted
 * (`doc_write_failures`) and logged by id. The peer is a minimal CouchDB-protocol server in the
 * test (Divan itself never stores such a document), answering `_bulk_get` as JSON, or without
 * `_bulk_get` answering `open_revs` as JSON or as `multipart/mixed`.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';

const DEEP = `${'['.repeat(1000)}${']'.repeat(1000)}`;

/** The peer's documents as the JSON texts it sends. */
const DOCS: Record<string, string> = {
  a: '{"_id":"a","_rev":"1-aa","_revisions":{"start":1,"ids":["aa"]},"v":"a"}',
  deep: `{"_id":"deep","_rev":"1-dd","_revisions":{"start":1,"ids":["dd"]},"v":${DEEP}}`,
  b: '{"_id":"b","_rev":"1-bb","_revisions":{"start":1,"ids":["bb"]},"v":"b"}',
};
const REVS: Record<string, string> = { a: '1-aa', deep: '1-dd', b: '1-bb' };

type Mode = 'bulk_get' | 'open_revs_json' | 'open_revs_multipart';

/** A CouchDB-protocol source database at `/src` whose `deep` document is 1,001 levels deep. */
function startPeer(mode: () => Mode): Promise<Server> {
  const server = createServer((req, res) => {
    answer(req, res, mode()).catch((error: unknown) => {
      res.statusCode = 500;
      res.end(JSON.stringify({ error: 'peer', reason: String(error) }));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function answer(req: IncomingMessage, res: ServerResponse, mode: Mode): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const url = new URL(req.url ?? '/', 'http://peer');
  const json = (status: number, text: string) => {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(text);
  };
  const path = url.pathname;
  if (path === '/') return json(200, '{"couchdb":"Welcome","version":"3.5.0"}');
  if (path === '/src') return json(200, '{"db_name":"src","instance_start_time":"0","update_seq":"3-x"}');
  if (path.startsWith('/src/_local/')) {
    return req.method === 'PUT' ? json(201, '{"ok":true,"id":"x","rev":"0-1"}') : json(404, '{"error":"not_found"}');
  }
  if (path === '/src/_changes') {
    const rows = Object.keys(DOCS).map((id, i) => ({ seq: `${i + 1}-x`, id, changes: [{ rev: REVS[id] }] }));
    return json(200, JSON.stringify({ results: rows, last_seq: '3-x', pending: 0 }));
  }
  if (path === '/src/_bulk_get') {
    if (mode !== 'bulk_get') return json(404, '{"error":"not_found","reason":"missing"}');
    const asked = (JSON.parse(Buffer.concat(chunks).toString()) as { docs: { id: string }[] }).docs;
    const results = asked.map(({ id }) => `{"id":${JSON.stringify(id)},"docs":[{"ok":${DOCS[id]}}]}`);
    return json(200, `{"results":[${results.join(',')}]}`);
  }
  const id = decodeURIComponent(path.slice('/src/'.length));
  const doc = DOCS[id];
  if (doc === undefined || !url.searchParams.has('open_revs')) return json(404, '{"error":"not_found"}');
  if (mode === 'open_revs_json') return json(200, `[{"ok":${doc}}]`);
  const boundary = 'peerboundary';
  res.writeHead(200, { 'Content-Type': `multipart/mixed; boundary="${boundary}"` });
  res.end(`--${boundary}\r\nContent-Type: application/json\r\n\r\n${doc}\r\n--${boundary}--`);
}

describe('a too deeply nested document from a remote peer', () => {
  let t: TestServer;
  let peer: Server;
  let mode: Mode = 'bulk_get';
  const log: string[] = [];

  before(async () => {
    t = await startTestServer({ log: (line) => log.push(line) });
    peer = await startPeer(() => mode);
  });
  after(async () => {
    await t.close();
    await new Promise((resolve) => peer.close(resolve));
  });

  for (const each of ['bulk_get', 'open_revs_json', 'open_revs_multipart'] as const) {
    it(`is refused alone, by id, the rest replicated (${each})`, async () => {
      mode = each;
      const target = `deep-${each.replaceAll('_', '-')}`;
      const source = `http://127.0.0.1:${(peer.address() as AddressInfo).port}/src`;
      const reply = await t.request('POST', '/_replicate', { body: { source, target, create_target: true } });
      assert.equal(reply.status, 200, reply.text);
      const entry = reply.json.history[0];
      assert.deepEqual(
        [entry.docs_read, entry.docs_written, entry.doc_write_failures, entry.missing_found],
        [2, 2, 1, 3],
      );
      for (const id of ['a', 'b']) {
        const doc = await t.request('GET', `/${target}/${id}`);
        assert.deepEqual([doc.status, doc.json._rev, doc.json.v], [200, REVS[id], id]);
      }
      assert.equal((await t.request('GET', `/${target}/deep`)).status, 404);
      const line = log.find((l) => l.includes("couldn't read document `deep` from source database"));
      assert.ok(line !== undefined, log.join('\n'));
      assert.match(line, /JSON nested deeper than 1000 levels is not accepted/);
      log.length = 0;
    });
  }
});
