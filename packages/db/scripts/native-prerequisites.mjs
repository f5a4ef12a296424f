// Runs before the native build (`npm install`): the stock_gzip addon links the stock zlib
// statically, so the C compiler must find libz.a (Debian: the zlib1g-dev package; not part of
// build-essential). Found: nothing to do. Missing on Linux: installed with apt-get when running
// as root with apt-get at hand (as in CI), otherwise the install stops here naming the command.
// macOS links the system's libz dynamically and needs nothing.
import { spawnSync } from 'node:child_process';

const PACKAGE = 'zlib1g-dev';

function libzFound() {
  // `cc -print-file-name=X` prints X's full path when the linker would find it, X alone otherwise.
  const result = spawnSync(process.env.CC ?? 'cc', ['-print-file-name=libz.a'], { encoding: 'utf8' });
  return result.status === 0 && result.stdout.trim() !== 'libz.a';
}

const log = (line) => console.error(`@divan/db install: ${line}`);

if (process.platform === 'linux' && !libzFound()) {
  const command = `apt-get install -y --no-install-recommends ${PACKAGE}`;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const hasApt = spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
  if (!isRoot || !hasApt) {
    log(`libz.a (the stock zlib, linked into the stock_gzip addon) not found. Install it, then again:`);
    log(hasApt ? `  sudo ${command}` : '  the static zlib library of your distribution (e.g. zlib-static, zlib-dev)');
    process.exit(1);
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = (args) => spawnSync('apt-get', args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  log(`libz.a not found: ${command}`);
  let result = apt(['install', '-y', '--no-install-recommends', PACKAGE]);
  if (result.status !== 0) {
    log('apt-get install failed; apt-get update, then again');
    apt(['update']);
    result = apt(['install', '-y', '--no-install-recommends', PACKAGE]);
  }
  if (!libzFound()) {
    log(`${command} failed:\n${result.stderr ?? ''}${result.error?.message ?? ''}`);
    process.exit(1);
  }
}
