import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMapper } from '../src/sandbox/index.js';

// What the map speed benchmark (bench/sandbox-map.ts) checks of every run, at a test's size:
// docs mapped in batches of 500 through two views give every row, none lost between batches.
test('2,000 docs through two views in batches of 500: every emitted row comes back', async () => {
  const N = 2_000;
  const docs: string[] = [];
  for (let i = 0; i < N; i++) {
    docs.push(
      JSON.stringify({
        _id: `doc${String(i).padStart(8, '0')}`,
        _rev: `1-${'0123456789abcdef'.repeat(2)}`,
        type: i % 4 === 0 ? 'comment' : 'post',
        author: `author${i % 500}`,
        date: new Date(1.6e12 + i * 60_000).toISOString(),
        title: `Title number ${i}`,
      }),
    );
  }
  const mapper = await createMapper({
    views: [
      { name: 'by_author_date', map: "function(doc){ if(doc.type==='post') emit([doc.author, doc.date], doc.title) }" },
      { name: 'count_by_author', map: 'function(doc){ emit(doc.author, 1) }' },
    ],
  });
  try {
    let rows = 0;
    for (let i = 0; i < N; i += 500) {
      const out = await mapper.mapBatch(docs.slice(i, i + 500));
      assert.equal(out.rows.length, 500);
      for (const perDoc of out.rows) rows += perDoc[0]!.length + perDoc[1]!.length;
    }
    assert.equal(rows, N * 0.75 + N);
  } finally {
    mapper.dispose();
  }
});
