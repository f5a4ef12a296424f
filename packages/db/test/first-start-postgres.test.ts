/**
 * Two nodes started at the same moment on a new PostgreSQL schema, without `--admin`: one of
 * them generates the admin that both use (the other prints no password), and they share one
 * cookie secret.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { startServer, type RunningServer } from '../src/start-server.js';
import { dropSchema, freshSchema, testPostgresUrl } from './support/postgres.js';
import { makeTempDir } from './support/tmp-dir.js';

describe('two nodes started at once on a new PostgreSQL schema', () => {
  const url = testPostgresUrl();
  const cleanups: (() => Promise<void> | void)[] = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  async function startTogether(): Promise<[RunningServer, RunningServer]> {
    if (url instanceof Error) throw url;
    const schema = freshSchema('first_start');
    cleanups.push(() => dropSchema(url, schema));
    const start = () => {
      const temp = makeTempDir('divan-first-start-');
      cleanups.push(() => temp.cleanup());
      return startServer({
        port: 0,
        dataDir: temp.dir,
        storage: { url, schema },
        hashIterations: 10,
        log: () => {},
      });
    };
    const nodes = await Promise.all([start(), start()]);
    for (const node of nodes) cleanups.push(() => node.close());
    return nodes;
  }

  const basic = (name: string, password: string) => `Basic ${Buffer.from(`${name}:${password}`).toString('base64')}`;

  for (const round of [1, 2, 3]) {
    it(`agree on one generated admin, whose password works on both (round ${round})`, async () => {
      const [a, b] = await startTogether();
      const created = [a.createdAdmin, b.createdAdmin].filter((admin) => admin !== undefined);
      assert.equal(created.length, 1, 'exactly one node prints a generated password');
      const { name, password } = created[0]!;
      for (const node of [a, b]) {
        const session = await fetch(`${node.url}/_session`, { headers: { authorization: basic(name, password) } });
        assert.equal(session.status, 200, `the admin logs in on ${node.url}`);
        assert.deepEqual(((await session.json()) as any).userCtx.roles, ['_admin']);
      }
      // One cookie secret: a session cookie of one node is valid on the other.
      const login = await fetch(`${a.url}/_session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name, password }),
      });
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
      const other = await fetch(`${b.url}/_session`, { headers: { cookie } });
      assert.equal(((await other.json()) as any).userCtx.name, name);
    });
  }
});
