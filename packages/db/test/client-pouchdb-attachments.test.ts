/**
 * PouchDB 9 (pouchdb-core + pouchdb-replication + the in-memory adapter, unchanged) replicating
 * documents with attachments to and from the server, as an offline-first application does:
 * push, pull, attachments changed on either side afterwards, and live sync both ways.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { raw } from './support/raw-http.js';
import { ADMIN, startTestServer, type TestServer } from './support/server.js';
import { until } from './support/until.js';

const require = createRequire(import.meta.url);
// The PouchDB packages ship no type declarations: used untyped, as in a plain JS application.
const PouchDB = require('pouchdb-core')
  .plugin(require('pouchdb-adapter-http'))
  .plugin(require('pouchdb-adapter-memory'))
  .plugin(require('pouchdb-replication'));

const photo = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 31) % 256));

let localCount = 0;
const local = () => new PouchDB(`local-${localCount++}`, { adapter: 'memory' });

describe('PouchDB replication of attachments', () => {
  let t: TestServer;
  const remote = (name: string) =>
    new PouchDB(`${t.url}/${name}`, { auth: { username: ADMIN.name, password: ADMIN.password } });
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  it('push: documents with attachments arrive with their bytes, types and digests', async () => {
    const source = local();
    await source.bulkDocs([
      {
        _id: 'photo',
        title: 'a photo',
        _attachments: {
          'p.jpg': { content_type: 'image/jpeg', data: photo },
          'note.txt': { content_type: 'text/plain', data: Buffer.from('a note') },
        },
      },
      { _id: 'plain', n: 1 },
    ]);
    const target = remote('pushed');
    const result = await source.replicate.to(target);
    assert.equal(result.ok, true);
    assert.equal(result.docs_written, 2);
    const served = await raw(t.url, 'GET', '/pushed/photo/p.jpg');
    assert.deepEqual([served.status, served.headers['content-type']], [200, 'image/jpeg']);
    assert.ok(served.body.equals(photo));
    assert.equal((await raw(t.url, 'GET', '/pushed/photo/note.txt')).body.toString(), 'a note');
    const mine = await source.get('photo');
    const theirs = (await t.request('GET', '/pushed/photo')).json;
    assert.equal(theirs._rev, mine._rev);
    assert.equal(theirs._attachments['p.jpg'].digest, mine._attachments['p.jpg'].digest);
    // An attachment changed locally goes over as a new revision; the unchanged one as a stub.
    const doc = await source.get('photo');
    await source.putAttachment('photo', 'note.txt', doc._rev, Buffer.from('edited'), 'text/plain');
    await source.replicate.to(target);
    assert.equal((await raw(t.url, 'GET', '/pushed/photo/note.txt')).body.toString(), 'edited');
    assert.ok((await raw(t.url, 'GET', '/pushed/photo/p.jpg')).body.equals(photo));
    await source.destroy();
  });

  it('pull: attachments written on the server (inline, standalone) come down byte for byte', async () => {
    await t.request('PUT', '/pulled');
    await raw(t.url, 'PUT', '/pulled/d1/p.bin', { body: photo, headers: { 'content-type': 'application/x-photo' } });
    await t.request('PUT', '/pulled/d2', {
      body: {
        v: 2,
        _attachments: {
          'x.json': { content_type: 'application/json', data: Buffer.from('{"a":1}').toString('base64') },
        },
      },
    });
    const target = local();
    const result = await target.replicate.from(remote('pulled'));
    assert.equal(result.ok, true);
    assert.equal(result.docs_written, 2);
    const blob = await target.getAttachment('d1', 'p.bin');
    assert.ok(Buffer.from(blob).equals(photo));
    assert.equal(Buffer.from(await target.getAttachment('d2', 'x.json')).toString(), '{"a":1}');
    const d1 = await target.get('d1');
    assert.equal(d1._attachments['p.bin'].content_type, 'application/x-photo');
    assert.equal(d1._rev, (await t.request('GET', '/pulled/d1')).json._rev);
    // A second attachment added on the server: the next pull brings it, the first is not sent again.
    await raw(t.url, 'PUT', `/pulled/d1/second.txt?rev=${d1._rev}`, {
      body: 'second',
      headers: { 'content-type': 'text/plain' },
    });
    await target.replicate.from(remote('pulled'));
    assert.equal(Buffer.from(await target.getAttachment('d1', 'second.txt')).toString(), 'second');
    assert.ok(Buffer.from(await target.getAttachment('d1', 'p.bin')).equals(photo));
    await target.destroy();
  });

  it('live sync both ways carries attachments as they are written on either side', async () => {
    await t.request('PUT', '/live');
    const mine = local();
    const sync = PouchDB.sync(mine, remote('live'), { live: true, retry: true });
    try {
      await mine.put({
        _id: 'from-local',
        _attachments: { 'a.bin': { content_type: 'x/y', data: photo.subarray(0, 5000) } },
      });
      await until(async () => {
        const r = await raw(t.url, 'GET', '/live/from-local/a.bin');
        return r.status === 200 && r.body.equals(photo.subarray(0, 5000));
      }, 'the local attachment on the server');
      await raw(t.url, 'PUT', '/live/from-server/b.txt', {
        body: 'server bytes',
        headers: { 'content-type': 'text/plain' },
      });
      await until(async () => {
        try {
          return Buffer.from(await mine.getAttachment('from-server', 'b.txt')).toString() === 'server bytes';
        } catch {
          return false;
        }
      }, 'the server attachment locally');
    } finally {
      sync.cancel();
      await mine.destroy();
    }
  });
});
