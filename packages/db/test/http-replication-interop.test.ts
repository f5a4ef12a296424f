/**
 * Replication between Divan and other implementations of the protocol, both directions: Divan's
 * replicator (`POST /_replicate`) pulling from and pushing to express-pouchdb (a CouchDB-protocol
 * server from npm), and PouchDB 9 in node replicating from and to Divan. Documents, conflicts,
 * deletions, design documents and attachments (small, a 1 MB binary, compressible text) arrive
 * as they left; `_local` documents stay behind; filters (doc_ids, design filter with
 * query_params, selector), continuous replication and its cancel, checkpoints each side can
 * resume from (PouchDB's checkpoint shape and CouchDB's read alike), and a target whose validate
 * function refuses some documents. No password shows in any answer or log line of the suite.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { pouchDB, startPouchServer, type PouchDBClass, type PouchServer } from './support/pouchdb-peer.js';
import { ADMIN, request, startTestServer, type Reply, type RequestOptions, type TestServer } from './support/server.js';
import { until } from './support/until.js';

const SMALL = Buffer.from('hello, attachment');
const LARGE = randomBytes(1024 * 1024);
/** Text Divan stores gzip-compressed: it must arrive as the same bytes everywhere. */
const COMPRESSIBLE = Buffer.from('the same line of text, again and again\n'.repeat(8_000));
const ATTACHMENTS: Record<string, { type: string; data: Buffer }> = {
  'small.txt': { type: 'text/plain', data: SMALL },
  'large.bin': { type: 'application/octet-stream', data: LARGE },
  'text.txt': { type: 'text/plain', data: COMPRESSIBLE },
};
const CONTENT_IDS = ['a', 'b', 'att', '_design/d'];

/** One side of a comparison: a server's base URL and how to authenticate there. */
interface Side {
  url: string;
  auth: false | undefined;
}

const send = (side: Side, method: string, path: string, options: RequestOptions = {}): Promise<Reply> =>
  request(side.url, method, path, { ...options, ...(side.auth === false ? { auth: false } : {}) });

/** A source with plain docs, a conflict, a deletion, a design doc, three attachments and a `_local` doc. */
async function fill(side: Side, db: string): Promise<void> {
  assert.equal((await send(side, 'PUT', `/${db}`)).status, 201);
  const attachments = Object.fromEntries(
    Object.entries(ATTACHMENTS).map(([name, { type, data }]) => [
      name,
      { content_type: type, data: data.toString('base64') },
    ]),
  );
  const docs = [
    { _id: 'a', n: 1, nested: { list: [1, 'two', null, true] } },
    { _id: 'b', n: 2 },
    { _id: 'gone', n: 3 },
    { _id: 'att', n: 4, _attachments: attachments },
    {
      _id: '_design/d',
      views: { v: { map: 'function (doc) { emit(doc.n, null); }' } },
      filters: { by_n: 'function (doc, req) { return doc.n == Number(req.query.n); }' },
    },
  ];
  const written = await send(side, 'POST', `/${db}/_bulk_docs`, { body: { docs } });
  assert.equal(written.status, 201, written.text);
  const gone = written.json.find((row: { id: string }) => row.id === 'gone');
  assert.equal((await send(side, 'DELETE', `/${db}/gone?rev=${gone.rev}`)).status, 200);
  // A conflict on `b`: a second branch written as a replicator would.
  const branch = { _id: 'b', _rev: '1-ffffffffffffffffffffffffffffffff', n: 22 };
  const conflict = await send(side, 'POST', `/${db}/_bulk_docs`, { body: { docs: [branch], new_edits: false } });
  assert.equal(conflict.status, 201, conflict.text);
  assert.equal((await send(side, 'PUT', `/${db}/_local/private`, { body: { secret: true } })).status, 201);
}

/**
 * A document as both sides must show it. An attachment's digest and encoding are each store's
 * own (Divan digests the gzip stream of compressible types, PouchDB the plain bytes), so a stub
 * is compared by what it describes: type, length, revpos.
 */
function comparable(doc: Record<string, unknown>): Record<string, unknown> {
  const atts = doc._attachments as Record<string, Record<string, unknown>> | undefined;
  if (atts === undefined) return doc;
  const stubs = Object.fromEntries(
    Object.entries(atts).map(([name, att]) => [
      name,
      { content_type: att.content_type, length: att.length, revpos: att.revpos, stub: att.stub },
    ]),
  );
  return { ...doc, _attachments: stubs };
}

/** What must be the same on both sides after a full replication. */
async function assertCarried(source: Side, sourceDb: string, target: Side, targetDb: string): Promise<void> {
  for (const id of CONTENT_IDS) {
    const path = `/${id.startsWith('_design/') ? id : encodeURIComponent(id)}?conflicts=true&revs=true`;
    const s = await send(source, 'GET', `/${sourceDb}${path}`);
    const t = await send(target, 'GET', `/${targetDb}${path}`);
    assert.equal(s.status, 200, `${id} on the source`);
    assert.equal(t.status, 200, `${id} on the target: ${t.text}`);
    assert.deepEqual(comparable(t.json), comparable(s.json), id);
  }
  const openRevs = (side: Side, db: string) =>
    send(side, 'GET', `/${db}/gone?open_revs=all`, { headers: { accept: 'application/json' } });
  const targetGone = (await openRevs(target, targetDb)).json;
  assert.deepEqual(targetGone, (await openRevs(source, sourceDb)).json);
  assert.equal(targetGone[0].ok._deleted, true);
  for (const [name, { type, data }] of Object.entries(ATTACHMENTS)) {
    const response = await fetch(`${target.url}/${targetDb}/att/${name}`, {
      headers: target.auth === false ? {} : { authorization: authHeader() },
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    assert.equal(response.status, 200, name);
    assert.ok(bytes.equals(data), `${name}: ${bytes.length} bytes arrived of ${data.length}`);
    assert.equal(response.headers.get('content-type'), type, name);
  }
  assert.equal((await send(target, 'GET', `/${targetDb}/_local/private`)).status, 404);
}

function authHeader(): string {
  return `Basic ${Buffer.from(`${ADMIN.name}:${ADMIN.password}`).toString('base64')}`;
}

const ids = async (side: Side, db: string): Promise<string[]> =>
  (await send(side, 'GET', `/${db}/_all_docs`)).json.rows.map((row: { id: string }) => row.id);

describe('replication interop: Divan with express-pouchdb and PouchDB', () => {
  let divan: TestServer;
  let peer: PouchServer;
  let PouchDB: PouchDBClass;
  let d: Side;
  let p: Side;
  const log: string[] = [];
  const answers: string[] = [];
  const opened: PouchDBClass[] = [];
  /** Divan's database as PouchDB opens a remote one; `urls` receives every URL PouchDB asks for. */
  const remote = (name: string, urls?: string[]) => {
    const db = new PouchDB(`${divan.url}/${name}`, {
      adapter: 'http',
      auth: { username: ADMIN.name, password: ADMIN.password },
      fetch: (url: string, options: unknown) => {
        urls?.push(url);
        return PouchDB.fetch(url, options);
      },
    });
    opened.push(db);
    return db;
  };
  const memory = (name: string) => {
    const db = new PouchDB(name);
    opened.push(db);
    return db;
  };
  /** The peer's database with the credentials in its URL (express-pouchdb ignores them; they must not leak). */
  const peerUrl = (db: string) => `${peer.url.replace('http://', 'http://peeruser:peer-password-123@')}/${db}`;

  async function replicate(body: Record<string, unknown>): Promise<Reply> {
    const r = await divan.request('POST', '/_replicate', { body });
    answers.push(r.text);
    return r;
  }

  before(async () => {
    divan = await startTestServer({ log: (line) => log.push(line) });
    peer = await startPouchServer();
    PouchDB = pouchDB();
    d = { url: divan.url, auth: undefined };
    p = { url: peer.url, auth: false };
    await fill(d, 'src');
  });
  after(async () => {
    for (const db of opened) await db.close();
    // No password of any endpoint in any answer or log line of the suite.
    for (const text of [...answers, ...log]) {
      assert.doesNotMatch(text, new RegExp(`${ADMIN.password}|peer-password-123`), text);
    }
    await peer.close();
    await divan.close();
  });

  it("Divan's replicator pushes to express-pouchdb and pulls back: everything but _local docs", async () => {
    const push = await replicate({ source: 'src', target: peerUrl('pushed'), create_target: true });
    assert.equal(push.status, 200, push.text);
    assert.equal(push.json.history[0].docs_written, 6);
    assert.equal(push.json.history[0].doc_write_failures, 0);
    await assertCarried(d, 'src', p, 'pushed');
    const pull = await replicate({ source: peerUrl('pushed'), target: 'pulled', create_target: true });
    assert.equal(pull.status, 200, pull.text);
    assert.equal(pull.json.history[0].docs_written, 6);
    await assertCarried(p, 'pushed', d, 'pulled');
    // From the checkpoints on both sides: nothing new, nothing read.
    const again = await replicate({ source: peerUrl('pushed'), target: 'pulled', create_target: true });
    assert.deepEqual(again.json, { ok: true, no_changes: true });
  });

  it('the checkpoint Divan writes on express-pouchdb has the shape CouchDB and PouchDB read', async () => {
    // express-pouchdb lists no `_local_docs`: the id is read on Divan's side, where the same checkpoint is.
    const locals = (await divan.request('GET', '/src/_local_docs')).json;
    const checkpointIds = locals.rows.map((row: { id: string }) => row.id);
    // Named by the replication id's base, as CouchDB names them (no `+create_target`).
    const id = checkpointIds.find((name: string) => /^_local\/[0-9a-f]{32}$/.test(name));
    assert.ok(id !== undefined, JSON.stringify(locals));
    const doc = (await send(p, 'GET', `/pushed/_local/${encodeURIComponent(id.slice('_local/'.length))}`)).json;
    const seq = (await divan.request('GET', '/src')).json.update_seq;
    // CouchDB's fields…
    assert.equal(doc.source_last_seq, seq);
    assert.equal(doc.replication_id_version, 4);
    assert.equal(doc.history[0].session_id, doc.session_id);
    assert.equal(doc.history[0].recorded_seq, seq);
    // …and PouchDB's (a checkpoint without `version` is resumed from its `last_seq` on both sides).
    assert.equal(doc.last_seq, seq);
    assert.equal(doc.version, undefined);
  });

  it('PouchDB (node) pulls from Divan and pushes to Divan: everything but _local docs', async () => {
    const local = memory('pouch-copy');
    const pulled = await PouchDB.replicate(remote('src'), local);
    assert.equal(pulled.ok, true);
    assert.equal(pulled.docs_written, 6);
    for (const id of CONTENT_IDS) {
      const mine = await local.get(id, { revs: true, conflicts: true });
      const theirs = (await divan.request('GET', `/src/${id}?revs=true&conflicts=true`)).json;
      assert.deepEqual(comparable(mine), comparable(theirs), id);
    }
    await assert.rejects(local.get('_local/private'), { status: 404 });
    const pushed = await PouchDB.replicate(local, remote('from_pouch'));
    assert.equal(pushed.ok, true);
    assert.equal(pushed.docs_written, 6);
    assert.equal(pushed.doc_write_failures, 0);
    await assertCarried(d, 'src', d, 'from_pouch');
  });

  it('filters against express-pouchdb as the source: doc_ids, a design filter with query_params, a selector', async () => {
    const byIds = await replicate({
      source: peerUrl('pushed'),
      target: 'peer_ids',
      create_target: true,
      doc_ids: ['a', 'att'],
    });
    assert.equal(byIds.status, 200, byIds.text);
    assert.deepEqual(await ids(d, 'peer_ids'), ['a', 'att']);
    const byFilter = await replicate({
      source: peerUrl('pushed'),
      target: 'peer_filter',
      create_target: true,
      filter: 'd/by_n',
      query_params: { n: '1' },
    });
    assert.equal(byFilter.status, 200, byFilter.text);
    assert.deepEqual(await ids(d, 'peer_filter'), ['a']);
    // express-pouchdb has no `_selector` changes filter: the replicator judges the changes itself.
    const bySelector = await replicate({
      source: peerUrl('pushed'),
      target: 'peer_selector',
      create_target: true,
      selector: { n: { $gte: 2 } },
    });
    assert.equal(bySelector.status, 200, bySelector.text);
    assert.deepEqual(await ids(d, 'peer_selector'), ['att', 'b']);
    // The other way: a selector replication from Divan into express-pouchdb.
    const toPeer = await replicate({
      source: 'src',
      target: peerUrl('selected'),
      create_target: true,
      selector: { n: 1 },
    });
    assert.equal(toPeer.status, 200, toPeer.text);
    assert.deepEqual(await ids(p, 'selected'), ['a']);
  });

  it('PouchDB replicates Divan with a selector and doc_ids, and into a Divan target', async () => {
    const local = memory('pouch-filtered');
    await PouchDB.replicate(remote('src'), local, { selector: { n: { $lt: 3 } } });
    assert.deepEqual(
      (await local.allDocs()).rows.map((row: { id: string }) => row.id),
      ['a', 'b'],
    );
    await PouchDB.replicate(local, remote('pouch_ids'), { doc_ids: ['b'] });
    assert.deepEqual(await ids(d, 'pouch_ids'), ['b']);
  });

  it('continuous both ways with express-pouchdb: a write appears on the other side; cancel stops it', async () => {
    assert.equal((await send(p, 'PUT', '/live')).status, 201);
    const pullBody = { source: peerUrl('live'), target: 'live_pulled', create_target: true, continuous: true };
    const pull = await replicate(pullBody);
    assert.equal(pull.status, 202, pull.text);
    const pushBody = { source: 'live_pulled', target: peerUrl('live_pushed'), create_target: true, continuous: true };
    const push = await replicate(pushBody);
    assert.equal(push.status, 202, push.text);
    assert.equal((await send(p, 'PUT', '/live/one', { body: { n: 1 } })).status, 201);
    await until(async () => (await divan.request('GET', '/live_pulled/one')).status === 200, 'pulled from the peer');
    await until(async () => (await send(p, 'GET', '/live_pushed/one')).status === 200, 'pushed back to the peer');
    for (const body of [pullBody, pushBody]) {
      const cancelled = await replicate({ ...body, cancel: true });
      assert.equal(cancelled.status, 200, cancelled.text);
    }
    assert.equal((await send(p, 'PUT', '/live/two', { body: { n: 2 } })).status, 201);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal((await divan.request('GET', '/live_pulled/two')).status, 404);
  });

  it('PouchDB live replication from Divan, then cancelled', async () => {
    const local = memory('pouch-live');
    const live = PouchDB.replicate(remote('src'), local, { live: true, retry: false });
    try {
      assert.equal((await divan.request('PUT', '/src/live_doc', { body: { n: 9 } })).status, 201);
      await until(async () => {
        try {
          return (await local.get('live_doc')).n === 9;
        } catch {
          return false;
        }
      }, 'the live write in PouchDB');
    } finally {
      live.cancel();
    }
  });

  it("each resumes from the other's checkpoint shape: PouchDB's read by Divan, Divan's read by PouchDB", async () => {
    // PouchDB pulls Divan's `resume_src` into `resume_pouch` (on Divan too, so both checkpoints are readable here).
    assert.equal((await divan.request('PUT', '/resume_src')).status, 201);
    const docs = Array.from({ length: 20 }, (_, i) => ({ _id: `r${String(i).padStart(2, '0')}`, i }));
    assert.equal((await divan.request('POST', '/resume_src/_bulk_docs', { body: { docs } })).status, 201);
    const first = await PouchDB.replicate(remote('resume_src'), remote('resume_pouch'));
    assert.equal(first.docs_written, 20);
    const pouchCheckpoint = async (db: string) => {
      const rows = (await divan.request('GET', `/${db}/_local_docs?include_docs=true`)).json.rows;
      return rows.map((row: { doc: Record<string, unknown> }) => row.doc);
    };
    const [sourceLog] = await pouchCheckpoint('resume_src');
    const [targetLog] = await pouchCheckpoint('resume_pouch');
    assert.equal(sourceLog.replicator, 'pouchdb');
    assert.equal(targetLog.session_id, sourceLog.session_id);

    // Divan's replicator of the same pair finds PouchDB's checkpoint under its own checkpoint name
    // (the replication id's base, as CouchDB's).
    const start = await replicate({ source: 'resume_src', target: 'resume_pouch', continuous: true });
    const divanId = start.json._local_id as string;
    const checkpointName = divanId.split('+')[0]!;
    assert.equal((await replicate({ replication_id: divanId, cancel: true })).status, 200);
    for (const db of ['resume_src', 'resume_pouch']) {
      const existing = await divan.request('GET', `/${db}/_local/${checkpointName}`);
      const { _id, _rev, ...body } = db === 'resume_src' ? sourceLog : targetLog;
      const put = await divan.request('PUT', `/${db}/_local/${checkpointName}`, {
        body: { ...body, ...(existing.status === 200 ? { _rev: existing.json._rev } : {}) },
      });
      assert.equal(put.status, 201, put.text);
    }
    assert.equal((await divan.request('PUT', '/resume_src/r20', { body: { i: 20 } })).status, 201);
    const resumed = await replicate({ source: 'resume_src', target: 'resume_pouch', continuous: true });
    await until(async () => (await divan.request('GET', '/resume_pouch/r20')).status === 200, 'r20 replicated');
    const task = async () =>
      (await divan.request('GET', '/_active_tasks')).json.find(
        (entry: { replication_id: string }) => entry.replication_id === resumed.json._local_id,
      );
    await until(async () => (await task())?.docs_read === 1, 'the job read the one new doc');
    // Only the change after PouchDB's checkpoint was looked at, not the twenty before it.
    assert.deepEqual([(await task()).revisions_checked, (await task()).missing_revisions_found], [1, 1]);
    assert.equal((await replicate({ replication_id: divanId, cancel: true })).status, 200);

    // PouchDB finds Divan's checkpoint (just written at the cancel) under its own id: only what is new travels.
    const divanSource = (await divan.request('GET', `/resume_src/_local/${checkpointName}`)).json;
    const divanTarget = (await divan.request('GET', `/resume_pouch/_local/${checkpointName}`)).json;
    assert.equal(divanSource.session_id, divanTarget.session_id);
    for (const [db, log] of [
      ['resume_src', divanSource],
      ['resume_pouch', divanTarget],
    ] as const) {
      const { _id, _rev, ...body } = log;
      const current = (await divan.request('GET', `/${db}/${sourceLog._id}`)).json;
      const put = await divan.request('PUT', `/${db}/${sourceLog._id}`, { body: { ...body, _rev: current._rev } });
      assert.equal(put.status, 201, put.text);
    }
    assert.equal((await divan.request('PUT', '/resume_src/r21', { body: { i: 21 } })).status, 201);
    const urls: string[] = [];
    const second = await PouchDB.replicate(remote('resume_src', urls), remote('resume_pouch'));
    // PouchDB asked for the changes since Divan's checkpoint.
    const changes = urls.map((url) => new URL(url)).find((url) => url.pathname.endsWith('/_changes'));
    assert.equal(changes?.searchParams.get('since'), String(divanSource.source_last_seq));
    assert.equal(second.docs_read, 1);
    assert.equal(second.docs_written, 1);
  });

  it('PouchDB pushing into a Divan database whose validate function refuses some documents: each refusal reported', async () => {
    assert.equal((await divan.request('PUT', '/guarded')).status, 201);
    const validate = 'function (doc) { if (doc.n === 2) throw({forbidden: "no twos"}); }';
    assert.equal(
      (await divan.request('PUT', '/guarded/_design/v', { body: { validate_doc_update: validate } })).status,
      201,
    );
    const local = memory('pouch-guarded');
    await local.bulkDocs([
      { _id: 'one', n: 1 },
      { _id: 'two', n: 2 },
      { _id: 'three', n: 3 },
    ]);
    const result = await PouchDB.replicate(local, remote('guarded'));
    assert.equal(result.docs_written, 2);
    assert.equal(result.doc_write_failures, 1);
    assert.deepEqual(
      result.errors.map((error: { id: string; name: string; message: string }) => [
        error.id,
        error.name,
        error.message,
      ]),
      [['two', 'forbidden', 'no twos']],
    );
    // Divan's own replicator from express-pouchdb into the same guarded database: skipped, reported by id.
    assert.equal((await send(p, 'PUT', '/to_guard')).status, 201);
    const written = await send(p, 'POST', '/to_guard/_bulk_docs', {
      body: {
        docs: [
          { _id: 'four', n: 4 },
          { _id: 'deux', n: 2 },
        ],
      },
    });
    assert.equal(written.status, 201);
    const r = await replicate({ source: peerUrl('to_guard'), target: 'guarded' });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual([r.json.history[0].docs_written, r.json.history[0].doc_write_failures], [1, 1]);
    assert.ok(
      log.some((line) => line.includes('`deux`') && line.includes('no twos')),
      'the refusal is logged by id and reason',
    );
  });
});
