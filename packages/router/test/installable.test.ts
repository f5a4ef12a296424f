// `npm pack` of @divan/router installs in a fresh project outside this repository, and the
// README's router example runs there, through the package's `exports` (types included).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { typeCheck } from './support/type-check.js';

const packageDir = fileURLToPath(new URL('../../', import.meta.url));
const repoRoot = join(packageDir, '..', '..');
let dir = '';
let app = '';

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'divan-router-install-'));
  app = join(dir, 'app');
  execFileSync('npm', ['pack', '--pack-destination', dir], { cwd: packageDir, stdio: 'pipe' });
  const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
  assert.ok(tarball, 'npm pack made no tarball');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  // No dependencies to fetch: the frameworks are optional peers, tsx too.
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--offline', join(dir, tarball)], {
    cwd: app,
    stdio: 'pipe',
  });
});

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

test('the package holds its build, bin, LICENSE and CHANGELOG, and nothing of the tests', () => {
  const files = execFileSync('tar', ['-tzf', join(dir, readdirSync(dir).find((f) => f.endsWith('.tgz'))!)], {
    encoding: 'utf8',
  }).split('\n');
  for (const f of ['package/LICENSE', 'package/CHANGELOG.md', 'package/bin/divan-routes.js']) {
    assert.ok(files.includes(f), f);
  }
  for (const f of ['index', 'adapters/node', 'adapters/express', 'adapters/fastify', 'adapters/hono']) {
    assert.ok(files.includes(`package/dist/src/${f}.js`), f);
    assert.ok(files.includes(`package/dist/src/${f}.d.ts`), `${f}.d.ts`);
  }
  assert.equal(
    files.some((f) => f.includes('/test/')),
    false,
  );
});

test("the README's router example runs in the fresh project", () => {
  // The example's server listens on port 3000; here it listens on a free port and closes at once.
  const example = readmeExample('## Using the router').replace(
    /\.listen\(3000\)/,
    ".listen(0, '127.0.0.1', function () { this.close(); })",
  );
  writeFileSync(join(app, 'example.mjs'), `${example}\nconsole.log(routes.path('edit_comment', 7));\n`);
  const run = spawnSync(process.execPath, ['example.mjs'], { cwd: app, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /edit_comment GET\s+\/comments\/:id\/edit\(\.:format\)\s+comments#edit/);
  assert.match(run.stdout, /\/comments\/7\/edit\n$/);
});

test("the package's types type-check a TypeScript user's code from outside (exports map with types)", () => {
  writeFileSync(
    join(app, 'typed.ts'),
    [
      "import { draw } from '@divan/router';",
      "import { createNodeListener } from '@divan/router/node';",
      "const routes = draw((r) => r.resources('posts', (r) => r.resources('comments')));",
      'const path: string = routes.helpers.postCommentPath(1, 2);',
      'createNodeListener(routes, { comments: { show: ({ params }) => params.post_id + params.id } });',
      '// @ts-expect-error: a missing segment is a compile error for the installed package too',
      'routes.helpers.postCommentPath(1);',
      'export { path };',
      '',
    ].join('\n'),
  );
  // Node's types from this repository: the fresh project installs nothing from the registry.
  const tsc = typeCheck(app, ['typed.ts'], { typeRoots: [join(repoRoot, 'node_modules', '@types')], types: ['node'] });
  assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
});

test('every entry point resolves from outside; the node adapter and the CLI work', () => {
  const script = `
    import { draw } from '@divan/router';
    import { createNodeListener } from '@divan/router/node';
    import { expressRouter } from '@divan/router/express';
    import { fastifyRouter } from '@divan/router/fastify';
    const routes = draw((r) => r.resources('posts'));
    console.log(typeof createNodeListener, typeof expressRouter, typeof fastifyRouter, routes.helpers.postPath(1));
  `;
  writeFileSync(join(app, 'entries.mjs'), script);
  const run = spawnSync(process.execPath, ['entries.mjs'], { cwd: app, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), 'function function function /posts/1');
  writeFileSync(
    join(app, 'routes.mjs'),
    "import { draw } from '@divan/router';\nexport default draw((r) => r.resources('posts'));\n",
  );
  const cli = spawnSync(join(app, 'node_modules', '.bin', 'divan-routes'), ['routes.mjs'], {
    cwd: app,
    encoding: 'utf8',
  });
  assert.equal(cli.status, 0, cli.stderr);
  assert.match(cli.stdout, /posts GET\s+\/posts\(\.:format\)\s+posts#index/);
});
