#!/usr/bin/env node
// Runs every workspace's compiled tests (packages/*/dist/test/**/*.test.js) with node's
// test runner, prints the spec report, and ends with one line: "N passed, N failed".
// Usage: node scripts/test.mjs [substring ...]  (only test files whose path contains one of them)
//
// PostgreSQL tests (files named *postgres*) need a server: unless DIVAN_TEST_POSTGRES already
// names one, a throw-away server is started first (scripts/postgres.mjs: found under
// /usr/lib/postgresql, installed with apt-get when missing and running as root) and stopped and
// removed at the end, also on failure or Ctrl-C. Without one, no test runs and the run fails.
// The HTTP suites (http-*, client-*, views-http-*) then run a second time with every test server
// on PostgreSQL (DIVAN_TEST_STORAGE=postgres): the same behaviour on both storage engines.
//
// Browser tests (files named *fauxton* or *browser*) need Debian's Chromium (scripts/chromium.mjs: found at
// /usr/bin/chromium, installed with apt-get when missing and running as root); without it no test
// runs and the run fails with the command to run. Its path reaches the tests as DIVAN_TEST_CHROMIUM.
import { spawnSync } from 'node:child_process';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PostgresMissing, startPostgres } from './postgres.mjs';
import { ChromiumMissing, findOrInstallChromium } from './chromium.mjs';

const root = join(fileURLToPath(import.meta.url), '..', '..');
const filters = process.argv.slice(2);

function walk(dir, out) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) walk(full, out);
    else if (name.endsWith('.test.js')) out.push(full);
  }
  return out;
}

const files = [];
for (const pkg of readdirSync(join(root, 'packages'))) walk(join(root, 'packages', pkg, 'dist', 'test'), files);
const selected = files.filter((f) => filters.length === 0 || filters.some((s) => relative(root, f).includes(s))).sort();

if (selected.length === 0) {
  console.log('no test files found (did the build run?)');
  console.log('0 passed, 1 failed');
  process.exit(1);
}

let passed = 0;
let failed = 0;

const HTTP_SUITES = /(^|\/)(http-|client-|views-http-)[^/]*\.test\.js$/;
const onPostgres = selected.filter((f) => HTTP_SUITES.test(f));

const BROWSER_TESTS = /fauxton|browser/;
if (selected.some((f) => BROWSER_TESTS.test(relative(root, f))) && !process.env.DIVAN_TEST_CHROMIUM) {
  try {
    process.env.DIVAN_TEST_CHROMIUM = findOrInstallChromium({ log: (line) => console.log(`chromium: ${line}`) });
  } catch (err) {
    if (!(err instanceof ChromiumMissing)) throw err;
    console.log(
      `✖ Chromium: ${err.message}. The browser tests (Fauxton, PouchDB through CORS) need it; install it with:`,
    );
    console.log(`    ${err.command}`);
    console.log('0 passed, 1 failed');
    process.exit(1);
  }
}

let postgres;
const needsPostgres = onPostgres.length > 0 || selected.some((f) => relative(root, f).includes('postgres'));
if (needsPostgres && !process.env.DIVAN_TEST_POSTGRES) {
  try {
    postgres = await startPostgres({ log: (line) => console.log(`postgres: ${line}`) });
  } catch (err) {
    if (err instanceof PostgresMissing) {
      console.log(`✖ PostgreSQL: ${err.message}. The PostgreSQL tests need its server; install it with:`);
      console.log(`    ${err.command}`);
    } else {
      console.log(`✖ PostgreSQL: could not start a throw-away server: ${err.message}`);
    }
    console.log('0 passed, 1 failed');
    process.exit(1);
  }
  const stopPostgres = () => {
    postgres?.stop();
    postgres = undefined;
  };
  process.on('exit', stopPostgres);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      stopPostgres();
      process.exit(128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 1));
    });
  }
  process.env.DIVAN_TEST_POSTGRES = postgres.url;
  console.log(`postgres: throw-away server at ${postgres.url} (${postgres.bin})`);
}

// The lint step (Biome: formatting and lint rules) counts as one test; warnings fail it too.
if (filters.length === 0) {
  const biome = join(root, 'node_modules', '.bin', 'biome');
  const lint = spawnSync(biome, ['check', '--error-on-warnings', '--max-diagnostics=50'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (lint.status === 0) {
    console.log('✔ lint (biome check)');
    passed++;
  } else {
    console.log('✖ lint (biome check): run `npx biome check --write` to fix formatting, or fix the rules above');
    failed++;
  }
}
// Suites (describe blocks) report pass/fail too; count only the tests themselves.
const isSuite = (data) => data.details?.type === 'suite';

// The view sandbox (isolated-vm) needs every test process started with --no-node-snapshot.
process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --no-node-snapshot`.trim();
/** One pass of the test runner over `files`; resolves when it has reported everything. */
function pass(files, label, concurrency = 2) {
  return new Promise((resolve) => {
    if (label !== undefined) console.log(`\n${label}`);
    // Generous: the install test builds native addons from source, minutes on a busy machine.
    const stream = run({ files, concurrency, timeout: 600_000 });
    stream.on('test:pass', (data) => {
      if (!isSuite(data) && !data.skip && !data.todo) passed++;
    });
    stream.on('test:fail', (data) => {
      if (!isSuite(data)) failed++;
    });
    stream.compose(spec).pipe(process.stdout, { end: false });
    stream.on('end', () => setImmediate(resolve));
  });
}

// The browser tests check what a person waits for (a page's first load, under a second): they
// run alone, after the rest, so another test file's CPU on the two cores is not in their figures.
const inBrowser = selected.filter((f) => BROWSER_TESTS.test(relative(root, f)));
await pass(selected.filter((f) => !inBrowser.includes(f)));
if (inBrowser.length > 0) await pass(inBrowser, `▶ the browser tests, alone (${inBrowser.length} files)`, 1);
if (onPostgres.length > 0) {
  process.env.DIVAN_TEST_STORAGE = 'postgres';
  await pass(onPostgres, `▶ the HTTP suites again, on PostgreSQL (${onPostgres.length} files)`);
}
postgres?.stop();
postgres = undefined;
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;
