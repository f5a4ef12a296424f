// A throw-away PostgreSQL server for the tests (and the measurements): found or installed,
// initialized in a temporary folder, started on a free loopback port, stopped and removed at the end.
//
//   const pg = await startPostgres();   // { url, stop() } or throws PostgresMissing
//   ... process.env.DIVAN_TEST_POSTGRES = pg.url ...
//   pg.stop();                          // synchronous: safe in an 'exit' handler
//
// Run directly (`node scripts/postgres.mjs`) it starts one, prints its URL and keeps it until Ctrl-C.
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE = 'postgresql';
/** The version this project is tested on; another installed one is used when it is missing. */
const PREFERRED = '15';

/** Thrown when no server binaries are there and they cannot be installed: `command` says how. */
export class PostgresMissing extends Error {
  constructor(message, command) {
    super(message);
    this.command = command;
  }
}

/** The bin folder of an installed PostgreSQL server (Debian's layout), preferring version 15. */
function findBinaries() {
  const base = '/usr/lib/postgresql';
  let versions = [];
  try {
    versions = readdirSync(base).filter((v) => /^\d+$/.test(v));
  } catch {
    return undefined;
  }
  versions.sort((a, b) => (a === PREFERRED ? -1 : b === PREFERRED ? 1 : Number(b) - Number(a)));
  for (const v of versions) {
    const bin = join(base, v, 'bin');
    if (['initdb', 'pg_ctl', 'postgres'].every((tool) => existsSync(join(bin, tool)))) return bin;
  }
  return undefined;
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

function run(command, args, options = {}) {
  return spawnSync(command, args, { encoding: 'utf8', ...options });
}

/** Installs Debian's `postgresql` package (root only), refreshing the package lists if needed. */
function install(log) {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = (args) => run('apt-get', args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  log(`PostgreSQL server binaries not found: apt-get install -y ${PACKAGE}`);
  let result = apt(['install', '-y', '--no-install-recommends', PACKAGE]);
  if (result.status !== 0) {
    log('apt-get install failed; apt-get update, then again');
    apt(['update']);
    result = apt(['install', '-y', '--no-install-recommends', PACKAGE]);
  }
  // A package whose post-install step could not start its own cluster (no init system, say) still
  // leaves the binaries these tests need: only their absence is a failure.
  if (result.status !== 0 && findBinaries() === undefined) {
    throw new PostgresMissing(
      `apt-get install -y ${PACKAGE} failed:\n${result.stderr ?? ''}${result.error?.message ?? ''}`,
      `apt-get install -y ${PACKAGE}`,
    );
  }
}

/** The user that runs the server: root may not, so Debian's `postgres` user (created if missing). */
function serverUser() {
  if (!isRoot()) return undefined;
  if (run('id', ['-u', 'postgres']).status !== 0) {
    const made = run('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres']);
    if (made.status !== 0) throw new Error(`cannot create the postgres user: ${made.stderr}`);
  }
  const uid = Number(run('id', ['-u', 'postgres']).stdout.trim());
  const gid = Number(run('id', ['-g', 'postgres']).stdout.trim());
  return { name: 'postgres', uid, gid };
}

/** Runs a server binary as the server user. */
function runAs(user, bin, args) {
  const options = { cwd: tmpdir() };
  return user === undefined ? run(bin, args, options) : run('runuser', ['-u', user.name, '--', bin, ...args], options);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts a throw-away server. `durable: true` keeps PostgreSQL's default durability (fsync on
 * every commit), for measurements; the tests run without fsync.
 */
export async function startPostgres({ durable = false, log = (line) => console.log(line) } = {}) {
  let bin = findBinaries();
  if (bin === undefined) {
    if (!isRoot()) {
      throw new PostgresMissing(
        'PostgreSQL server binaries not found (looked in /usr/lib/postgresql/*/bin)',
        `sudo apt-get install -y ${PACKAGE}`,
      );
    }
    install(log);
    bin = findBinaries();
    if (bin === undefined) {
      throw new PostgresMissing(`installed ${PACKAGE} but found no server binaries`, `apt-get install -y ${PACKAGE}`);
    }
  }
  const user = serverUser();
  const dir = mkdtempSync(join(tmpdir(), 'divan-pg-'));
  const data = join(dir, 'data');
  let started = false;
  const stop = () => {
    if (started) {
      runAs(user, join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
      started = false;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    if (user !== undefined) chownSync(dir, user.uid, user.gid);
    chmodSync(dir, 0o700);
    const init = runAs(user, join(bin, 'initdb'), [
      '-D',
      data,
      '-U',
      'postgres',
      '-E',
      'UTF8',
      '--no-locale',
      '--auth=trust',
      '--no-sync',
    ]);
    if (init.status !== 0) throw new Error(`initdb failed:\n${init.stdout}${init.stderr}`);
    const settings = [
      '-c listen_addresses=127.0.0.1',
      `-c unix_socket_directories=${dir}`,
      '-c max_connections=200',
      '-c shared_buffers=256MB',
      ...(durable ? [] : ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off']),
    ];
    const pgStart = (port) =>
      runAs(user, join(bin, 'pg_ctl'), [
        '-D',
        data,
        '-l',
        join(dir, 'server.log'),
        '-o',
        `-p ${port} ${settings.join(' ')}`,
        '-w',
        '-t',
        '60',
        'start',
      ]);
    for (let attempt = 0; ; attempt++) {
      const port = await freePort();
      const start = pgStart(port);
      if (start.status === 0) {
        started = true;
        // For tests of a PostgreSQL that goes away and comes back: stop it (keeping its data) and
        // start it again on the same port.
        const pause = () => {
          const result = runAs(user, join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']);
          if (result.status !== 0) throw new Error(`pg_ctl stop failed:\n${result.stdout}${result.stderr}`);
          started = false;
        };
        const resume = () => {
          const result = pgStart(port);
          if (result.status !== 0) throw new Error(`pg_ctl start failed:\n${result.stdout}${result.stderr}`);
          started = true;
        };
        // The postmaster's pid (the first line of postmaster.pid): the benchmark adds the CPU of it
        // and its backends to a node's own.
        const pid = () => Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
        return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, bin, dir, pid, stop, pause, resume };
      }
      // Another process may have taken the port between the probe and the start: try another.
      if (attempt === 2) throw new Error(`pg_ctl start failed:\n${start.stdout}${start.stderr}`);
    }
  } catch (err) {
    stop();
    throw err;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const server = await startPostgres({ durable: process.argv.includes('--durable') });
  console.log(server.url);
  const end = () => {
    server.stop();
    process.exit(0);
  };
  process.on('SIGINT', end);
  process.on('SIGTERM', end);
  setInterval(() => {}, 1 << 30);
}
