/**
 * One view group opened for use (./view-manager.ts opens them): its index, reducers and
 * mapper, and what runs on it now (an update, a sync of a shared index, an `_active_tasks`
 * entry). The updater (./updater) and the queries (./query) work on it.
 */
import type { Mapper } from '../sandbox/index.js';
import type { ViewGroup } from './design.js';
import type { ViewIndex } from './index/view-index.js';
import type { Reducer } from './reduce/index.js';
import type { ActiveTask } from './updater/progress.js';

export interface GroupState {
  group: ViewGroup;
  index: ViewIndex;
  /** One reducer per view (undefined for map-only views). */
  reducers: (Reducer | undefined)[];
  mapper?: Mapper;
  updating?: Promise<void>;
  /** A shared index taking in other nodes' updates. */
  syncing?: Promise<void>;
  task?: ActiveTask;
  /** A build from empty failed its checks once: update incrementally only. */
  noBuild?: boolean;
}
