// The typed helpers follow shallow nesting, path names and every English plural: for each
// declaration below, drawn at run time, a file asserting that `routes.helpers` has exactly the
// runtime's helper names (no string index: nothing switched to untyped) and that each helper
// takes its route's required segments is compiled with tsc, once for all declarations.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { draw, type Mapper, type RouteSet } from '../src/index.js';
import { typeCheck } from './support/type-check.js';

/** Declarations as written in an application (JavaScript and TypeScript alike). */
const DECLARATIONS = [
  "r.resources('posts', (r) => r.resources('comments', { shallow: true }, (r) => r.resources('likes', { only: ['index', 'show'] })))",
  "r.resources('posts', { shallow: true, only: ['show'] }, (r) => r.resources('comments', { only: ['index', 'show'] }, (r) => r.member((r) => r.get('preview'))))",
  "r.namespace('admin', (r) => r.resources('posts', { only: [] }, (r) => r.resources('comments', { shallow: true, only: ['index', 'show'] })))",
  "r.shallow((r) => r.resources('posts', { only: [] }, (r) => r.resources('comments', { only: ['index', 'show', 'new'] })))",
  "r.scope({ shallow: true }, (r) => r.resources('posts', { only: ['index'] }, (r) => r.resources('comments', { only: ['show', 'edit'] })))",
  "r.scope({ path: 'v1', as: 'v1' }, (r) => r.resources('posts', { only: [] }, (r) => r.resources('comments', { shallow: true, only: ['show'] })))",
  "r.resources('posts', { only: [] }, (r) => r.resources('comments', { shallow: true, only: [] }, (r) => r.new((r) => r.get('draft')).collection((r) => r.get('search')).member((r) => r.get('preview')).get('bare')))",
  "r.resources('a', { only: [] }, (r) => r.resources('b', { only: [], shallow: true }, (r) => r.resources('c', { only: ['show', 'index'] }, (r) => r.resources('d', { only: ['show', 'index'] }))))",
  "r.resources('posts', { only: [] }, (r) => r.resource('cover', { shallow: true, only: ['show'] }))",
  "r.resources('posts', { pathNames: { new: 'nuevo', edit: 'editar' } }, (r) => r.resources('comments', { only: ['new', 'edit'] }))",
  "r.scope({ pathNames: { edit: 'change' } }, (r) => r.resource('profile', { only: ['edit', 'new'] }))",
  "r.resources('services').resources('invoices').resources('addresses').resources('menus').resources('classes')",
  "r.resources('statuses').resources('people').resources('children').resources('media').resources('data')",
  "r.resources('heroes').resources('quizzes').resources('analyses').resources('wolves').resources('matrices')",
  "r.resources('people', (r) => r.resources('children', { shallow: true }, (r) => r.resources('heroes')))",
];

test('the typed helpers are the runtime helpers, for shallow nesting, path names and plurals', () => {
  const packageDir = fileURLToPath(new URL('../../', import.meta.url));
  const dir = mkdtempSync(join(packageDir, '.typecheck-'));
  try {
    const index = join(packageDir, 'src', 'index.js').replaceAll('\\', '/');
    const lines = [
      `import { draw } from '${index}';`,
      'type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;',
      'function expect<_T extends true>(): void {}',
    ];
    DECLARATIONS.forEach((source, i) => {
      const block = new Function('r', `return ${source};`) as (r: Mapper) => unknown;
      const routes: RouteSet = draw(block);
      const helpers = Object.keys(routes.helpers).sort();
      assert.ok(helpers.length > 0, source);
      lines.push(`const routes${i} = draw((r) => ${source});`);
      lines.push(
        `expect<Equal<keyof typeof routes${i}.helpers, ${helpers.map((h) => `'${h}'`).join(' | ')}>>(); // ${i}`,
      );
      for (const info of routes.list()) {
        if (info.name === null) continue;
        const name = info.name.replace(/_([a-z\d])/g, (_, c: string) => c.toUpperCase());
        const required = routes
          .list()
          .find((r) => r.name === info.name)!
          .path.replace(/\([^)]*\)/g, '');
        const count = (required.match(/[:*]\w+/g) ?? []).length;
        lines.push(`routes${i}.helpers.${name}Path(${Array(count).fill("'1'").join(', ')}); // ${i}`);
      }
    });
    writeFileSync(join(dir, 'shapes.ts'), `${lines.join('\n')}\n`);
    const tsc = typeCheck(dir, ['shapes.ts'], { noUncheckedIndexedAccess: true, skipLibCheck: true, types: ['node'] });
    const wrong = tsc.stdout
      .split('\n')
      .filter((l) => l.includes('shapes.ts('))
      .map((l) => {
        const line = Number(/shapes\.ts\((\d+),/.exec(l)?.[1]);
        const at = Number(lines[line - 1]?.split('// ')[1]);
        return `${DECLARATIONS[at]}\n    ${lines[line - 1]}\n    ${l}`;
      });
    assert.deepEqual(wrong, [], tsc.stdout);
    assert.equal(tsc.status, 0, tsc.stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
