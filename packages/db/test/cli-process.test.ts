/**
 * The process a shell or supervisor starts ends the server when it is killed: `kill -9` or
 * SIGTERM of the started pid frees the port and the data folder, whether that process is the
 * server itself (node with --no-node-snapshot) or bin/divan.js's launcher (node without it).
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { after, describe, test } from 'node:test';
import { lockFolder } from '../src/storage/folder-lock.js';
import { startChildServer } from './support/child-server.js';
import { makeTempDir } from './support/tmp-dir.js';
import { until } from './support/until.js';

function portRefuses(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

function folderFree(dir: string): boolean {
  try {
    lockFolder(dir).release();
    return true;
  } catch {
    return false;
  }
}

async function up(url: string): Promise<boolean> {
  return (await fetch(`${url}/_up`)).status === 200;
}

for (const launcher of [true, false]) {
  const form = launcher ? 'through the launcher (node without the flag)' : 'as the server itself';
  describe(`divan started ${form}`, () => {
    const temp = makeTempDir('divan-process-');
    after(() => temp.cleanup());

    for (const signal of ['SIGKILL', 'SIGTERM'] as const) {
      test(`${signal} of the started pid ends the server: port and data folder free`, async () => {
        const dir = `${temp.dir}/${signal}`;
        const server = await startChildServer(['--data', dir, '--admin', 'admin:secret'], {}, { launcher });
        assert.ok(await up(server.url));
        assert.equal(folderFree(dir), false, 'the running server holds the data folder');
        server.child.kill(signal);
        assert.equal(await server.exited, signal === 'SIGKILL' ? 'SIGKILL' : 0, 'SIGTERM is a graceful stop');
        await until(() => portRefuses(server.url), 'the port is free');
        await until(async () => folderFree(dir), 'the data folder lock is released');
      });
    }
  });
}

describe('the launcher', () => {
  const temp = makeTempDir('divan-launcher-flags-');
  after(() => temp.cleanup());

  test("starts the server in a node with bin/node-flags.json's flags (Linux: read from /proc)", async (t) => {
    const server = await startChildServer(
      ['--data', `${temp.dir}/data`, '--admin', 'admin:secret'],
      {},
      { launcher: true },
    );
    t.after(async () => {
      server.child.kill('SIGTERM');
      await server.exited;
    });
    const pid = server.child.pid!;
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/);
    assert.equal(children.length, 1, 'one server process');
    const argv = readFileSync(`/proc/${children[0]}/cmdline`, 'utf8').split('\0');
    const wanted = JSON.parse(readFileSync(new URL('../../bin/node-flags.json', import.meta.url), 'utf8')) as string[];
    assert.ok(wanted.includes('--max-semi-space-size=8'));
    for (const flag of wanted) assert.ok(argv.includes(flag), `${flag} in ${argv.join(' ')}`);
  });

  test("starts the server with bin/node-env.json's environment; a variable already set wins (Linux)", async (t) => {
    const wanted = JSON.parse(readFileSync(new URL('../../bin/node-env.json', import.meta.url), 'utf8')) as Record<
      string,
      string
    >;
    assert.equal(wanted.MALLOC_ARENA_MAX, '2');
    const environOf = async (env: Record<string, string>, dir: string) => {
      const server = await startChildServer(['--data', `${temp.dir}/${dir}`, '--admin', 'admin:secret'], env, {
        launcher: true,
      });
      t.after(async () => {
        server.child.kill('SIGTERM');
        await server.exited;
      });
      const pid = server.child.pid!;
      const child = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
      return readFileSync(`/proc/${child}/environ`, 'utf8').split('\0');
    };
    const environ = await environOf({}, 'env-default');
    for (const [name, value] of Object.entries(wanted)) {
      assert.ok(environ.includes(`${name}=${process.env[name] ?? value}`), name);
    }
    const given = await environOf({ MALLOC_ARENA_MAX: '4' }, 'env-given');
    assert.ok(given.includes('MALLOC_ARENA_MAX=4'));
  });
});

describe('--jwt', () => {
  const temp = makeTempDir('divan-jwt-flag-');
  after(() => temp.cleanup());

  test('a missing file is a clear message, not a raw ENOENT', async () => {
    const missing = `${temp.dir}/nowhere/keys.json`;
    await assert.rejects(startChildServer(['--data', `${temp.dir}/data`, '--jwt', missing]), (err: Error) => {
      assert.match(
        err.message,
        /divan: cannot start the server: --jwt \S+keys\.json: cannot read the JWT keys file: there is no such file/,
      );
      assert.doesNotMatch(err.message, /ENOENT/);
      return true;
    });
  });

  test('a file that is not JSON says so', async () => {
    const file = `${temp.dir}/bad.json`;
    writeFileSync(file, '{"keys": ');
    await assert.rejects(
      startChildServer(['--data', `${temp.dir}/data`, '--jwt', file]),
      /--jwt \S+bad\.json: the JWT keys file is not JSON/,
    );
  });
});
