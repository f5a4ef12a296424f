/**
 * PouchDB in a real headless Chromium page on another origin: it logs in with a cookie session
 * through CORS (credentials included), writes, and replicates between two databases of the
 * server. PouchDB is bundled for the browser with esbuild (`events` comes from a small shim).
 * Needs Debian's Chromium: `scripts/test.mjs` finds or installs it (DIVAN_TEST_CHROMIUM); a missing
 * browser fails the test with the command to run, never skips it.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { build } from 'esbuild';
import { startTestServer, type TestServer } from './support/server.js';
import { createUser } from './support/users.js';

const CHROMIUM = process.env.DIVAN_TEST_CHROMIUM ?? '/usr/bin/chromium';

// Node's EventEmitter sets up its table lazily: PouchDB relies on that (objects made without the constructor).
const EVENTS_SHIM = `
function EventEmitter() { this._events = {}; }
function table(self) { return self._events || (self._events = {}); }
EventEmitter.prototype.on = EventEmitter.prototype.addListener = function (name, fn) {
  var t = table(this); (t[name] = t[name] || []).push(fn); return this;
};
EventEmitter.prototype.once = function (name, fn) {
  var self = this;
  function once() { self.removeListener(name, once); fn.apply(self, arguments); }
  once.listener = fn; return this.on(name, once);
};
EventEmitter.prototype.off = EventEmitter.prototype.removeListener = function (name, fn) {
  var t = table(this); var list = t[name]; if (!list) return this;
  t[name] = list.filter(function (l) { return l !== fn && l.listener !== fn; }); return this;
};
EventEmitter.prototype.removeAllListeners = function (name) {
  if (name === undefined) this._events = {}; else delete table(this)[name]; return this;
};
EventEmitter.prototype.emit = function (name) {
  var list = (table(this)[name] || []).slice(); var args = Array.prototype.slice.call(arguments, 1);
  for (var i = 0; i < list.length; i++) list[i].apply(this, args); return list.length > 0;
};
EventEmitter.prototype.listeners = function (name) { return (table(this)[name] || []).slice(); };
EventEmitter.prototype.listenerCount = function (name) { return (table(this)[name] || []).length; };
EventEmitter.prototype.setMaxListeners = function () { return this; };
module.exports = EventEmitter; module.exports.EventEmitter = EventEmitter;
`;

const ENTRY = `
import PouchDB from 'pouchdb-core';
import http from 'pouchdb-adapter-http';
import replication from 'pouchdb-replication';
PouchDB.plugin(http).plugin(replication);
window.PouchDB = PouchDB;
`;

/** The page: log in, write through PouchDB, replicate src → dst, report to the page's own origin. */
function page(server: string): string {
  return `<!doctype html><script src="/pouchdb.js"></script><script>
(async () => {
  const report = (value) => fetch('/result', { method: 'POST', body: JSON.stringify(value) });
  try {
    const login = await fetch('${server}/_session', {
      method: 'POST', credentials: 'include',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'web', password: 'pw' }),
    });
    const withCookie = (url, opts) => { opts.credentials = 'include'; return PouchDB.fetch(url, opts); };
    const src = new PouchDB('${server}/src', { fetch: withCookie, skip_setup: true });
    const dst = new PouchDB('${server}/dst', { fetch: withCookie, skip_setup: true });
    await src.put({ _id: 'from-browser', at: 'page' });
    const replicated = await src.replicate.to(dst);
    const info = await dst.info();
    const anonymous = await fetch('${server}/src').then((r) => r.status);
    report({ login: login.status, written: replicated.docs_written, count: info.doc_count, anonymous });
  } catch (error) {
    report({ error: String(error && (error.stack || error.message || error)) });
  }
})();
</script>`;
}

describe('PouchDB in headless Chromium on another origin (CORS with credentials)', () => {
  let t: TestServer;
  let site: Server;
  let browser: ChildProcess | undefined;
  let dir: string;
  let result: Promise<Record<string, unknown>>;

  before(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install -y --no-install-recommends chromium`);
    }
    dir = mkdtempSync(join(tmpdir(), 'divan-browser-'));
    writeFileSync(join(dir, 'events.js'), EVENTS_SHIM);
    writeFileSync(join(dir, 'entry.js'), ENTRY);
    const bundle = await build({
      entryPoints: [join(dir, 'entry.js')],
      bundle: true,
      write: false,
      platform: 'browser',
      format: 'iife',
      alias: { events: join(dir, 'events.js') },
      nodePaths: [join(process.cwd(), 'node_modules')],
      logLevel: 'silent',
    });
    const script = bundle.outputFiles[0]!.text;
    let resolveResult!: (value: Record<string, unknown>) => void;
    result = new Promise((resolve) => {
      resolveResult = resolve;
    });
    site = createServer((req, res) => {
      if (req.url === '/result') {
        let body = '';
        req.on('data', (chunk) => (body += chunk));
        req.on('end', () => {
          res.end();
          resolveResult(JSON.parse(body));
        });
        return;
      }
      const js = req.url === '/pouchdb.js';
      res.setHeader('content-type', js ? 'text/javascript' : 'text/html');
      res.end(js ? script : page(t.url));
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    t = await startTestServer({ settings: { cors: { origins: [origin], credentials: true } } });
    await createUser(t, 'web', 'pw');
    for (const db of ['src', 'dst']) {
      await t.request('PUT', `/${db}`);
      await t.request('PUT', `/${db}/_security`, { body: { members: { names: ['web'] } } });
    }
    await t.request('POST', '/src/_bulk_docs', { body: { docs: [{ _id: 'a' }, { _id: 'b' }] } });
    browser = spawn(
      CHROMIUM,
      [
        '--headless=new',
        '--no-sandbox',
        '--disable-gpu',
        '--enable-logging=stderr',
        `--user-data-dir=${join(dir, 'profile')}`,
        origin,
      ],
      // Its own process group, so its helper processes go with it.
      { stdio: process.env.DIVAN_DEBUG_BROWSER ? 'inherit' : 'ignore', detached: true },
    );
  });

  after(async () => {
    if (browser !== undefined && browser.exitCode === null) {
      // Its helper processes write into the profile until it is gone.
      const exited = new Promise((resolve) => browser!.once('exit', resolve));
      process.kill(-browser.pid!, 'SIGKILL');
      await exited;
    }
    await new Promise<void>((resolve) => site.close(() => resolve()));
    await t.close();
    rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  });

  it('logs in, writes and replicates; anonymous requests from the page stay refused', async () => {
    const timeout = new Promise<Record<string, unknown>>((resolve) =>
      setTimeout(
        () => resolve({ error: 'no result from the page in 60 s' }),
        Number(process.env.DIVAN_BROWSER_WAIT ?? 60_000),
      ).unref(),
    );
    const outcome = await Promise.race([result, timeout]);
    assert.deepEqual(outcome, { login: 200, written: 3, count: 3, anonymous: 401 });
    assert.equal((await t.request('GET', '/dst/from-browser')).json.at, 'page');
  });
});
