/**
 * `_replicator` databases against a real server: a document starts a job, an update restarts it,
 * a delete cancels it; malformed documents are refused with CouchDB's 403 reasons; `owner` is the
 * writer, users write only their own documents and cannot take one over; terminal states are
 * written back; duplicates fail; a job acts as its `user_ctx`, never as admin; `/_scheduler/docs`
 * and `/_scheduler/jobs` in CouchDB's shapes with `limit`/`skip`; replication `_active_tasks`;
 * jobs that survive a restart. No password appears in any answer or log line of the suite.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ADMIN, startTestServer, type TestServer } from './support/server.js';
import { until } from './support/until.js';
import { basic, createUser } from './support/users.js';

const FAST = { intervalMs: 200, crashBackoffMs: 200, stallTimeoutMs: 5_000 };

describe('_replicator databases', () => {
  let t: TestServer;
  const log: string[] = [];
  const answers: string[] = [];
  const bob = basic('bob', 'bobpass');
  const carol = basic('carol', 'carolpass');

  async function req(method: string, path: string, body?: unknown, auth?: string) {
    const reply = await t.request(method, path, {
      ...(body === undefined ? {} : { body }),
      ...(auth === undefined ? {} : { auth }),
    });
    answers.push(reply.text);
    return reply;
  }

  async function docState(db: string, id: string): Promise<Record<string, unknown>> {
    return (await req('GET', `/_scheduler/docs/${db}/${encodeURIComponent(id)}`)).json;
  }

  before(async () => {
    t = await startTestServer({ log: (line) => log.push(line), settings: { replicator: FAST } });
    await createUser(t, 'bob', 'bobpass', ['crew']);
    await createUser(t, 'carol', 'carolpass');
    assert.equal((await req('PUT', '/_replicator')).status, 201);
    // Users may write replication documents (their own).
    const security = { admins: { names: [], roles: [] }, members: { names: ['bob', 'carol'], roles: [] } };
    assert.equal((await req('PUT', '/_replicator/_security', security)).status, 200);
    assert.equal((await req('PUT', '/src')).status, 201);
    for (const id of ['a', 'b', 'c']) assert.equal((await req('PUT', `/src/${id}`, { n: id })).status, 201);
  });
  after(async () => {
    for (const text of [...answers, ...log]) {
      assert.doesNotMatch(text, new RegExp(`${ADMIN.password}|bobpass|carolpass|s3cr3t`), text);
    }
    await t.close();
  });

  it('refuses malformed documents with CouchDB’s 403 reasons', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ target: 'x' }, "The `source' property must exist and be either a string or an object."],
      [{ source: 'src', target: 7 }, "The `target' property must exist and be either a string or an object."],
      [
        { source: { url: '' }, target: 'x' },
        "The url property must exist in the `source' field and must be a non-empty string.",
      ],
      [{ source: { url: 'http://h/d', auth: 'x' }, target: 'x' }, "`source.auth' must be a non-null object."],
      [{ source: 'src', target: { url: 'http://h/d', headers: null } }, "`target.headers' must be a non-null object."],
      [{ source: 'src', target: 'x', create_target: 'yes' }, "The `create_target' field must be a boolean."],
      [{ source: 'src', target: 'x', continuous: 1 }, "The `continuous' field must be a boolean."],
      [{ source: 'src', target: 'x', doc_ids: 'a' }, "The `doc_ids' field must be an array of strings."],
      [{ source: 'src', target: 'x', filter: '' }, "The `filter' field must be a non-empty string."],
      [
        { source: 'src', target: 'x', doc_ids: ['a'], selector: {} },
        "`doc_ids' field is incompatible with `selector'.",
      ],
      [
        { source: 'src', target: 'x', filter: 'd/f', doc_ids: ['a'] },
        "`filter' field is incompatible with `selector' and `doc_ids'.",
      ],
      [{ source: 'src', target: 'x', query_params: 'q' }, "The `query_params' field must be an object."],
    ];
    for (const [doc, reason] of cases) {
      const r = await req('POST', '/_replicator', doc);
      assert.deepEqual([r.status, r.json], [403, { error: 'forbidden', reason }], JSON.stringify(doc));
    }
    // A user: `user_ctx` is required, and holds only their own name and roles.
    const plain = { source: 'src', target: 'bobs' };
    const missing = await req('POST', '/_replicator', plain, bob);
    assert.deepEqual(missing.json, {
      error: 'forbidden',
      reason: "The `user_ctx' property is missing (it is optional for admins only).",
    });
    const other = await req('POST', '/_replicator', { ...plain, user_ctx: { name: 'carol' } }, bob);
    assert.deepEqual(other.json.reason, "The given `user_ctx.name' is not valid");
    const role = await req('POST', '/_replicator', { ...plain, user_ctx: { name: 'bob', roles: ['_admin'] } }, bob);
    assert.deepEqual(role.json.reason, "Invalid role (`_admin') in the `user_ctx'");
    // Through `_bulk_docs` too: the rule lives below HTTP.
    const bulk = await req('POST', '/_replicator/_bulk_docs', { docs: [{ _id: 'bulk', target: 'x' }] });
    assert.deepEqual(bulk.json, [
      {
        id: 'bulk',
        error: 'forbidden',
        reason: "The `source' property must exist and be either a string or an object.",
      },
    ]);
  });

  it('sets `owner` to the writer; users write only their own documents and cannot take one over', async () => {
    // `src` is the admin's only: bob's jobs will fail to read it, which is not what this test is about.
    const doc = { source: 'nosuch_src', target: 'nosuch_tgt', user_ctx: { name: 'bob', roles: ['crew'] } };
    const created = await req('PUT', '/_replicator/bobs', doc, bob);
    assert.equal(created.status, 201);
    assert.equal((await req('GET', '/_replicator/bobs')).json.owner, 'bob');
    // Carol can neither rewrite it (naming no owner: CouchDB would let her take it over) nor claim it.
    const current = (await req('GET', '/_replicator/bobs')).json;
    const takeover = await req(
      'PUT',
      '/_replicator/bobs',
      { ...doc, _rev: current._rev, user_ctx: { name: 'carol' } },
      carol,
    );
    assert.deepEqual(
      [takeover.status, takeover.json.reason],
      [403, "Can't update replication documents from other users."],
    );
    const claimed = await req(
      'PUT',
      '/_replicator/bobs',
      { ...doc, _rev: current._rev, owner: 'carol', user_ctx: { name: 'carol' } },
      carol,
    );
    assert.equal(claimed.status, 403);
    const removed = await req('DELETE', `/_replicator/bobs?rev=${current._rev}`, undefined, carol);
    assert.deepEqual(
      [removed.status, removed.json.reason],
      [403, 'Replication documents can only be deleted by admins or by the users who created them.'],
    );
    // Naming someone else as owner is an admin's right only.
    const forged = await req('PUT', '/_replicator/forged', { ...doc, owner: 'carol' }, bob);
    assert.deepEqual(
      [forged.status, forged.json.reason],
      [403, "Can't update replication documents from other users."],
    );
    const byAdmin = await req('PUT', '/_replicator/for-carol', { ...doc, owner: 'carol', user_ctx: { name: 'carol' } });
    assert.equal(byAdmin.status, 201);
    // Bob updates and deletes his own.
    const updated = await req('PUT', '/_replicator/bobs', { ...doc, _rev: current._rev, target: 'nosuch_2' }, bob);
    assert.equal(updated.status, 201);
    assert.equal((await req('DELETE', `/_replicator/bobs?rev=${updated.json.rev}`, undefined, bob)).status, 200);
    const forCarol = (await req('GET', '/_replicator/for-carol')).json;
    assert.equal((await req('DELETE', `/_replicator/for-carol?rev=${forCarol._rev}`)).status, 200);
  });

  it('a one-shot document runs, is marked completed with its stats, and shows so in /_scheduler/docs', async () => {
    const doc = { source: 'src', target: 'copy1', create_target: true, user_ctx: { roles: ['_admin'] } };
    assert.equal((await req('PUT', '/_replicator/once', doc)).status, 201);
    await until(
      async () => (await req('GET', '/_replicator/once')).json._replication_state === 'completed',
      'completed',
    );
    const stored = (await req('GET', '/_replicator/once')).json;
    assert.match(stored._replication_state_time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(stored._replication_stats.docs_written, 3);
    assert.equal(stored._replication_state_reason, undefined);
    assert.equal((await req('GET', '/copy1')).json.doc_count, 3);
    const state = await docState('_replicator', 'once');
    assert.deepEqual(
      { ...state, last_updated: 'x', start_time: 'x' },
      {
        database: '_replicator',
        doc_id: 'once',
        id: null,
        node: 'nonode@nohost',
        source: 'src',
        target: 'copy1',
        state: 'completed',
        info: stored._replication_stats,
        error_count: 0,
        last_updated: 'x',
        start_time: 'x',
        source_proxy: null,
        target_proxy: null,
      },
    );
    // Rewritten with its state kept, it is not run again (CouchDB's rule).
    const rewritten = await req('PUT', '/_replicator/once', stored);
    assert.equal(rewritten.status, 201);
    await sleep(300);
    assert.equal((await docState('_replicator', 'once')).state, 'completed');
    // Rewritten without it, it runs again and carries what came since.
    assert.equal((await req('PUT', '/src/later', { n: 'later' })).status, 201);
    const { _replication_state, _replication_state_time, _replication_stats, ...request } = (
      await req('GET', '/_replicator/once')
    ).json;
    assert.equal((await req('PUT', '/_replicator/once', request)).status, 201);
    await until(async () => (await req('GET', '/copy1/later')).status === 200, 'run again');
    await until(
      async () => (await req('GET', '/_replicator/once')).json._replication_state === 'completed',
      'completed again',
    );
    const later = (await req('GET', '/src/later')).json._rev;
    assert.equal((await req('DELETE', `/src/later?rev=${later}`)).status, 200);
  });

  it('a continuous document runs until deleted; an update restarts it with the new request', async () => {
    const doc = {
      source: 'src',
      target: 'live1',
      create_target: true,
      continuous: true,
      user_ctx: { roles: ['_admin'] },
    };
    const created = await req('PUT', '/_replicator/live', doc);
    assert.equal(created.status, 201);
    await until(async () => (await req('GET', '/live1')).json?.doc_count === 3, 'copied');
    assert.equal((await req('PUT', '/src/d', { n: 'd' })).status, 201);
    await until(async () => (await req('GET', '/live1/d')).status === 200, 'a later write carried');
    const state = await docState('_replicator', 'live');
    assert.equal(state.state, 'running');
    assert.match(String(state.id), /^[0-9a-f]{32}\+continuous\+create_target$/);
    const jobs = (await req('GET', '/_scheduler/jobs')).json;
    const job = jobs.jobs.find((entry: { doc_id: string }) => entry.doc_id === 'live');
    assert.equal(job.database, '_replicator');
    assert.equal(job.id, state.id);
    assert.match(job.pid, /^<0\.\d+\.0>$/);
    assert.deepEqual(
      job.history.map((event: { type: string }) => event.type),
      ['started', 'added'],
    );
    assert.equal(job.info.docs_written >= 4, true);
    assert.equal((await req('GET', `/_scheduler/jobs/${encodeURIComponent(job.id)}`)).json.doc_id, 'live');
    const tasks = (await req('GET', '/_active_tasks')).json;
    const task = tasks.find((entry: { doc_id?: string }) => entry.doc_id === 'live');
    assert.deepEqual(
      [task.type, task.replication_id, task.database, task.continuous, task.source, task.target],
      ['replication', job.id, '_replicator', true, 'src', 'live1'],
    );
    // An update: the old job stops, the new one runs (another target, another id).
    const updated = await req('PUT', '/_replicator/live', { ...doc, _rev: created.json.rev, target: 'live2' });
    assert.equal(updated.status, 201);
    await until(async () => (await req('GET', '/live2')).json?.doc_count === 4, 'the new target filled');
    assert.notEqual((await docState('_replicator', 'live')).id, state.id);
    assert.equal((await req('GET', `/_scheduler/jobs/${encodeURIComponent(job.id)}`)).status, 404);
    // Deleted: the job is gone and writes stay where they are.
    assert.equal((await req('DELETE', `/_replicator/live?rev=${updated.json.rev}`)).status, 200);
    await until(
      async () =>
        !(await req('GET', '/_scheduler/jobs')).json.jobs.some((j: { doc_id: string }) => j.doc_id === 'live'),
      'the job removed',
    );
    assert.equal((await req('GET', '/_scheduler/docs/_replicator/live')).status, 404);
    assert.equal((await req('PUT', '/src/e', { n: 'e' })).status, 201);
    await sleep(500);
    assert.equal((await req('GET', '/live2/e')).status, 404);
  });

  it('a duplicate replication fails, naming the document that runs it; an unreadable document fails with the reason', async () => {
    const doc = {
      source: 'src',
      target: 'dup',
      create_target: true,
      continuous: true,
      user_ctx: { roles: ['_admin'] },
    };
    assert.equal((await req('PUT', '/_replicator/first', doc)).status, 201);
    await until(async () => (await docState('_replicator', 'first')).state === 'running', 'the first running');
    assert.equal((await req('PUT', '/_replicator/second', doc)).status, 201);
    await until(async () => (await req('GET', '/_replicator/second')).json._replication_state === 'failed', 'failed');
    const id = (await docState('_replicator', 'first')).id;
    const second = (await req('GET', '/_replicator/second')).json;
    assert.equal(
      second._replication_state_reason,
      `Replication \`${id}\` specified by document \`second\` already started, triggered by document \`first\` from db \`_replicator\``,
    );
    const state = await docState('_replicator', 'second');
    assert.deepEqual(
      [state.state, state.id, state.info],
      ['failed', null, { error: second._replication_state_reason }],
    );
    // Passes the validation, but names no database nor URL.
    assert.equal((await req('PUT', '/_replicator/bad', { source: 'Not A Name!', target: 'x' })).status, 201);
    await until(async () => (await req('GET', '/_replicator/bad')).json._replication_state === 'failed', 'failed');
    assert.match((await req('GET', '/_replicator/bad')).json._replication_state_reason, /source/);
    for (const id of ['first', 'second', 'bad']) {
      const rev = (await req('GET', `/_replicator/${id}`)).json._rev;
      assert.equal((await req('DELETE', `/_replicator/${id}?rev=${rev}`)).status, 200);
    }
  });

  it('a job acts as its user_ctx on local databases, never as admin', async () => {
    // `src` admits only admins: bob's job cannot read it, though an admin wrote nothing for it.
    const doc = { source: 'src', target: 'bobcopy', create_target: false, user_ctx: { name: 'bob', roles: ['crew'] } };
    assert.equal((await req('PUT', '/bobcopy')).status, 201);
    assert.equal((await req('PUT', '/_replicator/as-bob', doc, bob)).status, 201);
    await until(
      async () => ['error', 'crashing'].includes(String((await docState('_replicator', 'as-bob')).state)),
      'refused',
    );
    const state = await docState('_replicator', 'as-bob');
    assert.match(JSON.stringify(state.info), /unauthorized|forbidden/);
    assert.equal((await req('GET', '/bobcopy')).json.doc_count, 0);
    // An admin's document without user_ctx acts as nobody: refused as well.
    assert.equal((await req('PUT', '/_replicator/as-nobody', { source: 'src', target: 'bobcopy' })).status, 201);
    await until(
      async () => ['error', 'crashing'].includes(String((await docState('_replicator', 'as-nobody')).state)),
      'refused',
    );
    assert.equal((await req('GET', '/bobcopy')).json.doc_count, 0);
    for (const id of ['as-bob', 'as-nobody']) {
      const rev = (await req('GET', `/_replicator/${id}`)).json._rev;
      assert.equal((await req('DELETE', `/_replicator/${id}?rev=${rev}`)).status, 200);
    }
  });

  it('/_scheduler/docs lists every replicator database, one, or one with its / unescaped; limit and skip', async () => {
    assert.equal((await req('PUT', '/team%2F_replicator')).status, 201);
    const doc = { source: 'src', target: 'teamcopy', create_target: true, user_ctx: { roles: ['_admin'] } };
    assert.equal((await req('PUT', '/team%2F_replicator/t1', doc)).status, 201);
    assert.equal((await req('PUT', '/team%2F_replicator/t2', { ...doc, target: 'teamcopy2' })).status, 201);
    await until(async () => (await req('GET', '/_scheduler/docs/team/_replicator')).json.total_rows === 2, 'both seen');
    await until(
      async () =>
        (await req('GET', '/_scheduler/docs/team%2F_replicator')).json.docs.every(
          (d: { state: string }) => d.state === 'completed',
        ),
      'both completed',
    );
    const team = (await req('GET', '/_scheduler/docs/team/_replicator')).json;
    assert.deepEqual(
      team.docs.map((d: { database: string; doc_id: string }) => `${d.database} ${d.doc_id}`),
      ['team/_replicator t1', 'team/_replicator t2'],
    );
    const one = (await req('GET', '/_scheduler/docs/team/_replicator/t2')).json;
    assert.deepEqual([one.doc_id, one.state, one.target], ['t2', 'completed', 'teamcopy2']);
    const page = (await req('GET', '/_scheduler/docs/team/_replicator?limit=1&skip=1')).json;
    assert.deepEqual([page.total_rows, page.offset, page.docs.length, page.docs[0].doc_id], [2, 1, 1, 't2']);
    const all = (await req('GET', '/_scheduler/docs')).json;
    assert.ok(all.docs.some((d: { database: string }) => d.database === '_replicator'));
    assert.ok(all.docs.some((d: { database: string }) => d.database === 'team/_replicator'));
    assert.equal((await req('GET', '/_scheduler/docs?limit=x')).status, 400);
    assert.equal((await req('GET', '/_scheduler/docs/_replicator/nosuch')).status, 404);
    assert.equal((await req('GET', '/_scheduler/docs', undefined, bob)).status, 401);
  });

  it('credentials in a document are never shown by _scheduler, _active_tasks or the log', async () => {
    const doc = {
      source: { url: `${t.url}/src`, auth: { basic: { username: ADMIN.name, password: ADMIN.password } } },
      target: { url: `${t.url}/credcopy`, headers: { Authorization: basic(ADMIN.name, ADMIN.password) } },
      create_target: true,
      continuous: true,
    };
    assert.equal((await req('PUT', '/_replicator/creds', doc)).status, 201);
    await until(async () => (await req('GET', '/credcopy')).json?.doc_count === 5, 'copied over HTTP');
    const shown = [
      (await req('GET', '/_scheduler/docs')).text,
      (await req('GET', '/_scheduler/jobs')).text,
      (await req('GET', '/_active_tasks')).text,
    ].join('\n');
    assert.match(shown, /credcopy/);
    assert.doesNotMatch(shown, new RegExp(ADMIN.password));
    assert.doesNotMatch(shown, new RegExp(Buffer.from(`${ADMIN.name}:${ADMIN.password}`).toString('base64')));
    // Stored encrypted: no reader of the document sees them, its owner (an admin) included.
    const stored = await req('GET', '/_replicator/creds');
    assert.match(stored.json.source.auth.basic.password, /^divan-encrypted-v1-/);
    assert.match(stored.json.target.headers.Authorization, /^divan-encrypted-v1-/);
    await req('GET', '/_replicator/creds', undefined, bob);
    await req('GET', '/_replicator/_all_docs?include_docs=true');
    await req('GET', '/_replicator/_changes?include_docs=true');
    // Written back as read (Fauxton's edit), the encrypted values stay good: the job still runs.
    const again = await req('PUT', '/_replicator/creds', {
      ...stored.json,
      target: { ...stored.json.target, url: `${t.url}/credcopy2` },
    });
    assert.equal(again.status, 201);
    await until(async () => (await req('GET', '/credcopy2')).json?.doc_count === 5, 'copied again');
    // A password in the URL too.
    const inUrl = `${t.url.replace('://', `://${ADMIN.name}:${ADMIN.password}@`)}/src`;
    assert.equal(
      (
        await req('PUT', '/_replicator/url-creds', {
          source: inUrl,
          target: 'urlcopy',
          create_target: true,
          user_ctx: { roles: ['_admin'] },
        })
      ).status,
      201,
    );
    await until(
      async () => (await req('GET', '/_replicator/url-creds')).json._replication_state === 'completed',
      'completed',
    );
    assert.equal((await req('GET', '/urlcopy')).json.doc_count, 5);
    assert.match(
      (await req('GET', '/_replicator/url-creds')).json.source,
      /^http:\/\/admin:divan-encrypted-v1-[A-Za-z0-9_-]+@127/,
    );
    assert.equal((await req('DELETE', `/_replicator/creds?rev=${again.json.rev}`)).status, 200);
  });
});
