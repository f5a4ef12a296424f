// The type-level singular and plural (typed-inflection.ts) are the runtime's
// (support/inflection.ts): for each word below, a file asserting that the type of
// Singular<word> and Plural<word> is exactly the runtime's answer is compiled with tsc. A wrong
// literal would give a typed helper a name the route set does not have; `string` would turn
// the typed helpers of that resource off.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pluralize, singularize } from '../src/index.js';
import { typeCheck } from './support/type-check.js';

const WORDS = [
  'posts',
  'comments',
  'photos',
  'users',
  'articles',
  'categories',
  'companies',
  'boxes',
  'matches',
  'wishes',
  'addresses',
  'statuses',
  'buses',
  'people',
  'men',
  'children',
  'mice',
  'oxen',
  'indices',
  'matrices',
  'vertices',
  'analyses',
  'crises',
  'theses',
  'data',
  'media',
  'octopi',
  'viri',
  'halves',
  'knives',
  'wolves',
  'lives',
  'hives',
  'movies',
  'series',
  'species',
  'news',
  'sheep',
  'fish',
  'equipment',
  'information',
  'quizzes',
  'shoes',
  'tomatoes',
  'heroes',
  'days',
  'keys',
  'toys',
  'guys',
  'queries',
  'files',
  'profiles',
  'sessions',
  'accounts',
  'settings',
  'invoices',
  'prices',
  'slices',
  'devices',
  'services',
  'aliases',
  'databases',
  'bases',
  'cases',
  'houses',
  'horses',
  'courses',
  'purchases',
  'releases',
  'responses',
  'licenses',
  'axes',
  'tests',
  'campuses',
  'bonuses',
  'zombies',
  'moves',
  'sexes',
  'kisses',
  'classes',
  'glasses',
  'dashes',
  'branches',
  'taxes',
  'foxes',
  'buzzes',
  'news_items',
  'admin_users',
  'line_items',
  'order_lines',
  'status',
  'profile',
  'account',
  'cart',
  'person',
  'child',
  'city',
  'day',
  'box',
  'match',
  'bus',
  'hero',
  'knife',
  'leaf',
  'analysis',
  'datum',
  'index',
  'matrix',
  'mouse',
  'ox',
  'quiz',
  'alias',
  'octopus',
  'wish',
  'address',
  'fish_stock',
  'money',
  'rice',
  'police',
  'jeans',
  'menus',
  'menu',
  'women',
  'woman',
  'businesses',
  'wives',
  'wife',
  'potatoes',
  'videos',
  'radios',
  'sizes',
  'prizes',
  'service',
  'invoice',
  'class',
  'hero',
  'medium',
  'criteria',
  'stadiums',
  'removes',
  'parentheses',
  'diagnoses',
  'cafes',
  'chiefs',
  'lice',
  'vertex',
  'testis',
  'axis',
  'virus',
  'viri',
  'buffalo',
  'tomato',
  'soliloquy',
  'soliloquies',
  'news',
  'zombie',
  'sex',
  'move',
  'my-fish',
  'goldfish',
];

test("type-level singular and plural are the runtime's, exactly, for every lowercase word", () => {
  const packageDir = fileURLToPath(new URL('../../', import.meta.url));
  const dir = mkdtempSync(join(packageDir, '.typecheck-'));
  try {
    const typed = join(packageDir, 'src', 'typed-routes.js').replaceAll('\\', '/');
    const lines = [
      `import type { Plural, Singular } from '${typed}';`,
      'type Agrees<T, Want> = [T] extends [Want] ? ([Want] extends [T] ? true : false) : false;',
      'function agrees<_T extends true>(): void {}',
    ];
    for (const word of WORDS) {
      lines.push(`agrees<Agrees<Singular<'${word}'>, '${singularize(word)}'>>(); // ${word}`);
      lines.push(`agrees<Agrees<Plural<'${word}'>, '${pluralize(word)}'>>(); // ${word}`);
    }
    writeFileSync(join(dir, 'words.ts'), `${lines.join('\n')}\n`);
    const tsc = typeCheck(dir, ['words.ts']);
    const wrong = tsc.stdout
      .split('\n')
      .filter((l) => l.includes('words.ts('))
      .map((l) => {
        const line = Number(/words\.ts\((\d+),/.exec(l)?.[1]);
        return lines[line - 1]?.split('// ')[1];
      });
    assert.deepEqual(
      wrong,
      [],
      `the types name these words differently from the runtime, or not at all:\n${tsc.stdout}`,
    );
    assert.equal(tsc.status, 0, tsc.stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
