// Measures the PostgreSQL engine on a throw-away server (scripts/postgres.mjs): a bulk load of
// 100,000 documents of ~365 bytes in batches of 1,000 through update(), then random
// getDoc + getBody pairs from 16 concurrent callers. Not yet part of `npm run bench`.
//
//   npm run build && node scripts/postgres-bench.mjs [--docs 100000] [--seconds 10] [--no-fsync]
//
// The server keeps PostgreSQL's default durability (fsync of the WAL at every commit) unless
// --no-fsync; DIVAN_TEST_POSTGRES=url measures an existing server instead.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { docId, makeDoc, rng } from '../packages/db/bench/common.mjs';
import { startPostgres } from './postgres.mjs';

const root = join(fileURLToPath(import.meta.url), '..', '..');
const { openPostgresStorage } = await import(join(root, 'packages/db/dist/src/storage/postgres/postgres-storage.js'));

const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};
const DOCS = arg('--docs', 100_000);
const BATCH = 1000;
const SECONDS = arg('--seconds', 10);
const CONCURRENCY = 16;

const md5 = (text) => createHash('md5').update(text).digest('hex');

/** The write of document i as the document layer would give it: first revision, its body, its tree. */
function writeOf(i, id) {
  const { _id, ...doc } = makeDoc(i);
  const body = JSON.stringify(doc);
  const hash = md5(body);
  const rev = `1-${hash}`;
  return { record: { id, rev, deleted: false, tree: `[[1,"${hash}",0,[]]]` }, bodies: [{ rev, body }] };
}

async function bulkLoad(db, ids, inFlight) {
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const at = next;
      next += BATCH;
      const batch = [];
      for (let i = at; i < Math.min(at + BATCH, ids.length); i++) batch.push(writeOf(i, ids[i]));
      const batchIds = batch.map((w) => w.record.id);
      await db.update(batchIds, (records) => ({
        writes: batch.map((w) => ({ ...w, isNew: !records.has(w.record.id) })),
        result: null,
      }));
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return ids.length / ((performance.now() - started) / 1000);
}

async function randomReads(db, ids, seconds) {
  let ops = 0;
  const random = rng(12345);
  const until = performance.now() + seconds * 1000;
  const worker = async () => {
    while (performance.now() < until) {
      const id = ids[Math.floor(random() * ids.length)];
      const record = await db.getDoc(id);
      if (record === undefined) throw new Error(`missing ${id}`);
      const body = await db.getBody(id, record.rev);
      if (body === undefined) throw new Error(`missing body of ${id}`);
      ops++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return ops / ((performance.now() - started) / 1000);
}

const durable = !process.argv.includes('--no-fsync');
const server = process.env.DIVAN_TEST_POSTGRES ? undefined : await startPostgres({ durable });
const url = process.env.DIVAN_TEST_POSTGRES ?? server.url;
const storage = await openPostgresStorage({ url, schema: `divan_bench_${process.pid}`, maxConnections: CONCURRENCY });
try {
  console.log(`PostgreSQL engine, ${DOCS} docs of ~365 bytes, batches of ${BATCH}, fsync ${durable ? 'on' : 'off'}`);
  const sequential = Array.from({ length: DOCS }, (_, i) => docId(i));
  const random = Array.from({ length: DOCS }, (_, i) => md5(`random-${i}`));
  const runs = [
    ['sequential ids, 1 batch in flight', 'seq1', sequential, 1],
    ['random ids, 1 batch in flight', 'rnd1', random, 1],
    ['random ids, 4 batches in flight', 'rnd4', random, 4],
  ];
  let loaded;
  for (const [label, name, ids, inFlight] of runs) {
    const db = await storage.create(name);
    const rate = await bulkLoad(db, ids, inFlight);
    console.log(`bulk load, ${label}: ${Math.round(rate).toLocaleString('en-US')} docs/s`);
    loaded ??= { db, ids };
  }
  const counters = await loaded.db.counters();
  if (counters.docCount !== DOCS) throw new Error(`loaded ${counters.docCount} docs, expected ${DOCS}`);
  await randomReads(loaded.db, loaded.ids, 2); // warm-up: every connection prepares its statements
  const reads = await randomReads(loaded.db, loaded.ids, SECONDS);
  console.log(
    `random getDoc + getBody, ${CONCURRENCY} concurrent, ${SECONDS} s: ${Math.round(reads).toLocaleString('en-US')} ops/s`,
  );
} finally {
  await storage.close();
  server?.stop();
}
