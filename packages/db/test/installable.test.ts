// `npm pack` of @divan/db (with @divan/router, its dependency) installs in a fresh project
// outside this repository (building its native addons there), and the README's embedded example
// and the `divan` command work in it.
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const dbDir = fileURLToPath(new URL('../../', import.meta.url));
const repoRoot = join(dbDir, '..', '..');
let dir = '';
let app = '';

// Installing builds better-sqlite3, isolated-vm and the ICU addon from source: minutes, not seconds.
before(
  () => {
    dir = mkdtempSync(join(tmpdir(), 'divan-db-install-'));
    app = join(dir, 'app');
    for (const pkg of ['router', 'db']) {
      execFileSync('npm', ['pack', '--pack-destination', dir], { cwd: join(repoRoot, 'packages', pkg), stdio: 'pipe' });
    }
    const tarballs = readdirSync(dir).filter((f) => f.endsWith('.tgz'));
    assert.equal(tarballs.length, 2, `two tarballs, got ${tarballs.join(', ')}`);
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    execFileSync(
      'npm',
      ['install', '--no-audit', '--no-fund', '--prefer-offline', ...tarballs.map((t) => join(dir, t))],
      { cwd: app, stdio: 'pipe', timeout: 900_000 },
    );
  },
  { timeout: 900_000 },
);

after(() => rmSync(dir, { recursive: true, force: true }));

/** The first ```ts block after a heading of the README. */
function readmeExample(heading: string): string {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const at = readme.indexOf(heading);
  assert.ok(at >= 0, `README has no "${heading}"`);
  const block = /```ts\n([\s\S]*?)```/.exec(readme.slice(at));
  assert.ok(block?.[1], `no ts example under "${heading}"`);
  return block[1];
}

test("the README's embedded example runs in the fresh project, on a fresh folder and again", () => {
  const example = readmeExample('### Embedded').replace(
    /await db\.view\(([^;]*)\);/,
    'console.log(JSON.stringify(await db.view($1)));',
  );
  writeFileSync(join(app, 'embedded.mjs'), example);
  for (let round = 0; round < 2; round++) {
    const run = spawnSync(process.execPath, ['--no-node-snapshot', 'embedded.mjs'], {
      cwd: app,
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.trim(), '{"rows":[{"key":"ann","value":1}]}', `round ${round}`);
  }
});

test('the installed divan command prints its version and serves CouchDB and Fauxton', async () => {
  const bin = join(app, 'node_modules', '.bin', 'divan');
  const version = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  assert.equal(version.status, 0, version.stderr);
  assert.match(version.stdout, /^\d+\.\d+\.\d+\n$/);
  const server = spawn(bin, ['serve', '--port', '0', '--data', join(dir, 'data'), '--admin', 'admin:pw'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      server.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /listening on (http:\/\/\S+)/.exec(out);
        if (match?.[1] !== undefined) resolve(match[1]);
      });
      server.on('exit', (code) => reject(new Error(`divan exited (${code}): ${out}`)));
    });
    const welcome = (await (await fetch(`${url}/`)).json()) as { couchdb: string };
    assert.equal(welcome.couchdb, 'Welcome');
    const auth = { authorization: `Basic ${Buffer.from('admin:pw').toString('base64')}` };
    assert.equal((await fetch(`${url}/books`, { method: 'PUT', headers: auth })).status, 201);
    // Fauxton came with the install (its postinstall step), and is served.
    const fauxton = await fetch(`${url}/_utils/`);
    assert.equal(fauxton.status, 200);
    assert.match(await fauxton.text(), /<title>Project Fauxton<\/title>/);
  } finally {
    server.kill('SIGTERM');
  }
});
