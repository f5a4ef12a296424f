import { POSTS_TABLE } from './support/posts-table.js';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// This file runs from dist/test; the bin and the fixtures live in the source tree.
const packageRoot = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(packageRoot, 'bin', 'divan-routes.js');
const fixtures = join(packageRoot, 'test', 'fixtures');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real bin with node. */
function run(args: string[], options: { cwd?: string; nodeArgs?: string[] } = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...(options.nodeArgs ?? []), bin, ...args],
      { cwd: options.cwd ?? fixtures, encoding: 'utf8', timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const STATIC_TABLE = [
  'Prefix Verb URI Pattern          Handler#Action',
  ' posts GET  /posts(.:format)     posts#index',
  '  post GET  /posts/:id(.:format) posts#show',
  '',
].join('\n');

describe('divan-routes usage', () => {
  test('no FILE: usage on stderr, exit 2', async () => {
    const r = await run([]);
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /missing FILE/);
    assert.match(r.stderr, /Usage: divan-routes FILE/);
  });

  test('unknown flag: usage on stderr, exit 2', async () => {
    const r = await run(['static-routes.mjs', '--frobnicate']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unknown option: --frobnicate/);
    assert.match(r.stderr, /Usage: divan-routes FILE/);
  });

  test('a flag without its value, or two files: exit 2', async () => {
    assert.equal((await run(['static-routes.mjs', '--grep'])).code, 2);
    assert.equal((await run(['static-routes.mjs', '--types'])).code, 2);
    assert.equal((await run(['static-routes.mjs', 'other.mjs'])).code, 2);
  });

  test('--help: usage on stdout, exit 0', async () => {
    const r = await run(['--help']);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /Usage: divan-routes FILE/);
  });
});

describe('divan-routes FILE', () => {
  test('prints the route table of a .mjs file, resolved from the working directory', async () => {
    const r = await run(['static-routes.mjs']);
    assert.equal(r.stderr, '');
    assert.equal(r.code, 0);
    assert.equal(r.stdout, STATIC_TABLE);
  });

  test('an absolute path works from anywhere', async () => {
    const r = await run([join(fixtures, 'static-routes.mjs')], { cwd: tmpdir() });
    assert.equal(r.code, 0);
    assert.equal(r.stdout, STATIC_TABLE);
  });

  test('--grep filters the table; no match says so', async () => {
    const r = await run(['static-routes.mjs', '--grep', 'SHOW']);
    assert.equal(r.code, 0);
    assert.equal(
      r.stdout,
      ['Prefix Verb URI Pattern          Handler#Action', '  post GET  /posts/:id(.:format) posts#show', ''].join('\n'),
    );
    const g = await run(['static-routes.mjs', '-g', 'index']);
    assert.match(g.stdout, /posts#index/);
    assert.doesNotMatch(g.stdout, /posts#show/);
    const none = await run(['static-routes.mjs', '--grep=zzz']);
    assert.equal(none.code, 0);
    assert.match(none.stdout, /^No routes were found for this grep pattern\./);
  });

  test("-c filters by handler (a Rails controller name works), --expanded prints Rails' blocks", async () => {
    const r = await run(['static-routes.mjs', '-c', 'PostsController', '--expanded']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      r.stdout,
      [
        `--[ Route 1 ]${'-'.repeat(67)}`,
        'Prefix         | posts',
        'Verb           | GET',
        'URI            | /posts(.:format)',
        'Handler#Action | posts#index',
        `--[ Route 2 ]${'-'.repeat(67)}`,
        'Prefix         | post',
        'Verb           | GET',
        'URI            | /posts/:id(.:format)',
        'Handler#Action | posts#show',
        '',
      ].join('\n'),
    );
    const none = await run(['static-routes.mjs', '--handler=users']);
    assert.match(none.stdout, /^No routes were found for this handler\./);
  });

  test('--json prints list() as JSON, filtered by --grep', async () => {
    const r = await run(['static-routes.mjs', '--json']);
    assert.equal(r.code, 0);
    const list = JSON.parse(r.stdout) as Array<{ name: string; action: string }>;
    assert.deepEqual(
      list.map((x) => x.name),
      ['posts', 'post'],
    );
    assert.deepEqual(Object.keys(list[0]!), ['name', 'verb', 'path', 'handler', 'action', 'constraints', 'defaults']);
    const g = await run(['static-routes.mjs', '--json', '--grep', ':id']);
    assert.deepEqual(
      (JSON.parse(g.stdout) as Array<{ action: string }>).map((x) => x.action),
      ['show'],
    );
  });

  test('--types OUT writes the helper declarations and confirms in one line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'divan-cli-'));
    try {
      const r = await run([join(fixtures, 'static-routes.mjs'), '--types', 'types/routes.helpers.d.ts'], { cwd: dir });
      assert.equal(r.stderr, '');
      assert.equal(r.code, 0);
      assert.equal(r.stdout, 'Wrote route helper types (2 named routes) to types/routes.helpers.d.ts\n');
      const text = readFileSync(join(dir, 'types', 'routes.helpers.d.ts'), 'utf8');
      assert.match(text, /export type RouteHelpers = \{/);
      assert.match(text, /postPath\(id: RouteParam, options\?/);
      assert.match(text, /postsUrl\(/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('loads a .ts file (type stripping or tsx)', async () => {
    const r = await run(['static-routes.ts']);
    assert.equal(r.stderr, '');
    assert.equal(r.code, 0);
    assert.equal(
      r.stdout,
      [
        'Prefix Verb URI Pattern           Handler#Action',
        'photos GET  /photos(.:format)     photos#index',
        ' photo GET  /photos/:id(.:format) photos#show {id: /[^\\/]+/}',
        '',
      ].join('\n'),
    );
  });

  test('a .ts file without tsx installed: a clear error', async (t) => {
    if ((process.features as { typescript?: unknown }).typescript) {
      t.skip('this Node.js strips types itself; tsx is not needed');
      return;
    }
    // A loader hook that makes `tsx` unresolvable, as if it were not installed.
    const hooks =
      "export async function resolve(s, c, n) { if (s === 'tsx' || s.startsWith('tsx/')) { " +
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the hook's source holds a template literal
      "const e = new Error(`Cannot find package '${s}'`); e.code = 'ERR_MODULE_NOT_FOUND'; throw e; } return n(s, c); }";
    const register = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
    const r = await run(['static-routes.ts'], {
      nodeArgs: ['--import', `data:text/javascript,${encodeURIComponent(register)}`],
    });
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /npm i -D tsx/);
    assert.doesNotMatch(r.stderr, /\n\s+at /); // no stack trace
  });

  test('a missing file, a module without a default export, or not a route set: exit 1 with a message', async () => {
    const missing = await run(['nope.js']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /cannot find nope\.js/);

    const noDefault = await run(['no-default.mjs']);
    assert.equal(noDefault.code, 1);
    assert.match(noDefault.stderr, /no-default\.mjs has no default export; it must export a route set/);

    const notRoutes = await run(['not-a-route-set.mjs']);
    assert.equal(notRoutes.code, 1);
    assert.match(notRoutes.stderr, /without a list\(\) method/);
  });

  test('a route file that throws: exit 1 naming the file and the error', async () => {
    const r = await run(['throws.mjs']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /throws\.mjs: Error: bad route declaration/);
  });
});

describe('divan-routes with route files using draw', () => {
  const POSTS = `${POSTS_TABLE}\n`;

  for (const name of ['routes.js', 'routes.ts']) {
    test(`prints the table of ${name}`, async () => {
      const r = await run([name]);
      assert.equal(r.stderr, '');
      assert.equal(r.code, 0);
      assert.equal(r.stdout, POSTS);
    });
  }

  test('--json of routes.js is list()', async () => {
    const r = await run(['routes.js', '--json', '-g', 'edit']);
    assert.equal(r.code, 0);
    assert.deepEqual(JSON.parse(r.stdout), [
      {
        name: 'edit_post',
        verb: 'GET',
        path: '/posts/:id/edit(.:format)',
        handler: 'posts',
        action: 'edit',
        constraints: {},
        defaults: {},
      },
    ]);
  });

  test('--types of routes.ts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'divan-cli-'));
    try {
      const out = join(dir, 'routes.helpers.d.ts');
      const r = await run(['routes.ts', `--types=${out}`]);
      assert.equal(r.code, 0);
      assert.match(r.stdout, /^Wrote route helper types \(4 named routes\) to /);
      assert.match(readFileSync(out, 'utf8'), /editPostPath\(id: RouteParam/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a declaration error: exit 1 with the ArgumentError and where it was raised', async () => {
    const r = await run(['bad-routes.js']);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /bad-routes\.js: ArgumentError: can't use collection outside resource\(s\) scope/);
    assert.match(r.stderr, /fixtures\/bad-routes\.js:5:/);
  });
});
