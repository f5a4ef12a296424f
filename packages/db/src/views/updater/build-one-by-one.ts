/**
 * An index build from empty whose map functions run on this thread (../native-map), one change
 * at a time: each document read is mapped and its rows go into the build before the next is
 * looked at. Issue #31: the batch pipeline (./read-changes.ts, ./map-batch.ts) kept two batches
 * of 1,000 documents alive — their records, bodies, parsed members and mapped rows — for about
 * one young-generation interval, so whole batches were often promoted and a build ran up to 14
 * full collections; and it made a `StoredDoc`, a `MappedDoc`, a row list and a per-view array per
 * document. Here those are one object each for the whole build, reused, and a document's
 * objects die within the page of changes storage hands out. A document a map function throws on
 * is mapped by the sandbox, a few at a time (`mapStored`), as the batch pipeline does.
 */
import type { ChangedDoc, Page } from '../../storage/records.js';
import type { ViewGroup } from '../design.js';
import type { MappedDoc } from '../index/index-rows.js';
import type { IndexBuild } from '../index/view-index.js';
import type { EmittedRows } from '../native-map/map-shape.js';
import type { StoredDoc, StoredDocMapper } from '../native-map/native-js-mapper.js';
import type { Mapper } from '../../sandbox/index.js';
import type { UpdateProgress } from './progress.js';
import { isMapped, mapExtras, renderStored } from './read-changes.js';

/** Documents the sandbox is given at once (those a map function here threw on). */
const SANDBOX_BATCH = 1000;

/** A mapper that maps one document at a time into the caller's arrays. */
export type OneByOneMapper = StoredDocMapper & Required<Pick<StoredDocMapper, 'mapInto'>>;

export function mapsOneByOne(mapper: Mapper): mapper is OneByOneMapper {
  return 'mapInto' in mapper && typeof mapper.mapInto === 'function';
}

export interface OneByOneBuild {
  build: IndexBuild;
  mapper: OneByOneMapper;
  /** The changes after the index's sequence, as storage pages them. */
  pages: AsyncIterable<Page<ChangedDoc>>;
  group: ViewGroup;
  /** The database's sequence when the update started: changes past it wait for the next one. */
  target: number;
  progress: UpdateProgress;
  /** Other work gets a turn of the event loop at least this often (ms). */
  sliceMs: number;
}

/**
 * Adds every change up to the target to the build; the sequence of the last one read, or
 * undefined when there was none.
 */
export async function buildOneByOne(options: OneByOneBuild): Promise<number | undefined> {
  const { build, mapper, pages, group, target, progress, sliceMs } = options;
  const perView: EmittedRows[] = group.views.map(() => []);
  const doc: MappedDoc = { id: '', rows: perView, seq: 0 };
  const stored: StoredDoc = { id: '', rev: '', body: '', extras: undefined };
  let toSandbox: { docs: StoredDoc[]; seqs: number[] } | undefined;
  const mapInSandbox = async (): Promise<void> => {
    if (toSandbox === undefined) return;
    const { docs, seqs } = toSandbox;
    toSandbox = undefined;
    const mapped = await mapper.mapStored(docs, renderStored);
    for (let k = 0; k < docs.length; k++) {
      build.addDoc({ id: docs[k]!.id, rows: mapped.rows[k], seq: seqs[k] });
    }
  };
  let lastSeq: number | undefined;
  let slice = performance.now();
  let past = false;
  for await (const page of pages) {
    let read = 0;
    for (const record of page) {
      if (record.seq > target) {
        past = true;
        break;
      }
      read++;
      lastSeq = record.seq;
      if (!isMapped(record, group)) continue;
      stored.id = record.id;
      stored.rev = record.rev;
      stored.body = record.body;
      stored.extras = mapExtras(record, group.localSeq);
      if (!mapper.mapInto(stored, renderStored, perView)) {
        toSandbox ??= { docs: [], seqs: [] };
        toSandbox.docs.push({ ...stored });
        toSandbox.seqs.push(record.seq);
        if (toSandbox.docs.length >= SANDBOX_BATCH) await mapInSandbox();
        continue;
      }
      doc.id = record.id;
      doc.seq = record.seq;
      build.addDoc(doc);
    }
    progress.advance(read);
    if (past) break;
    if (performance.now() - slice > sliceMs) {
      await new Promise((resolve) => setImmediate(resolve));
      slice = performance.now();
    }
  }
  await mapInSandbox();
  return lastSeq;
}
