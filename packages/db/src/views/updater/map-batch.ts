/** The second stage of an update: a batch's documents through the view group's map functions. */
import { createMapper, type Mapper, type SandboxLog } from '../../sandbox/index.js';
import type { GroupState } from '../group-state.js';
import { nativeJsMapper, type StoredDocMapper } from '../native-map/native-js-mapper.js';
import { type Batch, renderStored } from './read-changes.js';

/**
 * The group's mapper: a native one given at open (Mango), else its JavaScript run on this thread
 * when every map function is of a common shape (../native-map), else the sandbox's, started on
 * first use.
 */
export async function mapperOf(state: GroupState, log: SandboxLog): Promise<Mapper> {
  const { group } = state;
  const design = { views: group.views.map((v) => ({ name: v.name, map: v.map })), lib: group.lib };
  state.mapper ??= nativeJsMapper(design, { log }) ?? (await createMapper(design, { log }));
  return state.mapper;
}

/** Maps the batch's documents (here, or in the sandbox's own thread) into its docs' rows. */
export async function mapBatch(mapper: Mapper, batch: Batch): Promise<void> {
  const docs = batch.toMapDocs;
  if (docs.length > 0) {
    const mapped = isStoredDocMapper(mapper)
      ? await mapper.mapStored(docs, renderStored)
      : await mapper.mapBatch(docs.map(renderStored));
    batch.toMap.forEach((i, k) => {
      batch.docs[i]!.rows = mapped.rows[k];
    });
  }
  batch.mapped = true;
}

/**
 * Whether the mapper maps on this thread (a native one): the updater then gains nothing by
 * writing rows while a batch is mapped, as nothing else maps meanwhile.
 */
export function mapsOnThisThread(mapper: Mapper): boolean {
  return isStoredDocMapper(mapper);
}

function isStoredDocMapper(mapper: Mapper): mapper is StoredDocMapper {
  return 'mapStored' in mapper;
}
