// Type fixtures: test/type-fixtures/*.ts are compiled by one tsc run as an application would
// compile them (strict, noUncheckedIndexedAccess, nodenext, the package imported by its name).
// A line ending in `// error: text` must fail with a message holding that text; every other
// line must compile. The fixtures are outside the package build (tsconfig.json excludes them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { typeCheck } from './support/type-check.js';

const packageDir = fileURLToPath(new URL('../../', import.meta.url));
const fixtures = join(packageDir, 'test', 'type-fixtures');

test('each fixture line fails tsc exactly where it says, with the message it says', () => {
  const files = readdirSync(fixtures).filter((f) => f.endsWith('.ts'));
  const expected = new Map<string, string>();
  for (const file of files) {
    readFileSync(join(fixtures, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        const want = line.startsWith('//') ? undefined : /\/\/ error: (.*)$/.exec(line)?.[1];
        if (want !== undefined) expected.set(`${file}:${i + 1}`, want.trim());
      });
  }
  const dir = mkdtempSync(join(packageDir, '.typecheck-'));
  try {
    const run = typeCheck(
      dir,
      files.map((f) => join(fixtures, f)),
      {
        noUncheckedIndexedAccess: true,
        types: ['node'],
        skipLibCheck: true,
        paths: { '@divan/router': [join(packageDir, 'src', 'index.ts')] },
        rootDir: packageDir,
      },
    );
    // One message per error line: `file(line,col): error TS…: text`, continued by indented lines.
    const messages = new Map<string, string>();
    let current = '';
    for (const line of run.stdout.split('\n')) {
      const at = /([\w-]+\.ts)\((\d+),\d+\): error/.exec(line);
      if (at) {
        current = `${at[1]}:${at[2]}`;
        messages.set(current, `${messages.get(current) ?? ''}${line}\n`);
      } else if (current !== '' && line.startsWith(' ')) {
        messages.set(current, `${messages.get(current) ?? ''}${line}\n`);
      }
    }
    assert.deepEqual([...messages.keys()].sort(), [...expected.keys()].sort(), run.stdout);
    for (const [where, want] of expected) {
      assert.ok(messages.get(where)?.includes(want), `${where} should say ${want}:\n${messages.get(where)}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
