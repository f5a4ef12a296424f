/**
 * Acknowledged attachments survive `kill -9`: a real `divan serve` process (the server itself,
 * not the launcher) takes standalone attachment uploads and documents with inline attachments
 * from concurrent writers, is killed with SIGKILL while uploads are under way, then restarted on
 * the same storage: every acknowledged attachment reads back byte for byte at the acknowledged
 * rev, and nothing half-uploaded shows. Run on each engine (crash.test.ts, crash-postgres.test.ts).
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { startChildServer } from './child-server.js';
import { raw } from './raw-http.js';

const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('base64');

export async function acknowledgedAttachmentsSurviveKill(args: string[]): Promise<void> {
  const first = await startChildServer(args);
  assert.equal((await raw(first.url, 'PUT', '/atts')).status, 201);
  const acked = new Map<string, { rev: string; name: string; md5: string }>();
  let stop = false;
  const writer = async (n: number) => {
    for (let i = 0; !stop; i++) {
      const bytes = randomBytes(i % 3 === 0 ? 600 * 1024 : 20 * 1024);
      const id = `w${n}-${i}`;
      try {
        if (i % 2 === 0) {
          const r = await raw(first.url, 'PUT', `/atts/${id}/blob.bin`, { body: bytes });
          if (r.status === 201) acked.set(id, { rev: r.json.rev, name: 'blob.bin', md5: md5(bytes) });
        } else {
          const body = JSON.stringify({
            _attachments: { 'a.txt': { content_type: 'text/plain', data: bytes.toString('base64') } },
          });
          const r = await raw(first.url, 'PUT', `/atts/${id}`, {
            body,
            headers: { 'content-type': 'application/json' },
          });
          if (r.status === 201) acked.set(id, { rev: r.json.rev, name: 'a.txt', md5: md5(bytes) });
        }
      } catch {
        return; // the server is gone: this upload was never acknowledged
      }
    }
  };
  const writers = [0, 1, 2].map(writer);
  while (acked.size < 60) await new Promise((resolve) => setTimeout(resolve, 10));
  first.child.kill('SIGKILL');
  stop = true;
  assert.equal(await first.exited, 'SIGKILL');
  await Promise.all(writers);

  const second = await startChildServer(args);
  try {
    for (const [id, want] of acked) {
      const doc = await raw(second.url, 'GET', `/atts/${id}`);
      assert.equal(doc.json._rev, want.rev, id);
      const bytes = await raw(second.url, 'GET', `/atts/${id}/${want.name}`);
      assert.equal(bytes.status, 200, id);
      assert.equal(md5(bytes.body), want.md5, id);
    }
    // Every document there has its attachment whole (an upload cut by the kill left no document).
    const all = await raw(second.url, 'GET', '/atts/_all_docs');
    for (const row of all.json.rows) {
      const doc = await raw(second.url, 'GET', `/atts/${row.id}`);
      const [name] = Object.keys(doc.json._attachments);
      const bytes = await raw(second.url, 'GET', `/atts/${row.id}/${name}`);
      assert.equal(bytes.body.length, doc.json._attachments[name!].length, row.id);
    }
  } finally {
    second.child.kill('SIGTERM');
    await second.exited;
  }
}
