// The fauxton suite (only when asked: --suite fauxton): the first load of Fauxton (`/_utils/`),
// the figure the admin-page issues set at under a second. Two ways, best of five and median:
//   - loopback: the page and every asset it names fetched at once with `Accept-Encoding: gzip`,
//     as a cold browser does (wall time and bytes on the wire);
//   - browser: Debian's Chromium (playwright-core), a fresh context each round, the navigation's
//     load event (every file in and its scripts run). Needs Chromium (DIVAN_TEST_CHROMIUM or
//     /usr/bin/chromium); without it this half says so and measures nothing.
// These were timed assertions in the test suite once; a shared machine made them fail at random,
// so the test suite asserts what is served (compressed, complete) and this suite how fast.

import { existsSync } from 'node:fs';
import { fmt, nowUs, percentile } from './common.mjs';

const ROUNDS = 5;
const TARGET_MS = 1000;
const CHROMIUM = process.env.DIVAN_TEST_CHROMIUM ?? '/usr/bin/chromium';
const median = (xs) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    0.5,
  );

/** The `/_utils/` page's own assets, as the page names them. */
async function assetPaths(server) {
  const page = await server.request('GET', '/_utils/');
  if (page.status !== 200) throw new Error(`GET /_utils/ answered ${page.status}`);
  return [...page.body.matchAll(/(?:src|href)="(dashboard\.assets\/[^"]+)"/g)].map((m) => `/_utils/${m[1]}`);
}

async function loopbackLoad(server, paths) {
  const headers = { 'accept-encoding': 'gzip' };
  if (server.auth) headers.authorization = server.auth;
  const started = nowUs();
  let bytes = 0;
  await Promise.all(
    ['/_utils/', ...paths].map(async (path) => {
      const r = await fetch(server.base + path, { headers });
      // fetch inflates the body: the wire size is the Content-Length when the server sends one.
      const inflated = (await r.arrayBuffer()).byteLength;
      bytes += Number(r.headers.get('content-length') ?? inflated);
    }),
  );
  return { ms: (nowUs() - started) / 1000, bytes };
}

async function browserLoads(server) {
  if (!existsSync(CHROMIUM)) return { skipped: `Chromium not found at ${CHROMIUM} (apt-get install chromium)` };
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
  });
  try {
    const loads = [];
    for (let round = 0; round < ROUNDS; round++) {
      const context = await browser.newContext(server.auth ? { extraHTTPHeaders: { Authorization: server.auth } } : {});
      const page = await context.newPage();
      await page.goto(`${server.base}/_utils/`, { waitUntil: 'load' });
      loads.push(
        await page.evaluate(() => globalThis.performance.getEntriesByType('navigation')[0]?.duration ?? Number.NaN),
      );
      await context.close();
    }
    return { loads };
  } finally {
    await browser.close();
  }
}

export async function runFauxton(server) {
  const paths = await assetPaths(server);
  const loopback = [];
  for (let round = 0; round < ROUNDS; round++) loopback.push(await loopbackLoad(server, paths));
  const browser = await browserLoads(server);
  return { assets: paths.length, loopback, browser };
}

export function reportFauxton(results) {
  console.log(`\n## fauxton: the first load of /_utils/ (best and median of ${ROUNDS}; target under ${TARGET_MS} ms)`);
  console.log('| server | assets | loopback, all at once | bytes | Chromium load event, cold |');
  console.log('|---|---|---|---|---|');
  for (const [name, r] of Object.entries(results)) {
    const ms = r.loopback.map((x) => x.ms);
    const loop = `${fmt(Math.min(...ms), 1)} / ${fmt(median(ms), 1)} ms`;
    const browser =
      r.browser.skipped ?? `${fmt(Math.min(...r.browser.loads), 0)} / ${fmt(median(r.browser.loads), 0)} ms`;
    console.log(`| ${name} | ${r.assets} | ${loop} | ${fmt(r.loopback[0]?.bytes ?? 0)} | ${browser} |`);
  }
}
