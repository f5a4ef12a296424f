import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';

/**
 * The language analyzers over HTTP (run on SQLite, then on PostgreSQL): `/_search_analyze`
 * and `/_nouveau_analyze` by name, and indexes of each kind that use them (`_search`'s
 * `analyzer`, Nouveau's `default_analyzer`, a Mango text index's default field).
 */
describe('language analyzers over HTTP', () => {
  let t: TestServer;
  const analyze = async (path: string, analyzer: unknown, text: string) =>
    (await t.request('POST', path, { body: { analyzer, text } })).json;

  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/l');
    await t.request('POST', '/l/_bulk_docs', {
      body: {
        docs: [
          { _id: 'fr', lang: 'fr', text: "Voir l'embrouille des chevaux" },
          { _id: 'de', lang: 'de', text: 'Die Schaltflächen der Tische' },
          { _id: 'es', lang: 'es', text: 'Los chicanos' },
          { _id: 'it', lang: 'it', text: "Dell'Italia abbandonata" },
          { _id: 'pt', lang: 'pt', text: 'Os homens quilométricos' },
        ],
      },
    });
  });
  after(() => t.close());

  it('/_search_analyze and /_nouveau_analyze name each language', async () => {
    for (const path of ['/_search_analyze', '/_nouveau_analyze']) {
      assert.deepEqual(await analyze(path, 'french', "voir l'embrouille"), { tokens: ['voir', 'embrouil'] });
      assert.deepEqual(await analyze(path, 'german', 'Schaltflaechen der Tische'), {
        tokens: ['schaltflach', 'tisch'],
      });
      assert.deepEqual(await analyze(path, 'spanish', 'los chicanos'), { tokens: ['chican'] });
      assert.deepEqual(await analyze(path, 'italian', "dell'Italia"), { tokens: ['ital'] });
      assert.deepEqual(await analyze(path, 'portuguese', 'não homens'), { tokens: ['homem'] });
      assert.deepEqual(await analyze(path, 'dutch', 'de lichamelijke kind'), { tokens: ['licham', 'kinder'] });
      assert.deepEqual(await analyze(path, 'russian', 'Но знание это'), { tokens: ['знан', 'эт'] });
      assert.deepEqual(await analyze(path, 'danish', 'på undersøgelse'), { tokens: ['undersøg'] });
      assert.deepEqual(await analyze(path, 'swedish', 'och jaktkarlarne'), { tokens: ['jaktkarl'] });
      assert.deepEqual(await analyze(path, 'norwegian', 'det havnedistriktene'), { tokens: ['havnedistrikt'] });
      assert.deepEqual(await analyze(path, 'finnish', 'olla edeltäjiinsä'), { tokens: ['edeltäj'] });
      assert.deepEqual(await analyze(path, 'hungarian', 'által babakocsijáért'), { tokens: ['babakocs'] });
      assert.deepEqual(await analyze(path, 'irish', "le b'fhearr"), { tokens: ['fearr'] });
      assert.deepEqual(await analyze(path, 'armenian', 'մենք արծիվներ'), { tokens: ['արծ'] });
      assert.deepEqual(await analyze(path, 'romanian', 'aceasta abilitatea'), { tokens: ['abil'] });
      assert.deepEqual(await analyze(path, 'catalan', "un home d'Estudis"), { tokens: ['hom', 'estud'] });
      assert.deepEqual(await analyze(path, 'basque', 'izan zaldiak'), { tokens: ['zaldi'] });
      assert.deepEqual(await analyze(path, 'latvian', 'un viļņu'), { tokens: ['viln'] });
      assert.deepEqual(await analyze(path, 'hindi', 'और हिन्दी'), { tokens: ['हिंद'] });
      assert.deepEqual(await analyze(path, 'galician', 'as cidades galegas'), { tokens: ['cid', 'galeg'] });
      assert.deepEqual(await analyze(path, 'greek', 'Ο ΆΝΘΡΩΠΟΣ'), { tokens: ['ανθρωπ'] });
      assert.deepEqual(await analyze(path, 'brazilian', 'as nações'), { tokens: ['naco'] });
      assert.deepEqual(await analyze(path, 'turkish', 'dolayı ağacı'), { tokens: ['ağaç'] });
      assert.deepEqual(await analyze(path, 'thai', 'การที่ได้ต้องแสดงว่างานดี'), { tokens: ['แสดง', 'งาน', 'ดี'] });
    }
    // A name that is no analyzer is refused, named, with the ones there are.
    for (const name of ['klingon']) {
      const refused = await t.request('POST', '/_search_analyze', { body: { analyzer: name, text: 'x' } });
      assert.equal(refused.status, 400, name);
      assert.match(
        refused.json.reason,
        new RegExp(`Unsupported analyzer: ${name} .*finnish, .*hungarian, .*irish, .*japanese`),
      );
    }
    assert.deepEqual(await analyze('/_search_analyze', { name: 'french', stopwords: ['voir'] }, 'voir le'), {
      tokens: ['le'],
    });
  });

  it('a _search index with per-field language analyzers finds stems', async () => {
    const INDEX = 'function (doc) { index(doc.lang, doc.text); }';
    await t.request('PUT', '/l/_design/s', {
      body: {
        indexes: {
          i: {
            index: INDEX,
            analyzer: {
              name: 'perfield',
              default: 'standard',
              fields: { fr: 'french', de: 'german', es: 'spanish', it: 'italian', pt: 'portuguese' },
            },
          },
        },
      },
    });
    const ids = async (q: string) =>
      (await t.request('GET', `/l/_design/s/_search/i?q=${encodeURIComponent(q)}`)).json.rows.map(
        (r: { id: string }) => r.id,
      );
    assert.deepEqual(await ids('fr:embrouiller'), ['fr']);
    assert.deepEqual(await ids('fr:des'), []);
    assert.deepEqual(await ids('de:schaltflaeche'), ['de']);
    assert.deepEqual(await ids('es:chicana'), ['es']);
    assert.deepEqual(await ids('it:italia'), ['it']);
    assert.deepEqual(await ids('pt:homem'), ['pt']);
  });

  it("a Nouveau index's default_analyzer, and a Mango text index's default field analyzer", async () => {
    await t.request('PUT', '/l/_design/n', {
      body: {
        nouveau: { i: { index: 'function (doc) { index("text", "default", doc.text); }', default_analyzer: 'german' } },
      },
    });
    const hits = await t.request('GET', '/l/_design/n/_nouveau/i?q=tisch');
    assert.deepEqual(
      hits.json.hits.map((h: { id: string }) => h.id),
      ['de'],
    );
    await t.request('POST', '/l/_index', {
      body: { index: { default_field: { analyzer: 'french' } }, type: 'text', name: 'fr', ddoc: 'm' },
    });
    const found = await t.request('POST', '/l/_find', { body: { selector: { $text: 'cheval' }, fields: ['_id'] } });
    assert.deepEqual(found.json.docs, [{ _id: 'fr' }]);
  });
});
