// The TypeScript examples of the READMEs and docs/router.md type-check under `tsc --strict` with
// noUncheckedIndexedAccess, against the built package as an application imports it. One tsc run
// over every block: a block with imports is a module as it stands; a block of mapper calls
// (`r.resources(...)`) runs inside `draw((r) => { ... })`; any other block (`routes.helpers...`)
// follows a prelude declaring the route set the docs' prose describes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { draw } from '../src/index.js';
import { typeCheck } from './support/type-check.js';

const packageDir = fileURLToPath(new URL('../../', import.meta.url));
const repoRoot = join(packageDir, '..', '..');
const SOURCES = ['README.md', 'packages/router/README.md', 'docs/router.md'];

const PRELUDE = `import { draw } from '@divan/router';
const routes = draw((r) =>
  r.resources('posts', (r) => r.resources('comments')).resources('articles', { only: ['show'] }),
);
const comment = { id: 9 };
`;

/** Every \`\`\`ts block of a Markdown file, with the line it starts on. */
function blocks(markdown: string): { line: number; code: string }[] {
  const found: { line: number; code: string }[] = [];
  for (const m of markdown.matchAll(/^```ts\n([\s\S]*?)^```/gm)) {
    found.push({ line: markdown.slice(0, m.index).split('\n').length + 1, code: m[1]! });
  }
  return found;
}

/** A block of mapper calls (`r.resources(...)`), perhaps after comments. */
const MAPPER_CALLS = /^(?:\s*\/\/.*\n)*\s*r\./;

function asModule(code: string): string {
  if (/^import /m.test(code)) return code;
  if (MAPPER_CALLS.test(code)) return `import { draw } from '@divan/router';\ndraw((r) => {\n${code}});\n`;
  return `${PRELUDE}${code}\nexport {};\n`;
}

test("the READMEs' and docs' TypeScript examples type-check (strict, noUncheckedIndexedAccess)", () => {
  const dir = mkdtempSync(join(packageDir, '.doc-examples-'));
  try {
    const files: string[] = [];
    const origin = new Map<string, string>();
    for (const source of SOURCES) {
      const found = blocks(readFileSync(join(repoRoot, source), 'utf8'));
      assert.ok(found.length > 0, `${source} has no ts example`);
      for (const { line, code } of found) {
        const file = `${source.replace(/\W+/g, '-')}-${line}.ts`;
        writeFileSync(join(dir, file), asModule(code));
        files.push(file);
        origin.set(file, `${source}:${line}`);
      }
    }
    const run = typeCheck(dir, files, {
      noUncheckedIndexedAccess: true,
      types: ['node'],
      typeRoots: [join(repoRoot, 'node_modules', '@types')],
      skipLibCheck: true,
    });
    // Errors name the Markdown file and the line its block starts on.
    const errors = run.stdout
      .split('\n')
      .filter((l) => l.includes('error TS'))
      .map((l) => l.replace(/^([^(]+)\(/, (_, file: string) => `${origin.get(file) ?? file} block (`));
    assert.equal(errors.length, 0, errors.join('\n'));
    assert.equal(run.status, 0, run.stdout + run.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the docs' blocks of mapper calls declare their routes as written", () => {
  for (const source of SOURCES) {
    for (const { line, code } of blocks(readFileSync(join(repoRoot, source), 'utf8'))) {
      if (/^import /m.test(code) || !MAPPER_CALLS.test(code)) continue;
      // Plain JavaScript as written: run it as the body of a declaration block.
      const block = new Function('r', code) as (r: unknown) => void;
      assert.doesNotThrow(() => draw((r) => block(r)), `${source}:${line}`);
    }
  }
});
