import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startServer, type RunningServer } from '../src/start-server.js';
import { request } from './support/server.js';

interface OwnPostgres {
  url: string;
  stop(): void;
  pause(): void;
  resume(): void;
}

/** A PostgreSQL of this test's own (scripts/postgres.mjs), so it can be stopped and started again. */
async function ownPostgres(): Promise<OwnPostgres> {
  const script = fileURLToPath(new URL('../../../../scripts/postgres.mjs', import.meta.url));
  const { startPostgres } = (await import(script)) as {
    startPostgres(options: { log(line: string): void }): Promise<OwnPostgres>;
  };
  return startPostgres({ log: () => {} });
}

/** While PostgreSQL is away requests answer 503; once it is back they work again, with no restart of Divan. */
describe('PostgreSQL restarted under a running server', () => {
  let pg: OwnPostgres;
  let server: RunningServer;
  const dataDir = mkdtempSync(join(tmpdir(), 'divan-pg-restart-'));
  const auth = { auth: `Basic ${Buffer.from('admin:pw').toString('base64')}` };
  before(async () => {
    pg = await ownPostgres();
    server = await startServer({
      port: 0,
      dataDir,
      admin: { name: 'admin', password: 'pw' },
      hashIterations: 10,
      storage: pg.url,
      log: () => {},
    });
  });
  after(async () => {
    await server?.close().catch(() => {});
    pg?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers 503 service_unavailable while PostgreSQL is down, and recovers by itself', async () => {
    const ask = (method: string, path: string, body?: unknown) =>
      request(server.url, method, path, { ...auth, ...(body === undefined ? {} : { body }) });
    assert.equal((await ask('PUT', '/db')).status, 201);
    assert.equal((await ask('PUT', '/db/before', { v: 1 })).status, 201);

    pg.pause();
    for (const [method, path, body] of [
      ['GET', '/db/before'],
      ['PUT', '/db/during', { v: 2 }],
      ['GET', '/db/_all_docs'],
    ] as const) {
      const r = await ask(method, path, body);
      assert.equal(r.status, 503, `${method} ${path}: ${r.text}`);
      assert.equal(r.json.error, 'service_unavailable');
    }
    const up = await ask('GET', '/_up');
    assert.equal(up.status, 503, 'a load balancer sends no requests to a node without its storage');
    assert.equal(up.json.error, 'service_unavailable');

    pg.resume();
    let back = await ask('GET', '/db/before');
    for (let i = 0; i < 50 && back.status !== 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      back = await ask('GET', '/db/before');
    }
    assert.equal(back.status, 200);
    assert.deepEqual((await ask('GET', '/_up')).json, { status: 'ok', seeds: {} });
    assert.equal((await ask('PUT', '/db/after', { v: 3 })).status, 201);
    assert.equal((await ask('GET', '/db/during')).status, 404, 'the write refused while away did not happen');
    assert.equal((await ask('GET', '/db')).json.doc_count, 2);
  });
});
