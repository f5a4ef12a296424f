/**
 * One access-enabled database against `couch_peruser` (one database per user), in the same run
 * (#30): `npm run bench -w @divan/db -- --suite access-sync`, or after `npx tsc -b`:
 * `node --no-node-snapshot packages/db/dist/bench/access-sync.js [users] [perUser]` (1,000 × 20).
 *
 * Each layout runs in a child process of its own (a Divan server in process, SQLite), loaded with
 * the same `users × perUser` documents: `shared` holds them in one database with
 * `_access: [user]`, `peruser` in `userdb-<hex>` databases made by `couch_peruser`. Then:
 * - every user's first sync, as PouchDB pulls into an empty database: its checkpoint read,
 *   `_changes?style=all_docs` in batches of 100, `_bulk_get` of each batch, its checkpoint written
 *   (the server's share, with no client library's own work in the figure);
 * - every user's first pull by PouchDB itself (pouchdb-core 9, the memory adapter, over HTTP as
 *   that user, eight users at a time), which is what the issue names: the figure a user meets;
 * - a fan-in view (documents by type, `_count`): on the shared database a view; with one database
 *   per user the usual way, every user database replicated into one, then that view.
 * It prints the parent's ratios shared / peruser (below 1: the shared database is cheaper) of disk
 * bytes, resident memory, the CPU time (server and client in one process: the machine is shared)
 * and wall time of a user's first sync and of the fan-in view.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../src/start-server.js';

const ADMIN = { name: 'admin', password: 'secret' };
const basic = (name: string, password: string) =>
  `Basic ${Buffer.from(`${name}:${password}`, 'utf8').toString('base64')}`;
const userName = (u: number) => `user${String(u).padStart(4, '0')}`;
const BATCH = 100;
const SYNC_CONCURRENCY = 8;

interface Figures {
  layout: string;
  loadMs: number;
  diskBytes: number;
  rssBytes: number;
  maxRssBytes: number;
  syncCpuMs: number;
  syncWallMs: number;
  pouchCpuMs: number;
  pouchWallMs: number;
  pouchDocs: number;
  viewCpuMs: number;
  viewWallMs: number;
  docsSynced: number;
  viewTotal: number;
}

function diskOf(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? diskOf(path) : statSync(path).size;
  }
  return total;
}

interface PouchDatabase {
  replicate: { from(source: PouchDatabase): Promise<{ docs_written: number; ok: boolean }> };
  destroy(): Promise<unknown>;
}
type PouchConstructor = (new (
  name: string,
  options?: object,
) => PouchDatabase) & {
  fetch(url: string, options: { headers: Headers }): Promise<Response>;
};

/** PouchDB as an app has it: core, the memory adapter for the local copy, HTTP for the server. */
function pouchDB(): PouchConstructor {
  const require = createRequire(import.meta.url);
  return require('pouchdb-core')
    .plugin(require('pouchdb-adapter-memory'))
    .plugin(require('pouchdb-adapter-http'))
    .plugin(require('pouchdb-replication')) as PouchConstructor;
}

const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

/** `task` for users 0 … users − 1, SYNC_CONCURRENCY at a time: its wall and CPU time. */
async function everyUser(
  users: number,
  task: (u: number) => Promise<void>,
): Promise<{ wallMs: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const start = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: SYNC_CONCURRENCY }, async () => {
      while (next < users) await task(next++);
    }),
  );
  return { wallMs: Date.now() - start, cpuMs: cpuMs(cpu) };
}

async function child(layout: 'shared' | 'peruser', users: number, perUser: number): Promise<Figures> {
  const dataDir = mkdtempSync(join(tmpdir(), `divan-bench-access-sync-${layout}-`));
  const server = await startServer({ port: 0, dataDir, admin: ADMIN, hashIterations: 10, log: () => {} });
  const call = async (method: string, path: string, body?: unknown, auth = basic(ADMIN.name, ADMIN.password)) => {
    const response = await fetch(server.url + path, {
      method,
      headers: { authorization: auth, 'content-type': 'application/json', accept: 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (response.status >= 400 && response.status !== 404)
      throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return { status: response.status, json: text === '' ? undefined : JSON.parse(text) };
  };
  try {
    const loadStart = Date.now();
    const dbOf = (u: number) =>
      layout === 'shared' ? 'shared' : `userdb-${Buffer.from(userName(u), 'utf8').toString('hex')}`;
    if (layout === 'shared') {
      await call('PUT', '/shared?access=true');
      await call('PUT', '/shared/_security', {
        members: { roles: ['_admin', '_users'] },
        admins: { roles: ['_admin'] },
      });
      // PouchDB writes its checkpoints without `_access`.
      await call('PUT', '/_node/_local/_config/per_doc_access/autofill', 'true');
    } else {
      await call('PUT', '/_node/_local/_config/couch_peruser/enable', 'true');
    }
    for (let at = 0; at < users; at += 500) {
      const docs = [];
      for (let u = at; u < Math.min(users, at + 500); u++) {
        docs.push({
          _id: `org.couchdb.user:${userName(u)}`,
          name: userName(u),
          password: 'pw',
          roles: [],
          type: 'user',
        });
      }
      await call('POST', '/_users/_bulk_docs', { docs });
    }
    if (layout === 'peruser') {
      // couch_peruser makes each database as it follows `_users`.
      for (let waited = 0; ; waited += 100) {
        const last = await call('GET', `/${dbOf(users - 1)}`);
        if (last.status === 200) break;
        if (waited > 600_000) throw new Error('couch_peruser did not make the databases');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await server.couch.perUser.settled();
    }
    for (let u = 0; u < users; u++) {
      const docs = [];
      for (let i = 0; i < perUser; i++) {
        docs.push({
          _id: `${userName(u)}-${String(i).padStart(4, '0')}`,
          type: `t${i % 5}`,
          n: i,
          text: 'x'.repeat(200),
          ...(layout === 'shared' ? { _access: [userName(u)] } : {}),
        });
      }
      await call('POST', `/${dbOf(u)}/_bulk_docs`, { docs });
    }
    const loadMs = Date.now() - loadStart;

    // Every user's first sync, as PouchDB pulls into an empty database.
    let docsSynced = 0;
    const syncOne = async (u: number) => {
      const auth = basic(userName(u), 'pw');
      const db = dbOf(u);
      const checkpoint = `_local/bench-${userName(u)}`;
      await call('GET', `/${db}/${checkpoint}`, undefined, auth);
      let since: unknown = 0;
      for (;;) {
        const changes = await call(
          'GET',
          `/${db}/_changes?style=all_docs&since=${encodeURIComponent(String(since))}&limit=${BATCH}`,
          undefined,
          auth,
        );
        const results = changes.json.results as { id: string; changes: { rev: string }[] }[];
        if (results.length > 0) {
          const docs = results.flatMap((row) => row.changes.map((change) => ({ id: row.id, rev: change.rev })));
          const got = await call('POST', `/${db}/_bulk_get?revs=true&attachments=true&latest=true`, { docs }, auth);
          docsSynced += (got.json.results as unknown[]).length;
        }
        since = changes.json.last_seq;
        await call('PUT', `/${db}/${checkpoint}`, { last_seq: since, session_id: 'bench' }, auth);
        if (results.length < BATCH) break;
      }
    };
    const { wallMs: syncWallMs, cpuMs: syncCpuMs } = await everyUser(users, syncOne);

    // Every user's first pull by PouchDB itself, into a new in-memory database.
    const PouchDB = pouchDB();
    let pouchDocs = 0;
    const pullOne = async (u: number) => {
      const auth = basic(userName(u), 'pw');
      const remote = new PouchDB(`${server.url}/${dbOf(u)}`, {
        fetch: (url: string, options: { headers: Headers }) => {
          options.headers.set('Authorization', auth);
          return PouchDB.fetch(url, options);
        },
      });
      const local = new PouchDB(`bench-${layout}-${u}`, { adapter: 'memory' });
      const result = await local.replicate.from(remote);
      if (!result.ok) throw new Error(`PouchDB's pull for ${userName(u)} did not finish`);
      pouchDocs += result.docs_written;
      await local.destroy();
    };
    const { wallMs: pouchWallMs, cpuMs: pouchCpuMs } = await everyUser(users, pullOne);

    // A fan-in view over every user's documents.
    const viewCpu = process.cpuUsage();
    const viewStart = Date.now();
    let target = 'shared';
    if (layout === 'peruser') {
      target = 'aggregate';
      await call('PUT', '/aggregate');
      for (let u = 0; u < users; u++) await call('POST', '/_replicate', { source: dbOf(u), target });
    }
    await call('PUT', `/${target}/_design/fan`, {
      views: { byType: { map: 'function (doc) { if (doc.type) emit(doc.type, 1); }', reduce: '_count' } },
    });
    const view = await call('GET', `/${target}/_design/fan/_view/byType`);
    const viewWallMs = Date.now() - viewStart;
    const viewCpuMs = cpuMs(viewCpu);
    const viewTotal = (view.json.rows as { value: number }[]).reduce((sum, row) => sum + row.value, 0);

    return {
      layout,
      loadMs,
      diskBytes: diskOf(dataDir),
      rssBytes: process.memoryUsage().rss,
      maxRssBytes: process.resourceUsage().maxRSS * 1024,
      syncCpuMs,
      syncWallMs,
      pouchCpuMs,
      pouchWallMs,
      pouchDocs,
      viewCpuMs,
      viewWallMs,
      docsSynced,
      viewTotal,
    };
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const args = process.argv.slice(2);
const layoutAt = args.indexOf('--layout');
if (layoutAt >= 0) {
  const layout = args[layoutAt + 1] as 'shared' | 'peruser';
  const [users, perUser] = args.filter((_, i) => i !== layoutAt && i !== layoutAt + 1).map(Number);
  console.log(JSON.stringify(await child(layout, users!, perUser!)));
} else {
  const users = Number(args[0] ?? 1000);
  const perUser = Number(args[1] ?? 20);
  const figures: Record<string, Figures> = {};
  for (const layout of ['shared', 'peruser']) {
    const run = spawnSync(
      process.execPath,
      ['--no-node-snapshot', fileURLToPath(import.meta.url), '--layout', layout, String(users), String(perUser)],
      { encoding: 'utf8', maxBuffer: 1 << 24, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    if (run.status !== 0) throw new Error(`access-sync: the ${layout} run failed (${run.status})`);
    const line = run.stdout.trim().split('\n').pop()!;
    figures[layout] = JSON.parse(line) as Figures;
    const f = figures[layout]!;
    console.log(
      `access-sync: ${layout}: loaded ${users} users × ${perUser} docs in ${f.loadMs} ms; disk ${(f.diskBytes / 2 ** 20).toFixed(1)} MiB; ` +
        `RSS ${(f.rssBytes / 2 ** 20).toFixed(0)} MiB (peak ${(f.maxRssBytes / 2 ** 20).toFixed(0)}); ` +
        `first syncs ${f.syncCpuMs.toFixed(0)} ms CPU / ${f.syncWallMs} ms (${f.docsSynced} docs); ` +
        `PouchDB pulls ${f.pouchCpuMs.toFixed(0)} ms CPU / ${f.pouchWallMs} ms (${f.pouchDocs} docs); ` +
        `fan-in view ${f.viewCpuMs.toFixed(0)} ms CPU / ${f.viewWallMs} ms (${f.viewTotal} rows)`,
    );
  }
  const shared = figures.shared!;
  const peruser = figures.peruser!;
  for (const f of [shared, peruser]) {
    if (f.docsSynced !== users * perUser || f.pouchDocs !== users * perUser) {
      throw new Error(
        `access-sync: ${f.layout} synced ${f.docsSynced} and PouchDB pulled ${f.pouchDocs}, expected ${users * perUser}`,
      );
    }
  }
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
  console.log(
    `access-sync: shared / peruser (below 1: one access-enabled database is cheaper): ` +
      `disk ${ratio(shared.diskBytes, peruser.diskBytes)}, RSS ${ratio(shared.rssBytes, peruser.rssBytes)} ` +
      `(peak ${ratio(shared.maxRssBytes, peruser.maxRssBytes)}), ` +
      `a user's first sync ${ratio(shared.syncCpuMs, peruser.syncCpuMs)} CPU / ${ratio(shared.syncWallMs, peruser.syncWallMs)} wall, ` +
      `PouchDB's pulls ${ratio(shared.pouchCpuMs, peruser.pouchCpuMs)} CPU / ${ratio(shared.pouchWallMs, peruser.pouchWallMs)} wall, ` +
      `fan-in view ${ratio(shared.viewCpuMs, peruser.viewCpuMs)} CPU / ${ratio(shared.viewWallMs, peruser.viewWallMs)} wall`,
  );
}
