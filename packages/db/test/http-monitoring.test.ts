/**
 * Monitoring: `/_node/_local/_stats` with CouchDB's metric names and shapes for what Divan does,
 * `/_node/_local/_prometheus` in Prometheus' text format, and the `_metrics` role that reads them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN, startTestServer, type TestServer } from './support/server.js';
import { until } from './support/until.js';
import { basic, createUser } from './support/users.js';

describe('monitoring', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    await createUser(t, 'watcher', 'pw', ['_metrics']);
    await createUser(t, 'plain', 'pw');
  });
  after(() => t.close());

  const stats = async (): Promise<any> => (await t.request('GET', '/_node/_local/_stats')).json;
  const value = (tree: any, path: string) => path.split('.').reduce((node, part) => node[part], tree).value;

  it("_stats has CouchDB's groups, names and shapes", async () => {
    const tree = await stats();
    for (const method of ['COPY', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT']) {
      assert.deepEqual(Object.keys(tree.couchdb.httpd_request_methods[method]), ['value', 'type', 'desc']);
    }
    assert.deepEqual(tree.couchdb.httpd_status_codes['404'], {
      value: tree.couchdb.httpd_status_codes['404'].value,
      type: 'counter',
      desc: 'number of HTTP 404 Not Found responses',
    });
    assert.deepEqual(tree.couchdb.database_reads.desc, 'number of times a document was read from a database');
    const time = tree.couchdb.request_time;
    assert.equal(time.type, 'histogram');
    assert.deepEqual(Object.keys(time.value), [
      'min',
      'max',
      'arithmetic_mean',
      'geometric_mean',
      'harmonic_mean',
      'median',
      'variance',
      'standard_deviation',
      'skewness',
      'kurtosis',
      'percentile',
      'histogram',
      'n',
    ]);
    assert.deepEqual(
      time.value.percentile.map(([p]: [number]) => p),
      [50, 75, 90, 95, 99, 999],
    );
    assert.equal(tree.mango.query_time.type, 'histogram');
    const one = await t.request('GET', '/_node/_local/_stats/couchdb/open_databases');
    assert.deepEqual(Object.keys(one.json), ['value', 'type', 'desc']);
    assert.equal((await t.request('GET', '/_node/_local/_stats/couchdb/nothing')).status, 404);
  });

  it('counts requests, document reads and writes, bulk, view and Mango requests, open databases', async () => {
    const before = await stats();
    assert.equal((await t.request('PUT', '/counted')).status, 201);
    assert.equal((await t.request('PUT', '/counted/a', { body: { n: 1 } })).status, 201);
    assert.equal((await t.request('PUT', '/counted/_local/l', { body: {} })).status, 201);
    assert.equal((await t.request('GET', '/counted/a')).status, 200);
    assert.equal((await t.request('GET', '/counted/missing')).status, 404);
    const bulk = await t.request('POST', '/counted/_bulk_docs', {
      body: {
        docs: [
          { _id: 'b', n: 2 },
          { _id: 'c', n: 3 },
        ],
      },
    });
    assert.equal(bulk.status, 201);
    const ddoc = { views: { n: { map: 'function (doc) { emit(doc.n, null); }' } } };
    assert.equal((await t.request('PUT', '/counted/_design/d', { body: ddoc })).status, 201);
    assert.equal((await t.request('GET', '/counted/_design/d/_view/n')).status, 200);
    const find = await t.request('POST', '/counted/_find', { body: { selector: { n: { $gt: 1 } } } });
    assert.equal(find.json.docs.length, 2);
    let after: any;
    await until(async () => {
      after = await stats();
      return value(after, 'couchdb.httpd.requests') - value(before, 'couchdb.httpd.requests') >= 9 + 1;
    }, 'every request counted');
    const delta = (path: string) => value(after, path) - value(before, path);
    assert.equal(delta('couchdb.database_reads'), 1, 'one document read (the 404 is no read)');
    assert.equal(delta('couchdb.database_writes'), 3, 'a PUT, a _bulk_docs, a design document');
    assert.equal(delta('couchdb.local_document_writes'), 1);
    assert.equal(delta('couchdb.httpd.bulk_requests'), 1);
    assert.equal(delta('couchdb.httpd.view_reads'), 1);
    assert.equal(delta('mango.unindexed_queries'), 1);
    assert.equal(delta('mango.results_returned'), 2);
    assert.ok(delta('mango.docs_examined') >= 2);
    assert.equal(delta('couchdb.httpd_request_methods.PUT'), 4);
    assert.ok(delta('couchdb.httpd_status_codes.404') >= 1);
    assert.ok(value(after, 'couchdb.open_databases') >= 1);
    assert.ok(value(after, 'couchdb.request_time').n > 0);
    assert.ok(value(after, 'mango.query_time').n >= 1);
  });

  it('counts authentication cache hits and misses', async () => {
    const before = await stats();
    for (let i = 0; i < 3; i++) {
      assert.equal((await t.request('GET', '/_session', { auth: basic('plain', 'pw') })).json.userCtx.name, 'plain');
    }
    let after: any;
    await until(async () => {
      after = await stats();
      return value(after, 'couchdb.auth_cache_hits') - value(before, 'couchdb.auth_cache_hits') >= 3;
    }, 'the cache hits counted');
    // The first login of the user's password runs PBKDF2 (a miss), the two after it are hits;
    // the admin's own requests for _stats are hits too.
    assert.equal(value(after, 'couchdb.auth_cache_misses') - value(before, 'couchdb.auth_cache_misses'), 1);
  });

  it('_prometheus answers the statistics in Prometheus text format, under CouchDB names', async () => {
    await t.request('GET', '/counted/a');
    const r = await t.request('GET', '/_node/_local/_prometheus');
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'text/plain; version=2.0');
    const lines = r.text.trimEnd().split('\n');
    for (const line of lines) {
      if (line.startsWith('# '))
        assert.match(line, /^# (HELP couchdb_\w+ .+|TYPE couchdb_\w+ (counter|gauge|summary))$/);
      else assert.match(line, /^couchdb_\w+(\{\w+="[^"]*"\})? -?\d+(\.\d+)?(e[-+]?\d+)?$/, line);
    }
    assert.ok(lines.includes('# TYPE couchdb_database_reads_total counter'));
    assert.ok(lines.some((line) => /^couchdb_database_reads_total [1-9]\d*$/.test(line)));
    assert.ok(lines.includes('# TYPE couchdb_httpd_request_methods counter'));
    assert.ok(lines.some((line) => /^couchdb_httpd_request_methods\{method="GET"\} [1-9]\d*$/.test(line)));
    assert.ok(lines.some((line) => /^couchdb_httpd_status_codes\{code="200"\} [1-9]\d*$/.test(line)));
    assert.ok(lines.includes('# TYPE couchdb_open_databases gauge'));
    assert.ok(lines.includes('# TYPE couchdb_request_time_seconds summary'));
    assert.ok(lines.some((line) => line.startsWith('couchdb_request_time_seconds{quantile="0.99"} ')));
    assert.ok(lines.some((line) => /^couchdb_request_time_seconds_count [1-9]\d*$/.test(line)));
    assert.ok(lines.includes('# TYPE couchdb_auth_cache_requests_total counter'));
    assert.ok(lines.includes('# TYPE couchdb_uptime_seconds gauge'));
  });

  it("the replicator's jobs: couch_replicator.jobs gauges in _stats and _prometheus, read at the moment", async () => {
    const jobs = async () => {
      const tree = (await stats()).couch_replicator.jobs;
      return ['running', 'pending', 'crashed', 'total'].map((state) => tree[state].value);
    };
    assert.deepEqual((await stats()).couch_replicator.jobs.running, {
      value: 0,
      type: 'gauge',
      desc: 'replicator scheduler running jobs',
    });
    assert.deepEqual(await jobs(), [0, 0, 0, 0]);
    await t.request('PUT', '/repl_src');
    const body = { source: 'repl_src', target: 'repl_tgt', create_target: true, continuous: true };
    const started = await t.request('POST', '/_replicate', { body });
    assert.equal(started.status, 202, started.text);
    await until(async () => (await jobs())[0] === 1, 'the continuous job running');
    assert.deepEqual(await jobs(), [1, 0, 0, 1]);
    const text = (await t.request('GET', '/_node/_local/_prometheus')).text.split('\n');
    assert.ok(text.includes('# TYPE couchdb_couch_replicator_jobs_running gauge'), text.join('\n'));
    assert.ok(text.includes('couchdb_couch_replicator_jobs_running 1'));
    assert.ok(text.includes('couchdb_couch_replicator_jobs_total 1'));
    const cancelled = await t.request('POST', '/_replicate', { body: { ...body, cancel: true } });
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.deepEqual(await jobs(), [0, 0, 0, 0]);
  });

  it("the replicator's counters: requests and answers, checkpoints, jobs, the documents' processor", async () => {
    const before = await stats();
    assert.equal((await t.request('PUT', '/rc_src')).status, 201);
    const docs = [{ _id: 'a' }, { _id: 'b' }, { _id: 'c' }];
    assert.equal((await t.request('POST', '/rc_src/_bulk_docs', { body: { docs } })).status, 201);
    // A remote source (this server over HTTP): its requests and answers are counted.
    const remote = { url: `${t.url}/rc_src`, auth: { basic: { username: ADMIN.name, password: ADMIN.password } } };
    const once = await t.request('POST', '/_replicate', {
      body: { source: remote, target: 'rc_tgt', create_target: true },
    });
    assert.equal(once.status, 200, once.text);
    assert.equal(once.json.history[0].docs_written, 3);
    // A continuous job asked for twice (a duplicate add), then cancelled (stopped and removed).
    const continuous = { source: 'rc_src', target: 'rc_tgt', continuous: true };
    assert.equal((await t.request('POST', '/_replicate', { body: continuous })).status, 202);
    assert.equal((await t.request('POST', '/_replicate', { body: continuous })).status, 202);
    const cancelled = await t.request('POST', '/_replicate', { body: { ...continuous, cancel: true } });
    assert.equal(cancelled.status, 200, cancelled.text);
    // The documents' processor: a replicator database created, a document completed, one failed.
    assert.equal((await t.request('PUT', '/_replicator')).status, 201);
    const doc = { source: 'rc_src', target: 'rc_doc', create_target: true, user_ctx: { roles: ['_admin'] } };
    assert.equal((await t.request('PUT', '/_replicator/done', { body: doc })).status, 201);
    assert.equal(
      (await t.request('PUT', '/_replicator/bad', { body: { source: 'Not A Name!', target: 'x' } })).status,
      201,
    );
    const stateOf = async (id: string) => (await t.request('GET', `/_replicator/${id}`)).json._replication_state;
    await until(async () => (await stateOf('done')) === 'completed', 'the document completed');
    await until(async () => (await stateOf('bad')) === 'failed', 'the unreadable document failed');
    const after = await stats();
    const delta = (path: string) =>
      value(after, `couch_replicator.${path}`) - value(before, `couch_replicator.${path}`);
    // Every request of the remote source got an answer: a 2xx or 4xx, none a failure.
    assert.ok(delta('requests') >= 4, `requests: ${delta('requests')}`);
    assert.equal(delta('responses.success'), delta('requests'));
    assert.equal(delta('responses.failure'), 0);
    assert.ok(delta('checkpoints.success') >= 2, 'the one-shot job and the document job checkpointed');
    assert.equal(delta('checkpoints.failure'), 0);
    assert.equal(delta('jobs.adds'), 3, 'the one-shot, the continuous job, the document');
    assert.equal(delta('jobs.duplicate_adds'), 1);
    assert.equal(delta('jobs.starts'), 3);
    assert.equal(delta('jobs.removes'), 1, 'the cancelled job');
    assert.equal(delta('jobs.stops'), 1, 'the cancelled job, while it ran');
    assert.equal(delta('jobs.crashes'), 0);
    // Created here, found by a listing that came first: either way seen once.
    assert.equal(delta('docs.dbs_created') + delta('docs.dbs_found'), 1);
    assert.ok(delta('docs.db_changes') >= 2, 'the two documents (and the states written back)');
    assert.equal(delta('docs.completed_state_updates'), 1);
    assert.equal(delta('docs.failed_state_updates'), 1);
    assert.deepEqual(after.couch_replicator.checkpoints.success, {
      value: value(after, 'couch_replicator.checkpoints.success'),
      type: 'counter',
      desc: 'number of checkpoints successfully saves',
    });
    // Prometheus: a success counter is its group's total, failures apart (couch_prometheus' names).
    const text = (await t.request('GET', '/_node/_local/_prometheus')).text.split('\n');
    const sample = (name: string) => Number(text.find((line) => line.startsWith(`${name} `))?.split(' ')[1]);
    assert.ok(text.includes('# TYPE couchdb_couch_replicator_responses_total counter'), text.join('\n'));
    assert.ok(sample('couchdb_couch_replicator_responses_total') >= value(after, 'couch_replicator.requests'));
    assert.equal(sample('couchdb_couch_replicator_responses_failure_total'), 0);
    assert.ok(text.includes('# HELP couchdb_couch_replicator_checkpoints_total number of checkpoint saves'));
    assert.ok(sample('couchdb_couch_replicator_checkpoints_total') >= 2);
    assert.ok(sample('couchdb_couch_replicator_jobs_starts_total') >= 3);
    assert.ok(sample('couchdb_couch_replicator_requests_total') >= 4);
    assert.ok(!text.some((line) => line.startsWith('couchdb_couch_replicator_responses_success')));
  });

  it("the replicator's failures: a source gone is a failed changes read and a crash, its restart a failed start", async () => {
    const far = await startTestServer();
    const near = await startTestServer({ settings: { replicator: { intervalMs: 200, crashBackoffMs: 300 } } });
    try {
      const counters = async () => (await near.request('GET', '/_node/_local/_stats')).json.couch_replicator;
      assert.equal((await far.request('PUT', '/away')).status, 201);
      assert.equal((await far.request('PUT', '/away/one', { body: {} })).status, 201);
      const source = { url: `${far.url}/away`, auth: { basic: { username: ADMIN.name, password: ADMIN.password } } };
      const body = { source, target: 'back', create_target: true, continuous: true, retries_per_request: 0 };
      const started = await near.request('POST', '/_replicate', { body });
      assert.equal(started.status, 202, started.text);
      await until(async () => (await near.request('GET', '/back/one')).status === 200, 'copied');
      await far.close();
      let seen: any;
      await until(async () => {
        seen = await counters();
        return seen.jobs.crashes.value >= 2 && seen.failed_starts.value >= 1;
      }, 'crashes, then a start that could not open the source');
      assert.ok(seen.changes_read_failures.value >= 1, JSON.stringify(seen));
      assert.ok(seen.responses.failure.value === 0, 'a peer that does not answer is no failed answer');
      assert.equal(seen.jobs.crashed.value, 1, 'the gauge: one job crashing');
      // By its id: its source can no longer be opened to compute it.
      const id = started.json._local_id as string;
      const cancelled = await near.request('POST', '/_replicate', { body: { replication_id: id, cancel: true } });
      assert.equal(cancelled.status, 200, cancelled.text);
    } finally {
      await near.close();
      await far.close();
    }
  });

  it('the _metrics role reads _stats, _system and _prometheus, and nothing an admin reads', async () => {
    const watcher = { auth: basic('watcher', 'pw') };
    for (const path of [
      '/_node/_local/_stats',
      '/_node/_local/_stats/couchdb',
      '/_node/_local/_system',
      '/_node/_local/_prometheus',
    ]) {
      assert.equal((await t.request('GET', path, watcher)).status, 200, path);
      for (const other of [{ auth: basic('plain', 'pw') }, { auth: false as const }]) {
        const refused = await t.request('GET', path, other);
        assert.equal(refused.status, 401, path);
        assert.deepEqual(refused.json, {
          error: 'unauthorized',
          reason: 'You are not a server admin or read-only metrics user',
        });
      }
    }
    assert.equal((await t.request('GET', '/_node/_local/_config', watcher)).status, 401);
    assert.equal((await t.request('PUT', '/not-for-metrics', watcher)).status, 401);
  });
});
