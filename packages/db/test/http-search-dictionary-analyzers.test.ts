import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './support/server.js';

/**
 * The analyzers on Lucene's dictionaries over HTTP (run on SQLite, then on PostgreSQL): documents
 * in the language indexed by `_search` and `_nouveau`, found by other forms of their words.
 */
describe('dictionary analyzers over HTTP', () => {
  let t: TestServer;
  const searchIds = async (db: string, q: string) => {
    const answer = await t.request('GET', `/${db}/_design/s/_search/i?q=${encodeURIComponent(q)}`);
    assert.equal(answer.status, 200, JSON.stringify(answer.json));
    return answer.json.rows.map((r: { id: string }) => r.id).sort();
  };
  const nouveauIds = async (db: string, q: string) => {
    const answer = await t.request('GET', `/${db}/_design/s/_nouveau/i?q=${encodeURIComponent(q)}`);
    assert.equal(answer.status, 200, JSON.stringify(answer.json));
    return answer.json.hits.map((h: { id: string }) => h.id).sort();
  };
  /** A database of `docs`, with a `_search` index and a Nouveau index of `text` on `analyzer`. */
  const indexed = async (db: string, analyzer: string, docs: { _id: string; text: string }[]) => {
    await t.request('PUT', `/${db}`);
    await t.request('POST', `/${db}/_bulk_docs`, { body: { docs } });
    const ddoc = await t.request('PUT', `/${db}/_design/s`, {
      body: {
        indexes: {
          i: {
            index: 'function (doc) { index("default", doc.text); index("title", doc._id); }',
            analyzer: { name: 'perfield', default: analyzer, fields: { title: 'keyword' } },
          },
        },
        nouveau: { i: { index: 'function (doc) { index("text", "default", doc.text); }', default_analyzer: analyzer } },
      },
    });
    assert.equal(ddoc.status, 201);
  };

  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  it('polish: Stempel stems find other forms of a word, stop words find nothing', async () => {
    await indexed('pl', 'polish', [
      { _id: 'kobiety', text: 'Kobiety czytały książki w bibliotece.' },
      { _id: 'dzieci', text: 'Dzieci bawiły się na podwórku z psami.' },
      { _id: 'miasto', text: 'Warszawa jest największym miastem Polski.' },
    ]);
    for (const ids of [searchIds, nouveauIds]) {
      assert.deepEqual(await ids('pl', 'kobieta'), ['kobiety']);
      assert.deepEqual(await ids('pl', 'książkami'), ['kobiety']);
      assert.deepEqual(await ids('pl', 'bibliotekach'), ['kobiety']);
      assert.deepEqual(await ids('pl', 'dziecko'), ['dzieci']);
      assert.deepEqual(await ids('pl', 'psy'), []);
      assert.deepEqual(await ids('pl', 'miastach'), ['miasto']);
      assert.deepEqual(await ids('pl', '"czytać książka"'), ['kobiety']);
      assert.deepEqual(await ids('pl', 'jest'), []);
    }
    for (const path of ['/_search_analyze', '/_nouveau_analyze']) {
      const analyzed = await t.request('POST', path, { body: { analyzer: 'polish', text: 'Dzieci bawiły się' } });
      assert.deepEqual(analyzed.json, { tokens: ['dziecko', 'bawić'] });
    }
  });

  it('chinese: SmartCN words are found whole, punctuation is no term', async () => {
    await indexed('zh', 'chinese', [
      { _id: 'prc', text: '中华人民共和国成立于1949年。' },
      { _id: 'pku', text: '北京大学是中国最著名的大学之一。' },
      { _id: 'search', text: '全文搜索引擎可以快速找到相关的文档，Apache Lucene是其中之一。' },
    ]);
    for (const ids of [searchIds, nouveauIds]) {
      assert.deepEqual(await ids('zh', '中华人民共和国'), ['prc']);
      assert.deepEqual(await ids('zh', '大学'), ['pku']);
      assert.deepEqual(await ids('zh', '北京大学'), ['pku']);
      assert.deepEqual(await ids('zh', '之一'), ['pku', 'search']);
      assert.deepEqual(await ids('zh', '搜索引擎'), ['search']);
      assert.deepEqual(await ids('zh', 'lucene'), ['search']);
      assert.deepEqual(await ids('zh', '"成立于1949年"'), ['prc']);
      // 中国 is a word of the PKU text; 中 alone is no term of any.
      assert.deepEqual(await ids('zh', '中国'), ['pku']);
      assert.deepEqual(await ids('zh', '"最 著名"'), ['pku']);
    }
    for (const path of ['/_search_analyze', '/_nouveau_analyze']) {
      const analyzed = await t.request('POST', path, { body: { analyzer: 'chinese', text: '我是中国人。' } });
      assert.deepEqual(analyzed.json, { tokens: ['我', '是', '中国', '人'] });
    }
  });

  it('japanese: Kuromoji finds dictionary forms, compounds and their parts, katakana without ー', async () => {
    await indexed('ja', 'japanese', [
      { _id: 'airport', text: '関西国際空港に行った' },
      { _id: 'exam', text: '多くの学生が試験に落ちた。' },
      { _id: 'computer', text: 'コンピューターとサーバーのデータベースを東京都で管理する' },
      { _id: 'company', text: 'ＡＢＣ株式会社のＣＥＯが来日した。' },
    ]);
    for (const ids of [searchIds, nouveauIds]) {
      // The compound is a term, and so is each part, at the compound's positions.
      assert.deepEqual(await ids('ja', '関西国際空港'), ['airport']);
      assert.deepEqual(await ids('ja', '空港'), ['airport']);
      assert.deepEqual(await ids('ja', '"国際空港"'), ['airport']);
      // Inflected verbs are indexed, and looked up, in their dictionary form.
      assert.deepEqual(await ids('ja', '行く'), ['airport']);
      assert.deepEqual(await ids('ja', '落ちる'), ['exam']);
      assert.deepEqual(await ids('ja', '落ちた'), ['exam']);
      // A particle is no term; a phrase keeps its place.
      assert.deepEqual(await ids('ja', '学生が'), ['exam']);
      assert.deepEqual(await ids('ja', '"試験に落ちた"'), ['exam']);
      // Katakana loses a final ー (half width folded first), full-width Latin is ASCII, lowercased.
      assert.deepEqual(await ids('ja', 'コンピュータ'), ['computer']);
      assert.deepEqual(await ids('ja', 'ｻｰﾊﾞｰ'), ['computer']);
      assert.deepEqual(await ids('ja', 'abc'), ['company']);
      assert.deepEqual(await ids('ja', 'ＣＥＯ'), ['company']);
      assert.deepEqual(await ids('ja', '会社'), ['company']);
    }
    for (const path of ['/_search_analyze', '/_nouveau_analyze']) {
      const analyzed = await t.request('POST', path, { body: { analyzer: 'japanese', text: '関西国際空港に行った' } });
      assert.deepEqual(analyzed.json, { tokens: ['関西', '関西国際空港', '国際', '空港', '行く'] });
    }
  });
});
