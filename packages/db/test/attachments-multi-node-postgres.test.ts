/**
 * Attachment bytes and compaction across server nodes on one PostgreSQL: a compaction on one
 * node never frees bytes another node has stored for a revision it has not committed yet, and
 * the bytes of an upload whose node died go with the next compaction on any node.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { strayAttachmentChunks } from './support/attachment-leftovers.js';
import { startChildServer } from './support/child-server.js';
import { nodeArgs } from './support/postgres.js';
import { raw } from './support/raw-http.js';
import { AUTH, type TestServer } from './support/server.js';
import { twoNodesOnPostgres } from './support/two-nodes.js';
import { until } from './support/until.js';

const md5 = (bytes: Buffer) => `md5-${createHash('md5').update(bytes).digest('base64')}`;
/** Bytes that do not compress, `seed` telling one run of them from another. */
const bytesOf = (size: number, seed: number) =>
  Buffer.from(Array.from({ length: size }, (_, i) => (i * 7919 + seed * 104729 + (i >> 9)) & 0xff));

describe('attachments on two Divan nodes on one PostgreSQL', () => {
  let a: TestServer;
  let b: TestServer;
  const { url, schema } = twoNodesOnPostgres('attnodes', (nodes) => ({ a, b } = nodes));
  before(async () => {
    assert.equal((await a.request('PUT', '/shared')).status, 201);
  });

  /** `POST /shared/_compact` on a node, and its end. */
  const compact = async (node: TestServer) => {
    assert.equal((await node.request('POST', '/shared/_compact', { body: {} })).status, 202);
    await until(async () => !(await node.request('GET', '/shared')).json.compact_running, 'compaction ends');
  };
  const storedDigests = async () => {
    const out: string[] = [];
    for await (const page of (await a.server.couch.db('shared')).store.foldAttachments()) {
      for (const info of page) out.push(info.digest);
    }
    return out.sort();
  };
  const readBack = async (node: TestServer, path: string) => (await raw(node.url, 'GET', path)).body;

  it('a compaction on one node frees none of the bytes another node is still uploading', async () => {
    // Content only an old revision holds: the compactions below are to free it (and only it).
    const old = await raw(a.url, 'PUT', '/shared/old/x.bin', { body: bytesOf(1000, 1) });
    await raw(a.url, 'PUT', `/shared/old/x.bin?rev=${old.json.rev}`, { body: bytesOf(1000, 2) });
    const oldDigest = md5(bytesOf(1000, 1));

    // On b: a replicator-style multipart PUT whose first attachment is stored whole while the
    // second one is slow to come, and a standalone PUT halfway through its body.
    const first = bytesOf(300 * 1024, 3);
    const second = bytesOf(300 * 1024, 4);
    const standalone = bytesOf(700 * 1024, 5);
    let resume!: () => void;
    const paused = new Promise<void>((resolve) => (resume = resolve));
    const B = 'nodes-boundary';
    const doc = {
      kept: true,
      _attachments: {
        'first.bin': { follows: true, length: first.length, content_type: 'application/octet-stream' },
        'second.bin': { follows: true, length: second.length, content_type: 'application/octet-stream' },
      },
    };
    const multipart = raw(b.url, 'PUT', '/shared/uploading', {
      headers: { 'content-type': `multipart/related; boundary="${B}"` },
      body: (async function* () {
        yield Buffer.from(`--${B}\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(doc)}\r\n--${B}\r\n\r\n`);
        yield first;
        yield Buffer.from(`\r\n--${B}\r\n\r\n`);
        yield second.subarray(0, 1000);
        await paused;
        yield second.subarray(1000);
        yield Buffer.from(`\r\n--${B}--`);
      })(),
    });
    const single = raw(b.url, 'PUT', '/shared/slow/big.bin', {
      headers: { 'content-length': standalone.length },
      body: (async function* () {
        yield standalone.subarray(0, 400 * 1024);
        await paused;
        yield standalone.subarray(400 * 1024);
      })(),
    });
    const store = (await a.server.couch.db('shared')).store;
    await until(async () => (await store.attachmentInfo(md5(first))) !== undefined, "the first part's bytes stored");

    await compact(a);
    assert.ok((await storedDigests()).includes(md5(first)), "b's stored bytes are still there");
    resume();
    const [put, putSingle] = await Promise.all([multipart, single]);
    assert.deepEqual([put.status, putSingle.status], [201, 201]);
    for (const node of [a, b]) {
      assert.ok((await readBack(node, '/shared/uploading/first.bin')).equals(first), 'first.bin, byte for byte');
      assert.ok((await readBack(node, '/shared/uploading/second.bin')).equals(second), 'second.bin, byte for byte');
      assert.ok((await readBack(node, '/shared/slow/big.bin')).equals(standalone), 'big.bin, byte for byte');
    }
    // Once nothing is under way, a compaction on either node frees what nothing refers to.
    await compact(a);
    const left = await storedDigests();
    assert.ok(!left.includes(oldDigest), 'the old revision content went');
    assert.ok(left.includes(md5(first)) && left.includes(md5(second)) && left.includes(md5(standalone)));
    assert.ok((await readBack(b, '/shared/uploading/first.bin')).equals(first));
  });

  it('the bytes of an upload whose node was killed go with the next compaction on another node', async () => {
    if (url instanceof Error) throw url;
    const dataDir = mkdtempSync(join(tmpdir(), 'divan-attnodes-'));
    const node = await startChildServer(nodeArgs(url, schema, dataDir));
    try {
      const socket = connect(Number(new URL(node.url).port), '127.0.0.1');
      socket.on('error', () => {});
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(
        `PUT /shared/dying/big.bin HTTP/1.1\r\nHost: x\r\nAuthorization: ${AUTH}\r\nContent-Length: 2000000\r\n\r\n`,
      );
      socket.write(bytesOf(700 * 1024, 6));
      await until(async () => (await strayAttachmentChunks(a, 'shared')) >= 2, 'the upload has chunks stored');
      node.child.kill('SIGKILL');
      await node.exited;
      socket.destroy();
      // PostgreSQL lets go of the dead node's lock once it sees its connection closed.
      await until(async () => {
        await compact(a);
        return (await strayAttachmentChunks(a, 'shared')) === 0;
      }, "the dead node's chunks freed");
      assert.equal((await a.request('GET', '/shared/dying')).status, 404);
    } finally {
      node.child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
