/**
 * Child process of the storage crash test: writes batches of 5 documents forever and prints the
 * last sequence of each batch once `writeDocs` has returned (an acknowledged write). Write k
 * (k = its sequence) goes to `d<k % 500>` with rev `<k>-x`, deleted when k % 7 === 0.
 * Usage: node storage-kill-child.js <data dir>
 */
import { writeSync } from 'node:fs';
import type { DocWrite } from '../../src/storage/records.js';
import { openSqliteEngine } from '../../src/storage/sqlite/sqlite-engine.js';

const dir = process.argv[2];
if (dir === undefined) throw new Error('usage: storage-kill-child <dir>');
const engine = openSqliteEngine({ dir });
const db = engine.open('crash') ?? engine.create('crash');
let k = db.meta().updateSeq;
const pause = new Int32Array(new SharedArrayBuffer(4));
for (;;) {
  const batch: DocWrite[] = [];
  for (let i = 0; i < 5; i++) {
    k++;
    const rev = `${k}-x`;
    batch.push({
      record: { id: `d${k % 500}`, rev, deleted: k % 7 === 0, tree: `[${k}]` },
      bodies: [{ rev, body: `{"k":${k}}` }],
    });
  }
  const seqs = db.writeDocs(batch);
  printLine(`${seqs[seqs.length - 1]}\n`);
}

/**
 * Synchronous write, so the line is out before the next batch starts. The pipe to the test may be
 * non-blocking and full when the test's process has not had a turn to read (a loaded machine):
 * wait a millisecond and write again rather than die of EAGAIN before the test's SIGKILL.
 */
function printLine(line: string): void {
  for (;;) {
    try {
      writeSync(1, line);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
}
