// Debian's Chromium for the browser tests (Fauxton end to end, driven by playwright-core):
// found at /usr/bin/chromium, installed with apt-get when missing and running as root, otherwise
// a ChromiumMissing error that names the one command to run. Never a downloaded browser.
//
//   const path = findOrInstallChromium({ log });   // the executable, or throws ChromiumMissing
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const PACKAGE = 'chromium';
export const CHROMIUM_PATH = '/usr/bin/chromium';

export class ChromiumMissing extends Error {
  constructor(message, command) {
    super(message);
    this.command = command;
  }
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

export function findOrInstallChromium({ log = () => {} } = {}) {
  if (existsSync(CHROMIUM_PATH)) return CHROMIUM_PATH;
  const command = `apt-get install -y --no-install-recommends ${PACKAGE}`;
  if (!isRoot()) throw new ChromiumMissing(`${CHROMIUM_PATH} not found`, `sudo ${command}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = (args) => spawnSync('apt-get', args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  log(`${CHROMIUM_PATH} not found: ${command}`);
  let result = apt(['install', '-y', '--no-install-recommends', PACKAGE]);
  if (result.status !== 0) {
    log('apt-get install failed; apt-get update, then again');
    apt(['update']);
    result = apt(['install', '-y', '--no-install-recommends', PACKAGE]);
  }
  if (!existsSync(CHROMIUM_PATH)) {
    throw new ChromiumMissing(`${command} failed:\n${result.stderr ?? ''}${result.error?.message ?? ''}`, command);
  }
  return CHROMIUM_PATH;
}
