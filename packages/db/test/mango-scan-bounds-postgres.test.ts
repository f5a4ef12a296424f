import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';

// The scans of ./mango-scan-bounds.test.ts on PostgreSQL, which reads every document of a scan
// (judging the bounds in its statement did not lower the scan's CPU: docs/benchmarks.md, PostgreSQL,
// session 45): the test servers of this process store in a fresh schema of the test PostgreSQL.
process.env.DIVAN_TEST_STORAGE = 'postgres';
await import('./mango-scan-bounds.test.js');

/**
 * Bodies spelled as the document layer accepts them but PostgreSQL's JSON functions read
 * differently or not at all (`\u0000`, escapes, spaces, duplicate members, deep nesting): a scan
 * with bounds finds and counts what the same scan without them does, and never fails (a guard for
 * any statement that judges bounds on PostgreSQL: commit 32031f5 tried one).
 */
describe('Mango scans with number bounds on bodies PostgreSQL reads its own way', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/odd');
    const deep = `${'['.repeat(990)}1${']'.repeat(990)}`;
    for (const [id, body] of [
      ['a-nul', '{"s":"\\u0000","n":5}'],
      ['a-nul-key', '{"\\u0000":1,"n":-5}'],
      ['a-escaped-name', '{"\\u006e":5}'],
      ['a-escaped-text', '{"s":"\\u00e9\\ud83d\\ude00","n":-5}'],
      ['a-backslash', '{"s":"\\\\u0000","n":5}'],
      ['a-spaces', '{ "n" : 5 , "m" : 1 }'],
      ['a-duplicate', '{"n":-5,"n":5}'],
      ['a-duplicate2', '{"n":5,"n":-5}'],
      ['a-minus-zero', '{"n":-0}'],
      ['a-float-int', '{"n":5.0}'],
      ['a-exp', '{"n":5E0}'],
      ['a-tiny', '{"n":1e-400}'],
      ['a-digits18', '{"n":999999999999999999}'],
      ['a-digits19', '{"n":-9999999999999999999}'],
      ['a-string', '{"n":"5"}'],
      ['a-deep', `{"d":${deep},"n":5}`],
      ['a-nested', '{"o":{"n":-5},"n":5}'],
    ]) {
      const r = await t.request('PUT', `/odd/${id}`, { body, headers: { 'content-type': 'application/json' } });
      assert.equal(r.status, 201, `${id}: ${JSON.stringify(r.json)}`);
    }
  });
  after(() => t.close());

  it('finds and counts what a scan without bounds does', async () => {
    for (const op of ['$eq', '$lt', '$lte', '$gt', '$gte']) {
      for (const arg of [-6, -5, -0.5, 0, 0.5, 5, 6, 1e18, -1e18]) {
        const query = { selector: { n: { [op]: arg } }, execution_stats: true };
        const bounded = await t.request('POST', '/odd/_find', { body: query });
        const plain = await t.request('POST', '/odd/_find', { body: { ...query, conflicts: true } });
        const what = JSON.stringify(query);
        assert.equal(bounded.status, 200, `${what}: ${JSON.stringify(bounded.json)}`);
        assert.deepEqual(bounded.json.docs, plain.json.docs, what);
        const { execution_time_ms: _a, ...stats } = bounded.json.execution_stats as Record<string, number>;
        const { execution_time_ms: _b, ...plainStats } = plain.json.execution_stats as Record<string, number>;
        assert.deepEqual(stats, plainStats, what);
      }
    }
  });
});
