// `npm pack` of @divan/router installs in a fresh project outside this repository, and the
// README's router example runs there, through the package's `exports` (types included).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
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
  assert.ok(files.includes('package/README.md'), 'README.md');
  assert.deepEqual(
    files.filter((f) => /demo/.test(f)),
    [],
    'no demo in the package',
  );
});

test('every source map in the package points at files the package ships', () => {
  const tarball = join(dir, readdirSync(dir).find((f) => f.endsWith('.tgz'))!);
  const unpacked = join(dir, 'unpacked');
  mkdirSync(unpacked, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', unpacked]);
  const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n');
  const maps = files.filter((f) => f.endsWith('.map'));
  assert.ok(maps.length > 0);
  for (const map of maps) {
    const { sources } = JSON.parse(readFileSync(join(unpacked, map), 'utf8')) as { sources: string[] };
    for (const source of sources) {
      const shipped = join(map, '..', source).replaceAll('\\', '/');
      assert.ok(files.includes(shipped), `${map} points at ${source}, which the package does not ship`);
    }
  }
});

test('`npm pack` from a clean checkout builds dist/ first (prepack)', () => {
  // The files git knows (tracked, or new and not ignored): no dist/ among them.
  const checkout = join(dir, 'checkout');
  const known = execFileSync(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard', 'packages/router', 'tsconfig.base.json'],
    {
      cwd: repoRoot,
      encoding: 'utf8',
    },
  )
    .split('\0')
    .filter((f) => f !== '' && existsSync(join(repoRoot, f)));
  assert.equal(
    known.some((f) => f.startsWith('packages/router/dist/')),
    false,
  );
  for (const file of known) {
    mkdirSync(join(checkout, file, '..'), { recursive: true });
    copyFileSync(join(repoRoot, file), join(checkout, file));
  }
  // The repository's own dev dependencies (TypeScript, the frameworks' types), as after `npm install`.
  symlinkSync(join(repoRoot, 'node_modules'), join(checkout, 'node_modules'), 'dir');
  const packed = execFileSync('npm', ['pack', '--dry-run', '--json'], {
    cwd: join(checkout, 'packages', 'router'),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const paths = (JSON.parse(packed) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
  for (const f of ['dist/src/index.js', 'dist/src/index.d.ts', 'dist/src/adapters/fastify.js']) {
    assert.ok(paths.includes(f), f);
  }
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
