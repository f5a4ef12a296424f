#!/usr/bin/env node
// Brings Fauxton's built files (the `fauxton` npm package's dist/release) into packages/db/fauxton/,
// git-ignored, at install time. The package lists its build tools (webpack, babel, jest, …) as
// runtime dependencies, so it is never installed: `npm pack` fetches its tarball alone (through
// npm's cache and registry, like every other package) and only `package/dist/release` is kept.
// The version is pinned in package.json (`divan.fauxton`). Already there: nothing to do.
// Text files get their gzip beside them, so a server serves them compressed without compressing.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const pkgDir = join(fileURLToPath(import.meta.url), '..', '..');
const version = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')).divan.fauxton;
const target = join(pkgDir, 'fauxton');
const stamp = join(target, '.version');

if (existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === `${version} gz`) process.exit(0);

const work = mkdtempSync(join(tmpdir(), 'divan-fauxton-'));
function run(command, args) {
  const result = spawnSync(command, args, { cwd: work, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status !== 0) {
    rmSync(work, { recursive: true, force: true });
    console.error(`fetch-fauxton: ${command} ${args.join(' ')} failed:\n${result.stderr}${result.error ?? ''}`);
    process.exit(1);
  }
  return result.stdout;
}
// Inside an npm script, npm_execpath is the npm that runs us (same registry and cache settings).
const npm = process.env.npm_execpath;
const packed = npm?.endsWith('.js')
  ? run(process.execPath, [npm, 'pack', `fauxton@${version}`, '--silent'])
  : run('npm', ['pack', `fauxton@${version}`, '--silent']);
const tarball = packed.trim().split('\n').pop();
run('tar', ['-xzf', tarball, 'package/dist/release']);
rmSync(target, { recursive: true, force: true });
// A copy, not a rename: the temporary folder may be on another file system.
cpSync(join(work, 'package', 'dist', 'release'), target, { recursive: true });
// Each text file's gzip beside it (`x.js.gz`), made once here rather than by every server start.
for (const file of readdirSync(target, { recursive: true })) {
  const full = join(target, String(file));
  if (/\.(html|js|css|svg|ttf|eot|json|txt)$/.test(full))
    writeFileSync(`${full}.gz`, gzipSync(readFileSync(full), { level: 9 }));
}
writeFileSync(stamp, `${version} gz\n`);
rmSync(work, { recursive: true, force: true });
console.log(`fetch-fauxton: Fauxton ${version} in ${target}`);
