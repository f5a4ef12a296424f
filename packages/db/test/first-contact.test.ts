import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ADMINS_FILE_NAME } from '../src/auth/admins.js';
import { main } from '../src/cli/divan.js';
import { levelledLog } from '../src/server/log.js';
import { startServer } from '../src/start-server.js';
import { startChildServer } from './support/child-server.js';
import { makeTempDir } from './support/tmp-dir.js';

const run = promisify(execFile);

/** A port something else listens on. */
async function busyPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  assert.ok(address !== null && typeof address === 'object');
  return { port: address.port, server };
}

function captureIo() {
  const out = { stdout: '', stderr: '' };
  return { out, io: { stdout: (s: string) => void (out.stdout += s), stderr: (s: string) => void (out.stderr += s) } };
}

describe('first contact', () => {
  const tmp = makeTempDir('divan-first-');
  after(() => tmp.cleanup());

  it('a start on a port in use fails and leaves no generated admin whose password nobody saw', async () => {
    const busy = await busyPort();
    const dataDir = join(tmp.dir, 'busy');
    try {
      await assert.rejects(startServer({ port: busy.port, dataDir, hashIterations: 10, log: () => {} }), /EADDRINUSE/);
      assert.equal(existsSync(join(dataDir, ADMINS_FILE_NAME)), false);
      const { out, io } = captureIo();
      const code = await main(['serve', '--port', String(busy.port), '--data', dataDir], {}, io);
      assert.equal(code, 1);
      assert.match(out.stderr, /cannot start the server/);
      assert.doesNotMatch(out.stdout, /password/);
      assert.equal(existsSync(join(dataDir, ADMINS_FILE_NAME)), false);
    } finally {
      busy.server.close();
    }
    // The next start that works creates the admin and says its password.
    const ok = await startServer({ port: 0, dataDir, hashIterations: 10, log: () => {} });
    try {
      assert.ok(ok.createdAdmin !== undefined);
      assert.equal(existsSync(join(dataDir, ADMINS_FILE_NAME)), true);
    } finally {
      await ok.close();
    }
  });

  it('one server per data folder: a second start fails with the reason, until the first closes or dies', async () => {
    const dataDir = join(tmp.dir, 'shared-folder');
    const first = await startServer({ port: 0, dataDir, hashIterations: 10, log: () => {} });
    let firstOpen = true;
    let restarted: Awaited<ReturnType<typeof startServer>> | undefined;
    try {
      const inUse = /the data folder .* is in use by another Divan server/;
      await assert.rejects(startServer({ port: 0, dataDir, hashIterations: 10, log: () => {} }), inUse);
      const { out, io } = captureIo();
      assert.equal(await main(['serve', '--port', '0', '--data', dataDir], {}, io), 1);
      assert.match(out.stderr, inUse);
      // The first server was not disturbed.
      const auth = `Basic ${Buffer.from(`admin:${first.createdAdmin?.password}`).toString('base64')}`;
      assert.equal((await fetch(`${first.url}/kept`, { method: 'PUT', headers: { authorization: auth } })).status, 201);
      await first.close();
      firstOpen = false;
      restarted = await startServer({ port: 0, dataDir, hashIterations: 10, log: () => {} });
      assert.equal((await fetch(`${restarted.url}/kept`, { headers: { authorization: auth } })).status, 200);
    } finally {
      if (firstOpen) await first.close();
      await restarted?.close();
    }
    // A server killed with SIGKILL leaves the folder free: the operating system drops its lock.
    const child = await startChildServer(['--data', dataDir, '--admin', 'admin:pw']);
    await assert.rejects(startServer({ port: 0, dataDir, hashIterations: 10, log: () => {} }), /in use/);
    child.child.kill('SIGKILL');
    await child.exited;
    const after9 = await startServer({ port: 0, dataDir, hashIterations: 10, log: () => {} });
    await after9.close();
  });

  it('a data folder that cannot be made fails the start with the reason', async () => {
    const file = join(tmp.dir, 'a-file');
    writeFileSync(file, 'not a folder');
    await assert.rejects(startServer({ port: 0, dataDir: join(file, 'data'), log: () => {} }), /ENOTDIR|EEXIST/);
  });

  it('startServer needs no host (127.0.0.1) and no port (5984) to be given', async () => {
    const server = await startServer({ port: 0, dataDir: join(tmp.dir, 'nohost'), hashIterations: 10, log: () => {} });
    try {
      assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.equal((await fetch(`${server.url}/_up`)).status, 200);
    } finally {
      await server.close();
    }
  });

  it('divan --version, serve --version and serve --help answer without starting anything', async () => {
    for (const argv of [['--version'], ['serve', '--version']]) {
      const { out, io } = captureIo();
      assert.equal(await main(argv, {}, io), 0);
      assert.match(out.stdout, /^\d+\.\d+\.\d+\n$/);
    }
    const { out, io } = captureIo();
    assert.equal(await main(['serve', '--help'], {}, io), 0);
    assert.match(out.stdout, /--log-level/);
  });

  it('one log line per request at info, none at warn; debug lines only at debug', async () => {
    const lines: string[] = [];
    const server = await startServer({
      port: 0,
      dataDir: join(tmp.dir, 'log'),
      hashIterations: 10,
      admin: { name: 'admin', password: 'pw' },
      log: levelledLog('info', (line) => lines.push(line)),
    });
    try {
      const auth = `Basic ${Buffer.from('admin:pw').toString('base64')}`;
      await fetch(`${server.url}/_up`);
      await fetch(`${server.url}/nodb`, { headers: { authorization: auth } });
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.ok(
        lines.some((l) => /^\d{4}-\d\d-\d\dT[\d:.]+Z \[info\] GET \/_up 200 [\d.]+ms -$/.test(l)),
        lines.join('\n'),
      );
      assert.ok(
        lines.some((l) => /\[info\] GET \/nodb 404 [\d.]+ms admin not_found: Database does not exist\.$/.test(l)),
      );
    } finally {
      await server.close();
    }
    const quiet: string[] = [];
    const warn = levelledLog('warn', (line) => quiet.push(line));
    warn('[info] GET / 200');
    warn('[debug] a stack');
    warn('[error] broken');
    assert.deepEqual(
      quiet.map((l) => l.replace(/^\S+ /, '')),
      ['[error] broken'],
    );
    const all: string[] = [];
    levelledLog('debug', (line) => all.push(line))('[debug] a stack');
    assert.equal(all.length, 1);
    const none: string[] = [];
    levelledLog('none', (line) => none.push(line))('[error] broken');
    assert.equal(none.length, 0);
  });

  it("the README's embedded example runs on a fresh folder and again on the same folder", async () => {
    const dir = join(tmp.dir, 'embedded');
    const index = fileURLToPath(new URL('../src/index.js', import.meta.url));
    const script = `
      import { openDivan } from ${JSON.stringify(index)};
      const divan = openDivan(${JSON.stringify(dir)});
      const db = await divan.database('posts');
      await db.upsert({ _id: '_design/app', views: { by_author: { map: 'function (d) { emit(d.author, 1) }', reduce: '_count' } } });
      await db.upsert({ _id: 'p1', author: 'ann' });
      console.log(JSON.stringify(await db.view('app', 'by_author', { group: true })));
      await divan.close();`;
    const env = { ...process.env, NODE_OPTIONS: '' };
    for (let round = 0; round < 2; round++) {
      const { stdout } = await run(process.execPath, ['--no-node-snapshot', '--input-type=module', '-e', script], {
        env,
      });
      assert.equal(stdout.trim(), '{"rows":[{"key":"ann","value":1}]}', `round ${round}`);
    }
    // Without --no-node-snapshot, the first query of a view the sandbox maps says what node needs.
    // (The example's own map function is of the shape the server maps without the sandbox,
    // views/native-map; a method call is not.)
    const sandboxed = script.replace('emit(d.author, 1)', 'emit(d.author.toUpperCase(), 1)');
    assert.notEqual(sandboxed, script);
    const failed = await run(process.execPath, ['--input-type=module', '-e', sandboxed], { env }).then(
      () => assert.fail('expected the example to fail without --no-node-snapshot'),
      (error: { stderr: string }) => error.stderr,
    );
    assert.match(failed, /needs node to run with --no-node-snapshot/);
  });
});
