import assert from 'node:assert/strict';
import { createMapper } from '../src/sandbox/index.js';

/**
 * The view sandbox's map step in-process (no server, no storage): docs/s of the 100k-doc,
 * two-view workload in batches of 500 JSON docs, three runs. `npm run bench -w @divan/db --
 * --suite sandbox [--docs N]`, or by hand after `npx tsc -b`:
 * `node --no-node-snapshot packages/db/dist/bench/sandbox-map.js [docs]` (isolated-vm needs the flag).
 * Printed, not asserted (speeds belong here, not in tests); the row count is checked, so a
 * figure never comes from a mapper that dropped rows.
 */

const N = Number(process.argv[2] ?? 100_000);
if (!(N >= 500 && N % 4 === 0)) throw new Error('the doc count must be a multiple of 4, at least 500');

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
      body: 'lorem ipsum '.repeat(20),
      tags: ['a', 'b', 'c'],
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
  const results: number[] = [];
  for (let run = 0; run < 3; run++) {
    let rows = 0;
    const started = performance.now();
    for (let i = 0; i < N; i += 500) {
      const out = await mapper.mapBatch(docs.slice(i, i + 500));
      for (const perDoc of out.rows) rows += perDoc[0]!.length + perDoc[1]!.length;
    }
    const ms = performance.now() - started;
    assert.equal(rows, N * 0.75 + N);
    results.push(Math.round((N / ms) * 1000));
  }
  console.log(`sandbox map speed (isolated-vm, ${N} docs in batches of 500, 2 views): ${results.join(', ')} docs/s`);
} finally {
  mapper.dispose();
}
