import { chromium } from 'playwright-core';
import { startServer } from './dist/src/server/start.js';
import { mkdtempSync } from 'node:fs';
const s = await startServer({ port: 0, dataDir: mkdtempSync('/tmp/fxs/d-'), admin: { name: 'admin', password: 'secret' }, hashIterations: 10, log: (l) => { if (!/ (200|201|304) /.test(l)) console.log('SRV', l); } });
const AUTH = 'Basic ' + Buffer.from('admin:secret').toString('base64');
const api = (m, p, b) => fetch(s.url + p, { method: m, headers: { authorization: AUTH, 'content-type': 'application/json' }, body: b && JSON.stringify(b) }).then((r) => r.json());
await api('PUT', '/books');
await api('POST', '/books/_bulk_docs', { docs: [{ _id: 'moby', title: 'Moby-Dick', year: 1851 }, { _id: 'emma', title: 'Emma', year: 1815 }] });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'] });
const ctx = await browser.newContext({ extraHTTPHeaders: { Authorization: AUTH } });
const page = await ctx.newPage();
page.on('pageerror', (e) => console.log('PAGEERROR', e.message));
page.on('console', (m) => { if (m.type() === 'error') console.log('CONSOLE', m.text().slice(0, 200)); });
for (const hash of process.argv.slice(2)) {
  await page.goto(s.url + '/_utils/#' + hash);
  await page.waitForTimeout(1500);
  const name = hash.replace(/[^a-z0-9]+/gi, '_');
  await page.screenshot({ path: `/tmp/fxs/${name}.png` });
  console.log('=====', hash, '\n', (await page.locator('#dashboard-content, .flex-body, body').first().innerText()).slice(0, 700));
}
if (process.env.HTML) console.log((await page.content()).slice(0, Number(process.env.HTML)));
await browser.close(); await s.close();
