/**
 * Acknowledged writes survive `kill -9`: a real `divan serve` process takes single-document PUTs
 * and `_bulk_docs` batches from several concurrent writers, is killed with SIGKILL while requests
 * are in flight, then restarted on the same storage: every acknowledged document is there with
 * the acknowledged rev, and a view that was being updated while the process died answers what the
 * same view built from scratch answers. Run on each engine (crash.test.ts, crash-postgres.test.ts).
 */
import assert from 'node:assert/strict';
import { startChildServer } from './child-server.js';
import { request } from './server.js';

/** `args`: the storage arguments of `divan serve` (besides the port), the same for both starts. */
export async function acknowledgedWritesSurviveKill(args: string[]): Promise<void> {
  const first = await startChildServer(args);
  assert.equal((await request(first.url, 'PUT', '/load')).status, 201);
  assert.equal((await request(first.url, 'PUT', '/load/_design/crash', { body: designDoc('') })).status, 201);
  // A reader keeps the view updating while the writers write, so the kill finds it mid-update.
  let reading = true;
  const reader = (async () => {
    while (reading) {
      try {
        await request(first.url, 'GET', '/load/_design/crash/_view/by_n?group=true');
      } catch {
        return;
      }
    }
  })();

  const acked = new Map<string, string>();
  let stop = false;
  const writer = async (n: number) => {
    for (let i = 0; !stop; i++) {
      try {
        if (i % 4 === 0) {
          const docs = Array.from({ length: 50 }, (_, k) => ({
            _id: `w${n}-b${i}-${k}`,
            n,
            i,
            k,
            pad: 'x'.repeat(200),
          }));
          const r = await request(first.url, 'POST', '/load/_bulk_docs', { body: { docs } });
          if (r.status === 201) for (const row of r.json) acked.set(row.id, row.rev);
        } else {
          const id = `w${n}-s${i}`;
          const r = await request(first.url, 'PUT', `/load/${id}`, { body: { n, i } });
          if (r.status === 201) acked.set(id, r.json.rev);
        }
      } catch {
        return; // the server is gone: this request was never acknowledged
      }
    }
  };
  const writers = [0, 1, 2, 3].map(writer);
  while (acked.size < 2000) await new Promise((resolve) => setTimeout(resolve, 10));
  first.child.kill('SIGKILL');
  stop = true;
  reading = false;
  await reader;
  assert.equal(await first.exited, 'SIGKILL');
  await Promise.all(writers);

  const second = await startChildServer(args);
  try {
    const ids = [...acked.keys()];
    const r = await request(second.url, 'POST', '/load/_all_docs', { body: { keys: ids } });
    assert.equal(r.status, 200);
    const missing = r.json.rows.filter(
      (row: any, i: number) => row.error !== undefined || row.value.rev !== acked.get(ids[i]!),
    );
    assert.deepEqual(missing, [], `${missing.length} of ${ids.length} acknowledged writes lost`);
    const info = (await request(second.url, 'GET', '/load')).json;
    assert.ok(info.doc_count >= acked.size);
    assert.equal(info.update_seq, info.doc_count);
    // The view the kill interrupted, brought up to date, equals a view of the same map built now.
    const survived = await request(second.url, 'GET', '/load/_design/crash/_view/by_n?group=true');
    assert.equal((await request(second.url, 'PUT', '/load/_design/fresh', { body: designDoc(' ') })).status, 201);
    const rebuilt = await request(second.url, 'GET', '/load/_design/fresh/_view/by_n?group=true');
    assert.equal(survived.status, 200);
    assert.deepEqual(survived.json.rows, rebuilt.json.rows);
    const mapRows = (ddoc: string) =>
      request(second.url, 'GET', `/load/_design/${ddoc}/_view/by_n?reduce=false`).then((r) => r.json.rows);
    assert.deepEqual(await mapRows('crash'), await mapRows('fresh'));
  } finally {
    second.child.kill('SIGTERM');
    await second.exited;
  }
}

/** A design doc whose view counts the documents of each writer; `pad` changes its signature only. */
function designDoc(pad: string): unknown {
  return { views: { by_n: { map: `function (d) { if (d.n !== undefined) emit(d.n, 1);${pad}}`, reduce: '_count' } } };
}

/**
 * Two nodes on one shared storage (`args(dir)`: the arguments of `divan serve` for a node with
 * data folder `dir`): the first is killed with SIGKILL while it updates a view index, and the
 * second, queried then, finishes the update; its answer equals the same view built from scratch.
 */
export async function nodeKilledMidIndexUpdate(args: (node: 'a' | 'b') => string[]): Promise<void> {
  const a = await startChildServer(args('a'));
  const b = await startChildServer(args('b'));
  try {
    assert.equal((await request(a.url, 'PUT', '/shared')).status, 201);
    // A map function slow enough (~0.2 ms a document) that the update is still running when the kill comes.
    const slow = 'var t = Date.now(); while (Date.now() - t < 0.2) {}';
    const ddoc = (pad: string) => ({
      views: {
        by_n: { map: `function (d) { ${slow} if (d.n !== undefined) emit(d.n % 13, d.n);${pad}}`, reduce: '_sum' },
      },
    });
    const load = async (from: number, count: number) => {
      const docs = Array.from({ length: count }, (_, i) => ({ _id: `d${from + i}`, n: from + i }));
      assert.equal((await request(a.url, 'POST', '/shared/_bulk_docs', { body: { docs } })).status, 201);
    };
    await load(0, 1000);
    assert.equal((await request(a.url, 'PUT', '/shared/_design/v', { body: ddoc('') })).status, 201);
    const query = '/_design/v/_view/by_n?group=true';
    const first = await request(a.url, 'GET', `/shared${query}`);
    assert.equal(first.status, 200, `${JSON.stringify(first.json)}\n${a.output().slice(-4000)}`);
    for (let from = 1000; from < 6000; from += 1000) await load(from, 1000);
    // A's update of 5,000 documents: killed once it is under way.
    void request(a.url, 'GET', `/shared${query}`).catch(() => {});
    for (;;) {
      const tasks = (await request(a.url, 'GET', '/_active_tasks')).json as { changes_done: number }[];
      if (tasks.some((task) => task.changes_done > 0)) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    a.child.kill('SIGKILL');
    assert.equal(await a.exited, 'SIGKILL');
    // B waits for the lock the dead node held, then updates from the last stored version.
    const finished = await request(b.url, 'GET', `/shared${query}`);
    assert.equal(finished.status, 200, `${JSON.stringify(finished.json)}\n${b.output().slice(-4000)}`);
    assert.equal((await request(b.url, 'PUT', '/shared/_design/fresh', { body: ddoc(' ') })).status, 201);
    const rebuilt = await request(b.url, 'GET', `/shared/_design/fresh/_view/by_n?group=true`);
    assert.deepEqual(finished.json.rows, rebuilt.json.rows);
    assert.equal(
      finished.json.rows.reduce((sum: number, row: { value: number }) => sum + row.value, 0),
      (6000 * 5999) / 2,
    );
  } finally {
    a.child.kill('SIGKILL');
    b.child.kill('SIGTERM');
    await b.exited;
  }
}
