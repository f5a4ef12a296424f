// Type-checks the files of a temporary project with the repository's TypeScript, strict and as an
// ESM application would (module nodenext): the type tests' one way to run tsc.
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../../../../', import.meta.url));
const tsc = join(repoRoot, 'node_modules', '.bin', 'tsc');

/** Writes `dir/tsconfig.json` for `files` (extra compiler `options` win) and runs tsc there; errors read `file(line,col): error TS…`. */
export function typeCheck(
  dir: string,
  files: readonly string[],
  options: Record<string, unknown> = {},
): SpawnSyncReturns<string> {
  const compilerOptions = {
    strict: true,
    noEmit: true,
    pretty: false,
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'es2023',
    types: [],
    ...options,
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files }));
  return spawnSync(tsc, ['-p', dir], { cwd: dir, encoding: 'utf8' });
}
