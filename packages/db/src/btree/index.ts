/**
 * B+tree with stored reductions for view indexes (see btree.ts for the design): generic over the
 * entry value V and reduction R, keyed by byte-comparable Buffers, nodes in a NodeStore (memory
 * or storage's).
 */
export {
  BTree,
  combineReducers,
  type BTreeOptions,
  type FoldOptions,
  type FoldReduceOptions,
  type KeyRange,
  type ReduceGroup,
  type Reducer,
  type TreeStats,
} from './btree.js';
export { compareKeys, type Entry } from './node.js';
export { MemoryNodeStore, type NodeStore } from './store.js';
export { WriteBackNodeStore } from './write-back-store.js';
