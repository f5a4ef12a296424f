/**
 * The architecture's rules (docs/architecture.md), checked on every source of @divan/db so that a
 * break fails here naming its file and line: the floors import only downward, and only
 * `documents/` and `storage/` touch a database's store. The sources are read as tokens
 * (./support/source-scan.ts), so comments, strings and templates never count as code.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { importsOf, storeReads, tokenize } from './support/source-scan.js';

/** packages/db/src, from the compiled test in packages/db/dist/test. */
const SRC = fileURLToPath(new URL('../../src', import.meta.url));

/**
 * The floors of @divan/db, lowest first, as docs/architecture.md draws them. Every top-level room
 * of src/ is on one: a new room fails the test until it is placed here and in the map.
 */
const FLOORS: readonly (readonly string[])[] = [
  // Foundations: any floor may use them; they import only each other.
  ['json', 'support', 'errors.ts', 'sandbox', 'collation', 'btree'],
  ['storage'],
  ['revisions', 'auth'],
  ['documents'],
  ['views', 'mango', 'replication', 'search', 'design-functions'],
  ['server'],
  ['http'],
  // The entry points.
  ['cli', 'start-server.ts', 'embedded.ts', 'index.ts'],
];
const FOUNDATIONS = 0;

/**
 * Imports the floors allow beyond the rule, each with its reason. btree/ keeps its nodes through
 * storage's `NodeStore` interface (and sorts through its `ScratchFile`): types only.
 */
const IMPORT_EXCEPTIONS: readonly { from: string; to: string; typeOnly: boolean; why: string }[] = [
  {
    from: 'btree',
    to: 'storage/view-index-store.ts',
    typeOnly: true,
    why: "the B-tree's nodes are kept through storage's NodeStore interface",
  },
];

/** The rooms that may touch a database's store; btree/ is a foundation with its own NodeStore. */
const STORE_ROOMS = new Set(['documents', 'storage', 'btree']);

/**
 * `.store` reads outside those rooms that are not a database's store, or not yet moved; each
 * must still be found (one nobody needs any more fails, so it is removed).
 */
const STORE_EXCEPTIONS: readonly { file: string; receiver: string; why: string }[] = [
  {
    file: 'search/search-mapper.ts',
    receiver: 'options',
    why: "a search field's `store` option (whether its value is stored), not a database",
  },
];

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) sourceFiles(full, out);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

/** A source's path under src/, with `/` whatever the platform. */
const srcPath = (file: string): string => relative(SRC, file).split(sep).join('/');

/** The top-level room of a path under src/ (`mango`, `errors.ts`). */
const roomOf = (path: string): string => path.split('/')[0]!;

function floorOf(room: string): number | undefined {
  const floor = FLOORS.findIndex((rooms) => rooms.includes(room));
  return floor < 0 ? undefined : floor;
}

const sources = sourceFiles(SRC).map((file) => {
  const path = srcPath(file);
  try {
    return { path, file, tokens: tokenize(readFileSync(file, 'utf8')) };
  } catch (error) {
    throw new Error(`src/${path}: ${(error as Error).message}`);
  }
});

describe('architecture: the source scan', () => {
  it('finds store reads in code and none in comments, strings, templates or regular expressions', () => {
    const source = [
      '// db.store in a comment',
      'const a = \'db.store\' + "x.store";',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the text of a source with template literals
      '/* this.db.store */ const b = `${db.name} .store ${`nested ${x.y}`}`;',
      'const r = /a.store/g, half = n / 2 / 3;',
      'await db.store.foldChanges(0);',
      'const c = this.db?.store;',
      "const d = db['store'];",
      'const { name, store } = database;',
      'const { store: s } = await open();',
      'const options = { store: true }; use(options.store);',
    ].join('\n');
    assert.deepEqual(
      storeReads(tokenize(source)).map(({ line, text }) => `${line} ${text}`),
      [
        '5 db.store',
        '6 this.db?.store',
        "7 db['store']",
        '8 { store } = database',
        '9 { store } = …',
        '10 options.store',
      ],
    );
  });

  it('reads static, side-effect, re-exported and dynamic imports, and which are types only', () => {
    const source = [
      "import type { A } from '../storage/records.js';",
      "import { b, type C } from './b.js';",
      "import './side-effect.js';",
      "export { d } from '../d.js';",
      "export type { E } from '../e.js';",
      "const m = await import('./lazy.js'); Array.from('not an import');",
      "type T = import('./types.js').T;",
    ].join('\n');
    assert.deepEqual(
      importsOf(tokenize(source)).map(
        ({ line, specifier, typeOnly }) => `${line} ${specifier}${typeOnly ? ' type' : ''}`,
      ),
      [
        '1 ../storage/records.js type',
        '2 ./b.js',
        '3 ./side-effect.js',
        '4 ../d.js',
        '5 ../e.js type',
        '6 ./lazy.js',
        '7 ./types.js',
      ],
    );
  });
});

describe('architecture: @divan/db', () => {
  it('reads every source of src/', () => {
    // A scan of nothing would pass every rule below.
    assert.ok(sources.length > 300, `only ${sources.length} sources under ${SRC}`);
    assert.ok(sources.some((s) => s.path === 'documents/database.ts'));
  });

  it('places every room of src/ on a floor of the map', () => {
    const unplaced = [...new Set(sources.map((s) => roomOf(s.path)))].filter((room) => floorOf(room) === undefined);
    assert.deepEqual(unplaced, [], 'rooms on no floor: add them to docs/architecture.md and FLOORS here');
  });

  it('imports only downward: a floor uses the floors below it and the foundations, never one above', () => {
    const upward: string[] = [];
    for (const { path, file, tokens } of sources) {
      const room = roomOf(path);
      const floor = floorOf(room)!;
      for (const ref of importsOf(tokens)) {
        if (!ref.specifier.startsWith('.')) continue; // a package, not a room
        const target = srcPath(resolve(dirname(file), ref.specifier)).replace(/\.js$/, '.ts');
        const targetRoom = roomOf(target);
        if (targetRoom === room) continue;
        const targetFloor = floorOf(targetRoom);
        const allowed =
          targetFloor !== undefined &&
          (floor === FOUNDATIONS ? targetFloor === FOUNDATIONS : targetFloor <= floor || targetFloor === FOUNDATIONS);
        if (allowed) continue;
        const excepted = IMPORT_EXCEPTIONS.some(
          (e) => e.from === room && e.to === target && (ref.typeOnly || !e.typeOnly),
        );
        if (!excepted) upward.push(`src/${path}:${ref.line} imports ${target} (${room} → ${targetRoom}: upward)`);
      }
    }
    assert.deepEqual(upward, [], 'imports against the floors of docs/architecture.md');
  });

  it('touches a database’s store only in documents/ and storage/', () => {
    const found: string[] = [];
    const used = new Set<(typeof STORE_EXCEPTIONS)[number]>();
    for (const { path, tokens } of sources) {
      if (STORE_ROOMS.has(roomOf(path))) continue;
      for (const read of storeReads(tokens)) {
        const exception = STORE_EXCEPTIONS.find((e) => e.file === path && e.receiver === read.receiver);
        if (exception !== undefined) used.add(exception);
        else found.push(`src/${path}:${read.line} reads ${read.text}`);
      }
    }
    assert.deepEqual(
      found,
      [],
      'a database is read through Database / DocumentReader (documents/), never through its store',
    );
    const stale = STORE_EXCEPTIONS.filter((e) => !used.has(e)).map((e) => `${e.file} (${e.receiver})`);
    assert.deepEqual(stale, [], 'exceptions that no source needs any more: remove them');
  });
});
